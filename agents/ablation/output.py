"""The report's text outputs: the terminal tables, a Markdown summary, CSV files and a JSON file.

Files (in the report's output directory):

* ``summary.md``: the final table, the differences to the baseline, the curves
  and the problems met, ready to paste into a write-up;
* ``final.csv``: one row per group, opponent and metric (level differential,
  hand win rate) with the interval, standard error and degrees of freedom;
* ``differences.csv``: one row per group and opponent, level differential minus the baseline's;
* ``curves.csv``: every evaluated snapshot of every run (frames, minutes, level differential, hand win rate);
* ``bands.csv``: the plotted group lines (mean and range over seeds on the common grid);
* ``results.json``: all of the above together with the settings.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents.ablation.intervals import SweepEstimate
from agents.ablation.summary import AXES, GroupSummary

METRICS = {"level_diff": "level diff", "hand_win_rate": "hand win rate"}


def fmt(e: SweepEstimate | None, digits: int = 3, signed: bool = True) -> str:
    """``value [low, high]``; the value alone when there is no interval; ``-`` when there is no value."""
    if e is None or math.isnan(e.value):
        return "-"
    sign = "+" if signed else ""
    if math.isnan(e.low):
        return f"{e.value:{sign}.{digits}f}"
    return f"{e.value:{sign}.{digits}f} [{e.low:{sign}.{digits}f}, {e.high:{sign}.{digits}f}]"


def _final_columns(opponents: tuple[str, ...]) -> list[str]:
    return [f"{METRICS[m]} vs {o}" for o in opponents for m in METRICS]


def final_rows(summaries: list[GroupSummary], opponents: tuple[str, ...], digits: int = 3) -> list[list[str]]:
    """The final table as text: configuration, seeds, frames, minutes, then each opponent's two metrics."""
    rows = []
    for s in summaries:
        cells = [fmt(s.final[o][m], digits, signed=m == "level_diff") for o in opponents for m in METRICS]
        minutes = f"{s.minutes:.1f}" if s.minutes >= 10 else f"{s.minutes:.2f}"
        rows.append([s.label, str(len(s.runs)), f"{s.frames:,.0f}", minutes, *cells])
    return rows


def difference_rows(summaries: list[GroupSummary], opponents: tuple[str, ...], digits: int = 3) -> list[list[str]]:
    """The differences to the baseline as text, one row per non-baseline group."""
    return [[s.label, *(fmt(s.difference.get(o), digits) for o in opponents)] for s in summaries if s.difference]


def print_report(summaries: list[GroupSummary], opponents: tuple[str, ...], baseline: str | None,
                 num_deals: int, problems: list[str]) -> None:
    """The final table, the differences and the problems, as rich tables in the terminal."""
    from rich.console import Console
    from rich.table import Table

    # A terminal gets its own width; a log file gets the whole table on one line per row.
    console = Console(width=None if sys.stdout.isatty() else 50 + 48 * len(opponents))
    table = Table(title=f"Ablation: final evaluation, {num_deals} duplicate deals per snapshot; "
                        "mean over seeds [95% CI over seeds and deals]")
    for column in ["configuration", "seeds", "frames", "minutes", *_final_columns(opponents)]:
        table.add_column(column, justify="left" if column == "configuration" else "right")
    for row in final_rows(summaries, opponents, digits=2):
        table.add_row(*row)
    console.print(table)
    differences = difference_rows(summaries, opponents)
    if differences:
        table = Table(title=f"Level differential minus the baseline's ({baseline}) [95% CI]")
        for column in ["configuration", *(f"vs {o}" for o in opponents)]:
            table.add_column(column, justify="left" if column == "configuration" else "right")
        for row in difference_rows(summaries, opponents, digits=2):
            table.add_row(*row)
        console.print(table)
    for problem in problems:
        console.print(f"[yellow]problem[/yellow] {problem}", markup=True, highlight=False)


def _markdown_table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def markdown(summaries: list[GroupSummary], settings: dict[str, Any], problems: list[str]) -> str:
    """The Markdown summary (tables, figure links, problems)."""
    opponents = tuple(settings["opponents"])
    baseline = settings.get("baseline_group")
    parts = ["# Ablation report", "",
             f"Runs: {', '.join(settings['sources']) or '(none)'}. Opponents: {', '.join(opponents)}. "
             f"Each snapshot played {settings['num_deals']} duplicate deals ({2 * settings['num_deals']} hands, "
             f"teams swapped) of evaluation seed {settings['seed']}. Values are means over seeds of each run's "
             "last snapshot; intervals are 95% and account for both the seeds and the deals "
             "(two-way random effects, Satterthwaite t; see docs/ablation.md).", "",
             "## Final evaluation", "",
             _markdown_table(["configuration", "seeds", "frames", "minutes", *_final_columns(opponents)],
                             final_rows(summaries, opponents)), ""]
    differences = difference_rows(summaries, opponents)
    if differences:
        parts += [f"## Level differential minus the baseline's ({baseline})", "",
                  _markdown_table(["configuration", *(f"vs {o}" for o in opponents)], differences), ""]
    if summaries:
        parts += ["## Learning curves", "",
                  "Mean level differential per hand over seeds (band: lowest to highest seed).", "",
                  "![level differential against frames](learning_curves_frames.png)", "",
                  "![level differential against minutes](learning_curves_minutes.png)", ""]
    if problems:
        parts += ["## Problems", "", *(f"- {p}" for p in problems), ""]
    return "\n".join(parts)


def _clean(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x


def to_json(summaries: list[GroupSummary], settings: dict[str, Any], problems: list[str]) -> dict[str, Any]:
    """Everything the report computed, JSON-ready (non-finite numbers as null)."""
    groups = []
    for s in summaries:
        entry = asdict(s)
        entry["final"] = {o: {m: e.to_dict() for m, e in ms.items()} for o, ms in s.final.items()}
        entry["difference"] = {o: e.to_dict() for o, e in s.difference.items()}
        groups.append(entry)
    return _clean({"settings": settings, "groups": groups, "problems": problems})


def write_files(summaries: list[GroupSummary], settings: dict[str, Any], problems: list[str], out: Path) -> None:
    """Write summary.md, results.json and the CSV files into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "summary.md").write_text(markdown(summaries, settings, problems))
    (out / "results.json").write_text(json.dumps(to_json(summaries, settings, problems), indent=1) + "\n")
    estimate_columns = ["value", "ci_low", "ci_high", "se", "df", "seeds", "deals"]

    def numbers(e: SweepEstimate) -> list[Any]:
        return [e.value, e.low, e.high, e.se, e.df, e.seeds, e.deals]

    with (out / "final.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["group", "runs", "frames", "minutes", "opponent", "metric", *estimate_columns])
        for s in summaries:
            for opponent, metrics in s.final.items():
                for metric, e in metrics.items():
                    writer.writerow([s.label, len(s.runs), s.frames, s.minutes, opponent, metric, *numbers(e)])
    with (out / "differences.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["group", "baseline", "opponent", "metric", *estimate_columns])
        for s in summaries:
            for opponent, e in s.difference.items():
                writer.writerow([s.label, settings.get("baseline_group"), opponent, "level_diff", *numbers(e)])
    with (out / "curves.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["group", "run", "seed", "opponent", "frames", "minutes", "level_diff", "hand_win_rate"])
        for s in summaries:
            for opponent, curves in s.curves.items():
                for c in curves:
                    for point in zip(c.frames, c.minutes, c.level_diff, c.hand_win_rate):
                        writer.writerow([s.label, c.run, c.seed, opponent, *point])
    with (out / "bands.csv").open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["group", "opponent", "axis", "x", "mean", "seed_min", "seed_max"])
        for s in summaries:
            for opponent, bands in s.bands.items():
                for axis in AXES:
                    b = bands.get(axis)
                    for point in zip(b.x, b.mean, b.low, b.high) if b else ():
                        writer.writerow([s.label, opponent, axis, *point])
