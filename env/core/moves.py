"""The list of legal plays every rule set's move generator returns."""

from __future__ import annotations

from typing import NamedTuple


class MoveList(NamedTuple):
    """Legal plays (tuples of kinds) and whether the list was cut at ``max_plays``."""

    plays: list[tuple[int, ...]]
    truncated: bool
