"""The checkpoints a browser may choose, by name: the server keeps the paths.

A checkpoint file can run code when loaded, and its absolute path tells a
stranger about the machine, so the browser never sees or sends a path. It sees
a :class:`CheckpointChoice` per ``*.pt`` file of the checkpoint folder: a name
(the file's stem) and a label from the JSON card that
:mod:`agents.selfplay.export` writes next to it (frames trained, strength measured);
the server maps a chosen name back to the file. Nothing outside the folder can
be chosen.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ui.seats import card_level_diffs, read_card

MAX_STRENGTHS = 2  # opponents named in a label; the card has the rest


@dataclass(frozen=True)
class CheckpointChoice:
    """One checkpoint as the seat menus offer it."""

    name: str
    """What the browser shows and sends back: the file's stem (the file name if the stem is a bot's name)."""
    label: str
    """The menu text, e.g. ``dmc_cpu60 · 8.4M frames · +0.38 vs random (levels/hand)``."""
    frames: int | None
    """Frames trained, from the card (``None`` without a card)."""
    strength: str | None
    """The card's ``strength``, else its evaluations as level differences per hand."""
    path: Path
    """The file on the server; never sent to a browser."""

    def public(self) -> dict[str, Any]:
        """The JSON a browser receives: everything but the path."""
        return {"name": self.name, "label": self.label, "frames": self.frames, "strength": self.strength}


def checkpoint_choices(directory: str | Path, reserved: set[str] | frozenset[str] = frozenset()) -> \
        dict[str, CheckpointChoice]:
    """The ``*.pt`` files directly in ``directory`` by name, sorted; ``{}`` when there is no folder.

    ``reserved`` names (``human``, ``ai``, the bot names) stay with what they mean:
    a checkpoint whose stem is one of them is named by its file name instead.
    """
    root = Path(directory)
    if not root.is_dir():
        return {}
    taken = {r.lower() for r in reserved}
    choices = {}
    for path in sorted(p for p in root.glob("*.pt") if p.is_file()):
        name = path.name if path.stem.lower() in taken else path.stem
        card = _card(path.with_suffix(".json"), _mtime_ns(path.with_suffix(".json")))
        frames = card.get("frames") if isinstance(card.get("frames"), int) else None
        strength = _strength(card, path.name)
        label = " · ".join([name, *([f"{_count(frames)} frames"] if frames is not None else []),
                            *([strength] if strength else [])])
        choices[name] = CheckpointChoice(name, label, frames, strength, path.resolve())
    return choices


def public_seat_name(spec: str, choices: dict[str, CheckpointChoice]) -> str:
    """A resolved seat spec as a browser may see it: a checkpoint path becomes its name.

    A checkpoint outside the folder (set on the server's command line) shows its
    stem only.
    """
    if "/" not in spec and not spec.endswith(".pt"):
        return spec
    wrapper, colon, inner = spec.partition(":")
    if colon and "/" not in wrapper:  # search:<checkpoint>, critic:<checkpoint>: the wrapper stays in the name
        return f"{wrapper}:{public_seat_name(inner, choices)}"
    resolved = Path(spec).resolve()
    for choice in choices.values():
        if choice.path == resolved:
            return choice.name
    return Path(spec).stem


def _mtime_ns(path: Path) -> int | None:
    try:
        return path.stat().st_mtime_ns
    except OSError:
        return None


@functools.lru_cache(maxsize=64)
def _card(path: Path, mtime_ns: int | None) -> dict[str, Any]:
    """The JSON card (read again when it changes: ``mtime_ns`` is the cache key); ``{}`` if none or unreadable."""
    return {} if mtime_ns is None else read_card(path)


def _strength(card: dict[str, Any], file_name: str) -> str | None:
    """The card's ``strength`` if it states one, else its measured level difference per hand per opponent."""
    stated = card.get("strength")
    if isinstance(stated, str | int | float) and not isinstance(stated, bool) and str(stated).strip():
        return str(stated).strip()
    found = card_level_diffs(card, file_name)
    if not found:
        return None
    shown = [f"{value:+.2f} vs {opponent}" for opponent, (value, _) in list(found.items())[:MAX_STRENGTHS]]
    return ", ".join(shown) + " (levels/hand)"


def _count(n: int) -> str:
    """8433184 -> ``8.4M``; 1500 -> ``1.5k``."""
    for size, unit in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if n >= size:
            return f"{n / size:.1f}".rstrip("0").rstrip(".") + unit
    return str(n)
