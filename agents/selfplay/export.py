"""Release a training checkpoint into ``checkpoints/``: weights only, plus a JSON card.

    python -m agents.selfplay.export outputs/train/cpu60/run/checkpoints/latest.pt checkpoints/dmc_cpu60.pt \
        --evaluation outputs/evaluate/.../results.json

With ``--average SNAPSHOT`` (repeatable) the released weights are the mean of
the source's and the snapshots' (:mod:`agents.selfplay.averaging`), e.g. the
last snapshots of a run at a low learning rate:

    python -m agents.selfplay.export run/checkpoints/latest.pt checkpoints/x.pt \
        --average run/checkpoints/snapshots/frames_000012000000.pt --average ...

The released file is a regular checkpoint without the optimizer state (smaller,
still loadable by :func:`agents.selfplay.checkpoint.load_checkpoint` and by path in
``evaluate.py`` / ``play.py``). The card (same name, ``.json``) records the
configuration, the counters and, when given, evaluation figures.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from agents.selfplay.averaging import average_checkpoints
from agents.selfplay.checkpoint import save_checkpoint


def export(source: Path, target: Path, evaluation: dict[str, Any] | None = None,
           notes: str = "", average: list[Path] | None = None) -> dict[str, Any]:
    """Write the weights-only checkpoint and its card (the mean of the source's and ``average``'s weights when
    given, with the counters of the one with the most frames); returns the card."""
    model, state = average_checkpoints([source, *(average or [])])
    save_checkpoint(target, model=model, optimizer=None, config=state["config"], counters=state["counters"],
                    rng=state.get("rng"))
    card = {
        "checkpoint": target.name,
        "source": str(source),
        "frames": int(state["counters"].get("frames", 0)),
        "hands": int(state["counters"].get("episodes", 0)),
        "learner_steps": int(state["counters"].get("learner_steps", 0)),
        "train_minutes": round(float(state["counters"].get("train_seconds", 0.0)) / 60, 1),
        "parameters": sum(p.numel() for p in model.parameters()),
        "config": state["config"],
        "averaged": [str(path) for path in [source, *average]] if average else [],
        "evaluation": evaluation or {},
        "notes": notes,
    }
    target.with_suffix(".json").write_text(json.dumps(card, indent=2) + "\n")
    return card


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="a training checkpoint (e.g. .../checkpoints/latest.pt)")
    parser.add_argument("target", type=Path, help="where to write the released checkpoint (checkpoints/NAME.pt)")
    parser.add_argument("--evaluation", type=Path, action="append", default=[],
                        help="an evaluate.py results.json to record on the card (repeatable)")
    parser.add_argument("--notes", default="", help="free text for the card")
    parser.add_argument("--average", type=Path, action="append", default=[],
                        help="a checkpoint of the same network whose weights are averaged with the source's "
                             "(repeatable; e.g. the run's last snapshots)")
    args = parser.parse_args()
    evaluation = {path.parent.name: json.loads(path.read_text()) for path in args.evaluation}
    try:
        card = export(args.source, args.target, evaluation, args.notes, args.average)
    except (ValueError, OSError) as error:
        parser.exit(2, f"export: {error}\n")
    print(f"wrote {args.target} and {args.target.with_suffix('.json')} ({card['frames']} frames)")


if __name__ == "__main__":
    main()
