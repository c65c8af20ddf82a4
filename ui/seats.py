"""Who sits where: seat specs (``human``, a bot name, a checkpoint path) turned into agents.

A seat spec is ``"human"``, a bot name (``random``, ``greedy``, ``expert``) or a
checkpoint path, exactly the names :func:`agents.registry.make_agent` takes.
``"ai"`` (or an empty spec) stands for the default AI: the strongest agent
measured (``benchmarks/RESULTS.md``), which is the decision-time search over
ExpertAgent (``search``), unless a shipped checkpoint's card records a
duplicate evaluation in which it beat that search with 95% confidence.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Sequence
from pathlib import Path

from agents.base import Agent
from agents.registry import SEARCH, make_agent, wrapped_participant
from env.core.registry import ruleset_from_config
from env.core.ruleset import RuleSet

HUMAN = "human"
DEFAULT_AI = "ai"
STRONGEST = "search"
"""The strongest agent measured: search over ExpertAgent, its plays and (since issue 25) its burial, its
worlds dealt with the learnt odds of where the unseen cards are (``search.inference=locations``), at the budget
``play.py`` gives it (``conf/search/strong.yaml``; benchmarks/RESULTS.md, issues 11 and 25)."""
_BOT_PREFERENCE = (STRONGEST, "expert", "greedy", "random")
_ORIENTATION = ("South", "East", "North", "West")


def make_seat_agent(name: str, seed: int | None = None) -> Agent:
    """The agent for a bot name, a checkpoint path or a search (:func:`agents.registry.make_agent`)."""
    return make_agent(name, seed)


def plays_rule_set(agent: Agent, ruleset: RuleSet | str) -> bool:
    """Whether ``agent`` can sit at a table of ``ruleset`` (a rule set or its name): it has a policy for it."""
    return agent.can_play(ruleset_from_config(ruleset))


def best_checkpoint(directory: str | Path = "checkpoints") -> Path | None:
    """The checkpoint to play against: ``best*.pt`` if shipped, else the newest ``*.pt``, else ``None``."""
    root = Path(directory)
    if not root.is_dir():
        return None
    best = sorted(root.glob("best*.pt"))
    if best:
        return best[0]
    shipped = sorted(root.glob("*.pt"), key=lambda p: (p.stat().st_mtime, p.name))
    return shipped[-1] if shipped else None


def read_card(card: Path) -> dict:
    """A checkpoint's JSON card, ``{}`` when it is missing, unreadable or not an object."""
    try:
        data = json.loads(card.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def card_level_diffs(card: dict, file_name: str, wrapper: str | None = None) -> dict[str, tuple[float, float | None]]:
    """Per opponent (by name or file stem): the checkpoint's level differential per hand and its
    95% lower bound, from the duplicate evaluations its card records (the first one per opponent).

    ``wrapper`` (``plans``, ``relabel:plans``...): the figures of the player built around the checkpoint
    under that name instead of the checkpoint's own. An opponent built around another agent is left out.
    """
    found: dict[str, tuple[float, float | None]] = {}
    evaluations = card.get("evaluation")
    for result in evaluations.values() if isinstance(evaluations, dict) else ():
        for pair in result.get("pairs", []) if isinstance(result, dict) else ():
            try:
                a, b = str(pair["a"]), str(pair["b"])
                metric = pair["metrics"]["level_diff"]
                value = float(metric["value"])
            except (KeyError, TypeError, ValueError):
                continue
            low, high = metric.get("low"), metric.get("high")
            if _is_player(a, file_name, wrapper) and not _wraps_another(b):
                found.setdefault(Path(b).stem, (value, low if isinstance(low, int | float) else None))
            elif _is_player(b, file_name, wrapper) and not _wraps_another(a):
                found.setdefault(Path(a).stem, (-value, -high if isinstance(high, int | float) else None))
    return found


def _is_player(spec: str, file_name: str, wrapper: str | None) -> bool:
    """Whether a participant spec names the checkpoint ``file_name`` as itself (``wrapper`` ``None``) or inside
    exactly ``wrapper`` (``relabel:plans`` matches ``relabel:plans:<path>``, not ``plans:<path>``)."""
    if wrapper is not None:
        prefix = wrapper + ":"
        if not spec.startswith(prefix):
            return False
        spec = spec[len(prefix):]
    return not _wraps_another(spec) and Path(spec).name == file_name


def _wraps_another(spec: str) -> bool:
    """Whether a participant spec is an agent built around another (``critic:<checkpoint>``, ``search:<prior>``,
    ``plans:<checkpoint>``)."""
    return spec != SEARCH and wrapped_participant(spec) is not None


def beats_in_card(checkpoint: Path, opponent: str) -> bool:
    """Whether the checkpoint's JSON card records beating ``opponent`` (level differential, 95% CI above 0)."""
    _, low = card_level_diffs(read_card(checkpoint.with_suffix(".json")), checkpoint.name).get(opponent, (0.0, None))
    return low is not None and low > 0


def default_ai(checkpoint_dir: str | Path = "checkpoints", ruleset: str = "standard") -> str:
    """The spec of the default AI seat: the strongest agent measured that loads here and plays ``ruleset``.

    A shipped checkpoint only when its card shows it beating :data:`STRONGEST`;
    else the search over ExpertAgent, else the strongest rule bot available
    (刮风: the strongest bot with a 刮风 policy, as the search does not play it;
    a checkpoint trained with ``rules=guafeng`` takes a seat only by its path).
    """
    checkpoint = best_checkpoint(checkpoint_dir)
    if checkpoint is not None and beats_in_card(checkpoint, STRONGEST):
        try:
            if plays_rule_set(make_seat_agent(str(checkpoint), 0), ruleset):
                return str(checkpoint)
        except (ValueError, ImportError, OSError, RuntimeError) as error:
            warnings.warn(f"cannot load {checkpoint} ({error}); playing against {STRONGEST}", stacklevel=2)
    for bot in _BOT_PREFERENCE:
        try:
            if plays_rule_set(make_seat_agent(bot, 0), ruleset):
                return bot
        except (ValueError, ImportError):
            continue
    raise RuntimeError(f"no AI agent is available for the {ruleset} rules")


def resolve_seats(specs: Sequence[str | None], checkpoint_dir: str | Path = "checkpoints",
                  ruleset: str = "standard") -> list[str]:
    """Four concrete seat specs: ``ai`` / empty entries become :func:`default_ai` (of the rule set ``ruleset``)."""
    if len(specs) != 4:
        raise ValueError(f"a table has 4 seats, got {len(specs)}: {list(specs)}")
    resolved = []
    default = None
    for spec in specs:
        text = "" if spec is None else str(spec).strip()
        if text.lower() in ("", DEFAULT_AI, "default"):
            default = default or default_ai(checkpoint_dir, ruleset)
            text = default
        elif text.lower() == HUMAN:
            text = HUMAN
        resolved.append(text)
    return resolved


def build_agents(specs: Sequence[str], seed: int) -> list[Agent | None]:
    """One agent per seat (``None`` for a human), each seeded from ``seed`` and its seat."""
    return [None if spec == HUMAN else make_seat_agent(spec, seed * 10 + seat) for seat, spec in enumerate(specs)]


def orientation(seat: int, perspective: int) -> str:
    """Compass position of ``seat`` at a table seen from ``perspective`` (sitting South).

    Play goes seat -> seat+1, counter-clockwise: East plays after South.
    """
    return _ORIENTATION[(seat - perspective) % 4]


def display_name(spec: str) -> str:
    """Short name of a seat spec for the table (a checkpoint shows its file stem)."""
    if spec == HUMAN:
        return "human"
    wrapper, colon, inner = spec.partition(":")
    if colon and _wraps_another(spec):  # search:<prior>, critic:<checkpoint>, plans:<checkpoint>
        return f"{wrapper}:{display_name(inner)}"
    if "/" in spec or spec.endswith(".pt"):
        return Path(spec).stem
    return spec
