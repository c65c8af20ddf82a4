"""Learning curves of a sweep: level differential against frames and against minutes (PNG and SVG).

One panel per opponent, one line per group (the mean over its seeds) with a
shaded band from its lowest to its highest seed (:func:`agents.ablation.summary.band`),
over the stretch of the axis that all its seeds reach; each seed's own snapshots
are drawn faintly beside it, and alone when the seeds share no stretch (a run
with a single snapshot).
"""

from __future__ import annotations

from pathlib import Path

from agents.ablation.summary import AXES, GroupSummary

AXIS_LABELS = {"frames": "frames (environment decisions)", "minutes": "minutes of training"}


def write_curves(summaries: list[GroupSummary], opponents: tuple[str, ...], out: Path) -> list[Path]:
    """Write ``learning_curves_<axis>.png`` and ``.svg`` for each axis; returns the paths written."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    for axis in AXES:
        fig, axes = plt.subplots(1, len(opponents), figsize=(5.5 * len(opponents), 4), squeeze=False)
        for ax, opponent in zip(axes[0], opponents):
            for i, summary in enumerate(summaries):
                colour = f"C{i % 10}"
                band = summary.bands.get(opponent, {}).get(axis)
                label = f"{summary.label} ({len(summary.runs)} seed{'s' if len(summary.runs) != 1 else ''})"
                has_band = band is not None and len(band.x) > 1
                if has_band:
                    ax.plot(band.x, band.mean, color=colour, label=label)
                    ax.fill_between(band.x, band.low, band.high, color=colour, alpha=0.2, linewidth=0)
                # Each seed's own snapshots, faint: the band covers only the stretch all seeds reach.
                for j, curve in enumerate(summary.curves.get(opponent, [])):
                    ax.plot(getattr(curve, axis), curve.level_diff, ".--", color=colour, linewidth=0.8,
                            alpha=0.4 if has_band else 0.9, label=None if has_band or j else label)
            ax.axhline(0.0, color="grey", linewidth=0.8)
            ax.set_xlabel(AXIS_LABELS[axis])
            ax.set_ylabel("level differential per hand")
            ax.set_title(f"vs {opponent}")
            ax.legend(fontsize=8)
        fig.tight_layout()
        for suffix in ("png", "svg"):
            path = out / f"learning_curves_{axis}.{suffix}"
            fig.savefig(path, dpi=100)
            written.append(path)
        plt.close(fig)
    return written
