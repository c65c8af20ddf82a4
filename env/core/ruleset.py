"""The rule-set protocol: the questions every rule set answers, as OpenSpiel's Game.

A :class:`RuleSet` is built as ``RuleSetClass(options, layout)`` (its options
object, a dict of them or ``None`` for the defaults; a
:class:`~env.core.layout.DealLayout` or ``None`` for its own). It owns the
deal layout and answers

* the rules a hand asks while it runs: the trump context, legal leads and
  follows, the trick winner, the kitty, the score, the level advance, the next
  dealer and the match end;
* the factories of what is built on the rules: hands and matches
  (:meth:`new_hand`, :meth:`hand_from_deal`, :meth:`new_match`), a seat's view
  (:meth:`view_of`), the observation encoder (:meth:`encoder`), the card-step
  decisions with their masks (:meth:`decision`), the rewards of a hand
  (:meth:`hand_rewards`), the text of a table (:meth:`render`) and the string
  referee (:attr:`referee`, a module of :mod:`env.rules`'s functions).

Code above the rules (the PettingZoo environment, the referee, evaluation,
agents and user interfaces) asks these, never the rule set's name. Card sets
are count vectors over the 54 kinds (hands) or lists of kinds (plays). A rule
set registers itself by name in :mod:`env.core.registry`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

from env.core.actions import NUM_ACTIONS, action_name
from env.core.layout import DealLayout
from env.core.moves import MoveList


class RuleSet(ABC):
    """The rules of one way to play; a hand holds one and asks it (see the module docstring).

    Attributes:
        name: the rule set's registered name (:mod:`env.core.registry`), used for
            logs, configuration and messages only.
        options: the rule set's variant options (with ``to_dict``).
        layout: the deal layout.
    """

    name: str = ""
    options: Any
    layout: DealLayout
    referee: str = ""
    """The module answering :mod:`env.rules`'s string functions for this rule set."""

    @property
    def num_actions(self) -> int:
        """Size of the rule set's action table (:mod:`env.core.actions`): the shared table unless it has more bids."""
        return NUM_ACTIONS

    @property
    def file_tag(self) -> str:
        """How file names and saved settings name the rule set (evaluation deal files, run settings): its
        name, or ``""`` for a rule set whose files were written before rule sets had names."""
        return self.name

    # ---------------------------------------------------------------- levels and trump
    @property
    @abstractmethod
    def levels(self) -> tuple[str, ...]:
        """The level ranks a team climbs, lowest first; teams start at the first."""

    @abstractmethod
    def trump_context(self, level: str | int, trump: str | int | None, jokers_only: bool = False) -> Any:
        """Effective suits and order of the cards for a level rank and trump suit (or ``None``)."""

    # ---------------------------------------------------------------- play
    @abstractmethod
    def lead_error(self, ctx: Any, hand: Sequence[int], play: Sequence[int]) -> str | None:
        """Why a lead attempt is illegal, or ``None``."""

    @abstractmethod
    def follow_error(self, ctx: Any, hand: Sequence[int], play: Sequence[int], lead: Any) -> str | None:
        """Why a follow to ``lead`` is illegal, or ``None``."""

    @abstractmethod
    def analyse_lead(self, ctx: Any, play: Sequence[int]) -> Any:
        """The lead as the followers and the trick winner see it."""

    @abstractmethod
    def winning_play(self, ctx: Any, lead: Any, follows: Sequence[Sequence[int]]) -> int:
        """Index (0 = the lead) of the play that wins the trick."""

    @abstractmethod
    def legal_leads(self, ctx: Any, hand: Sequence[int], max_plays: int | None = None) -> MoveList:
        """Every legal lead attempt from ``hand`` (the first ``max_plays``)."""

    @abstractmethod
    def legal_follows(self, ctx: Any, hand: Sequence[int], lead: Any, max_plays: int | None = None) -> MoveList:
        """Every legal follow to ``lead`` from ``hand`` (the first ``max_plays``)."""

    # ---------------------------------------------------------------- scoring and the match
    @abstractmethod
    def kitty_points(self, kitty: Sequence[int]) -> int:
        """The points of the buried kitty."""

    @abstractmethod
    def kitty_multiplier(self, last_lead: Any) -> int:
        """How many times the kitty counts for the defenders who take the last trick."""

    @abstractmethod
    def score(self, defender_points: int) -> tuple[str, int]:
        """``("dealers", levels)`` or ``("defenders", levels)`` for the defenders' points."""

    @abstractmethod
    def advance_level(self, level: str, steps: int) -> str:
        """The level ``steps`` places up from ``level``."""

    @abstractmethod
    def next_dealer(self, dealer: int, dealers_held: bool) -> int:
        """The dealer of the next hand."""

    # ---------------------------------------------------------------- what is built on the rules
    @property
    @abstractmethod
    def hand_class(self) -> type:
        """The class whose objects play one hand of these rules."""

    @property
    @abstractmethod
    def match_class(self) -> type:
        """The class that chains hands of these rules into a match."""

    def new_hand(self, seed: int, *, dealer: int | None = None, team_levels: tuple[str, str] | None = None,
                 **setup: Any) -> Any:
        """A hand dealt from a seeded shuffle: ``dealer=None`` is a match's first hand; ``team_levels``
        both teams' levels (default: both at the first level). ``setup``: the hand class's own keywords."""
        return self.hand_class.new(seed, self, dealer=dealer, team_levels=team_levels, **setup)

    @abstractmethod
    def hand_from_deal(self, deal: dict[str, Any]) -> Any:
        """A hand from a fixed deal (``hands``, ``kitty``, ``dealer``, ``trump`` and the rule set's own
        keys), as the environment's ``deal`` option gives it."""

    def new_match(self, seed: int, **kwargs: Any) -> Any:
        """A match of these rules: ``match_class(seed, self, **kwargs)`` (``max_hands`` where it has one)."""
        return self.match_class(seed, self, **kwargs)

    @abstractmethod
    def view_of(self, hand: Any, seat: int) -> Any:
        """What ``seat`` may see of ``hand`` (a :class:`~env.core.view.SeatView`)."""

    @abstractmethod
    def encoder(self, layout: str = "canonical", history_len: int | None = None) -> Any:
        """The observation encoder (``encode(source, seat, picked)``, ``history(source, seat)``,
        ``history_shape``, ``size``) for a slot layout and history length (``None``: every trick)."""

    @abstractmethod
    def observation_size(self, layout: str = "canonical") -> int:
        """Length of the flat observation vector for a slot layout."""

    @abstractmethod
    def decision(self, hand: Any, seat: int) -> Any:
        """The card-step decision ``seat`` is at in ``hand`` (:class:`~env.core.decisions.Decision`)."""

    @abstractmethod
    def hand_rewards(self, hand: Any, scheme: str) -> tuple[float, float]:
        """The two teams' rewards for a finished hand under a scheme of :data:`env.core.rewards.REWARD_SCHEMES`."""

    @abstractmethod
    def render(self, hand: Any) -> str:
        """The table as text: the hand's phase, every seat's cards, the trick."""

    def encoding_source(self, hand: Any, seat: int, decision: Any | None) -> Any:
        """What the encoder reads for ``seat``: the hand itself (an encoder that reads a seat's view
        takes the acting seat's ``decision``'s, or builds one)."""
        return hand

    def action_name(self, action: int) -> str:
        """Readable name of an action of the table (:func:`env.core.actions.action_name`)."""
        return action_name(action)

    def describe(self) -> dict[str, Any]:
        """The rule set as plain data: name, options, layout."""
        return {"name": self.name, "options": self.options.to_dict(), "layout": self.layout.to_dict()}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.options!r}, {self.layout!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuleSet) and type(other) is type(self) and \
            (self.options, self.layout) == (other.options, other.layout)

    def __hash__(self) -> int:
        return hash((type(self), self.options, self.layout))
