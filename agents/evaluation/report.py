"""Evaluation output: a rich table for the terminal, JSON, CSV and a PNG chart."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.evaluation.metrics import HAND_METRICS, MATCH_METRICS
from agents.evaluation.run import Evaluation
from agents.evaluation.stats import Estimate


def _descriptions(evaluation: Evaluation) -> dict[str, str]:
    return MATCH_METRICS if evaluation.settings.mode == "matches" else HAND_METRICS


def _headline(evaluation: Evaluation) -> tuple[str, str]:
    """The two metrics the table and the chart lead with."""
    if evaluation.settings.mode == "matches":
        return "match_win_rate", "level_gap"
    return "level_diff", "hand_win_rate"


def _fmt(e: Estimate, digits: int = 3) -> str:
    if math.isnan(e.value):
        return "-"
    if math.isnan(e.low):
        return f"{e.value:.{digits}f}"
    return f"{e.value:.{digits}f} [{e.low:.{digits}f}, {e.high:.{digits}f}]"


def to_json(evaluation: Evaluation, config: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-serialisable summary: settings, per-pair metrics and per-deal level changes, ratings."""
    pairs = []
    for p in evaluation.pairs:
        entry: dict[str, Any] = {"a": p.a, "b": p.b, "metrics": {k: v.to_dict() for k, v in p.metrics.items()}}
        if evaluation.settings.mode == "hands":
            entry["per_deal_level_change"] = [[g.a_level_change for g in r.games] for r in p.deals]
        else:
            entry["per_deal_match_score"] = [[g.a_score for g in r.games] for r in p.deals]
        pairs.append(entry)
    settings = asdict(evaluation.settings)
    settings["rules"] = dict(evaluation.settings.rules)
    return {"config": config or {}, "settings": settings, "num_deals": evaluation.num_deals,
            "hands_per_pair": 2 * evaluation.num_deals, "metric_descriptions": _descriptions(evaluation),
            "pairs": pairs, "decision_ms": evaluation.decision_ms, "ratings": evaluation.ratings}


def write_json(evaluation: Evaluation, path: Path, config: dict[str, Any] | None = None) -> None:
    """Write :func:`to_json` to ``path`` (NaN written as null)."""
    def clean(x: Any) -> Any:
        if isinstance(x, float) and math.isnan(x):
            return None
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return [clean(v) for v in x]
        return x
    path.write_text(json.dumps(clean(to_json(evaluation, config)), indent=2) + "\n")


def write_csv(evaluation: Evaluation, path: Path) -> None:
    """One row per pair and metric: value, 95% interval, number of deals."""
    descriptions = _descriptions(evaluation)
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["a", "b", "metric", "description", "value", "ci_low", "ci_high", "deals"])
        for p in evaluation.pairs:
            for name, e in p.metrics.items():
                writer.writerow([p.a, p.b, name, descriptions[name], e.value, e.low, e.high, e.n])


def print_table(evaluation: Evaluation) -> None:
    """Print the results as rich tables (metrics per pair; ratings; decision times)."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
    descriptions = _descriptions(evaluation)
    title = (f"Duplicate evaluation ({evaluation.settings.mode}): {evaluation.num_deals} deals x 2 "
             f"(teams swapped), 95% CI over deals")
    table = Table(title=title, show_lines=False)
    table.add_column("metric")
    for p in evaluation.pairs:
        table.add_column(f"{p.a} vs {p.b}", justify="right")
    for name, text in descriptions.items():
        table.add_row(text, *(_fmt(p.metrics[name]) for p in evaluation.pairs))
    console.print(table)
    if evaluation.ratings:
        ratings = Table(title="OpenSkill ratings (Plackett-Luce, teams of two)")
        for col in ("participant", "mu", "sigma", "ordinal"):
            ratings.add_column(col, justify="right" if col != "participant" else "left")
        for name, r in sorted(evaluation.ratings.items(), key=lambda kv: -kv[1]["ordinal"]):
            ratings.add_row(name, f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['ordinal']:.2f}")
        console.print(ratings)
    if evaluation.decision_ms:
        times = ", ".join(f"{k} {v:.2f} ms" for k, v in sorted(evaluation.decision_ms.items()))
        console.print(f"mean decision time: {times}")


def write_chart(evaluation: Evaluation, path: Path) -> None:
    """A PNG: the two headline metrics per pair with 95% error bars (and ratings if any)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    first, second = _headline(evaluation)
    descriptions = _descriptions(evaluation)
    panels = [first, second] + (["ratings"] if evaluation.ratings else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(5 * len(panels), 4), squeeze=False)
    labels = [f"{p.a}\nvs {p.b}" for p in evaluation.pairs]
    for ax, metric in zip(axes[0], panels):
        if metric == "ratings":
            names = sorted(evaluation.ratings, key=lambda n: -evaluation.ratings[n]["ordinal"])
            ax.bar(names, [evaluation.ratings[n]["mu"] for n in names],
                   yerr=[3 * evaluation.ratings[n]["sigma"] for n in names], capsize=4, color="tab:green")
            ax.set_title("OpenSkill mu (error bar: 3 sigma)")
            continue
        estimates = [p.metrics[metric] for p in evaluation.pairs]
        values = [0.0 if math.isnan(e.value) else e.value for e in estimates]
        errors = [[0.0 if math.isnan(e.low) else e.value - e.low for e in estimates],
                  [0.0 if math.isnan(e.high) else e.high - e.value for e in estimates]]
        ax.bar(labels, values, yerr=errors, capsize=4, color="tab:blue")
        baseline = 0.5 if metric.endswith("rate") else 0.0
        ax.axhline(baseline, color="grey", linewidth=0.8)
        ax.set_title(descriptions[metric], fontsize=9)
    fig.suptitle(f"{evaluation.num_deals} duplicate deals ({evaluation.settings.mode})")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
