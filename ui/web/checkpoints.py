"""The checkpoints a browser may choose, by name: the server keeps the paths.

A checkpoint file can run code when loaded, and its absolute path tells a
stranger about the machine, so the browser never sees or sends a path. It sees
a :class:`CheckpointChoice` per ``*.pt`` file of the checkpoint folder: a name
(the file's stem) and a label from the JSON card that
:mod:`agents.selfplay.export` writes next to it (frames trained, strength measured);
the server maps a chosen name back to the file. Nothing outside the folder can
be chosen.

A network checkpoint is also offered as the strongest player built around it that plays
with one network pass a decision (:data:`NETWORK_PLAYERS`): ``relabel:plans:<name>``,
its burial decided whole and its ``Q`` averaged over the plain suits' renamings, the
network player ``benchmarks/RESULTS.md`` measures strongest.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.registry import PLANS, RELABEL, make_agent
from ui.seats import card_level_diffs, read_card

MAX_STRENGTHS = 2  # opponents named in a label; the card has the rest
NETWORK_PLAYERS: tuple[tuple[str, str], ...] = ((f"{RELABEL}:{PLANS}", "burial planned, suits renamed"),)
"""Players built around a checkpoint that the seat menus offer beside it, as (wrapper, menu words): the
strongest network player measured (``relabel:plans:``, about 0.07 levels per hand above the plain network
against ExpertAgent, benchmarks/RESULTS.md). Offered for a checkpoint only when the player loads over it
(``plans:`` needs a value head)."""


@dataclass(frozen=True)
class NetworkPlayer:
    """A player built around a checkpoint, as the seat menus offer it."""

    name: str
    """What the browser shows and sends back: ``<wrapper>:<checkpoint name>``."""
    label: str
    """The menu text: the checkpoint's name, the wrapper's words and the player's own measured strength."""
    spec: str
    """The participant spec on the server (``<wrapper>:<path>``); never sent to a browser."""

    def public(self) -> dict[str, str]:
        """The JSON a browser receives: the name and the label."""
        return {"name": self.name, "label": self.label}


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
    players: tuple[NetworkPlayer, ...] = ()
    """The players of :data:`NETWORK_PLAYERS` that load over this checkpoint."""

    def public(self) -> dict[str, Any]:
        """The JSON a browser receives: everything but the paths."""
        return {"name": self.name, "label": self.label, "frames": self.frames, "strength": self.strength,
                "players": [player.public() for player in self.players]}


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
        players = tuple(NetworkPlayer(f"{wrapper}:{name}", _player_label(name, words, card, path.name, wrapper),
                                      f"{wrapper}:{path.resolve()}")
                        for wrapper, words in NETWORK_PLAYERS if _loads(wrapper, path.resolve(), _mtime_ns(path)))
        choices[name] = CheckpointChoice(name, label, frames, strength, path.resolve(), players)
    return choices


def seat_spec(name: str, choices: dict[str, CheckpointChoice]) -> str | None:
    """The server's participant spec for a name a browser sent: a checkpoint's path, or one of its
    :data:`NETWORK_PLAYERS` over the path; ``None`` when the name is neither."""
    if name in choices:
        return str(choices[name].path)
    for choice in choices.values():
        for player in choice.players:
            if player.name == name:
                return player.spec
    return None


@functools.lru_cache(maxsize=64)
def _loads(wrapper: str, path: Path, mtime_ns: int | None) -> bool:
    """Whether ``<wrapper>:<path>`` builds an agent (loaded once per file version: ``mtime_ns`` is the key)."""
    try:
        make_agent(f"{wrapper}:{path}", 0)
    except Exception:  # an unreadable or unsuited checkpoint (any error of its loader) is not offered
        return False
    return True


def _player_label(name: str, words: str, card: dict[str, Any], file_name: str, wrapper: str) -> str:
    """``dmc_play_cpu145 · burial planned, suits renamed · -0.07 vs expert (levels/hand)``: the player's own
    figures from the checkpoint's card, when it records any."""
    figures = _figures(card_level_diffs(card, file_name, wrapper))
    return " · ".join([name, words, *([figures] if figures else [])])


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
    return _figures(card_level_diffs(card, file_name))


def _figures(found: dict[str, tuple[float, float | None]]) -> str | None:
    """``+0.38 vs random, +0.10 vs greedy (levels/hand)`` for the first opponents, ``None`` for none."""
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
