"""The learner's questions to a rule set: its candidates, their feature rows and a decision's phase.

The Q-network scores a decision's candidates (the ``card`` action mode: card
steps over the action table; ``play``: whole plays, with bids and card-step
decisions such as the burial kept as steps). What a candidate is and how its
row reads depend on the rule set, so each rule set's learner answers through a
:class:`LearnerRules` registered by the rule set's name in :data:`LEARNERS`
(imported on first use): the standard game's :class:`agents.dmc.plays.StandardLearner`,
刮风's :class:`agents.dmc.guafeng_plays.GuafengLearner`. The functions below ask
the learner of a view's (or a run's) rule set; the rest of :mod:`agents.dmc`
never asks which rule set it is.

A ``card``-mode row is a card's slot in the observation's layout (so the
network sees "the second-best trump", not "SA"), its points and whether it is
trump; STOP, PASS and the bids (ten, or the rule set's ``num_actions`` less the
cards and STOP and PASS) are one-hots (:func:`agents.dmc.candidates.card_action_rows`).
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any

import numpy as np

from agents.dmc.candidates import special_actions
from env.core.moves import MoveList
from env.core.registry import default_ruleset, ruleset_from_config


class LearnerRules(ABC):
    """One rule set's candidates and features for the learner."""

    @abstractmethod
    def card_slots(self, layout: str) -> int:
        """Number of card slots of the rule set's observation in a slot layout."""

    @abstractmethod
    def play_feature_size(self, layout: str, ruleset: Any = None) -> int:
        """Length of one candidate's row in the ``play`` action mode under ``ruleset`` (its options may
        size the row: the standard game's decks)."""

    @abstractmethod
    def card_step_table(self, source: Any, layout: str) -> np.ndarray:
        """The ``card``-mode rows of the rule set's actions at the decision of ``source`` (what the rule set's
        encoder reads: the hand or the seat's view), laid out as the observation is."""

    @abstractmethod
    def decision_phase(self, phase: Any) -> int:
        """The network's phase input of a decision in ``phase``: 0 bidding-like, 1 card steps, 2 play."""

    @abstractmethod
    def decision_candidates(self, view: Any, layout: str, mask: np.ndarray | None = None,
                            follows: MoveList | None = None) -> Any:
        """The ``play``-mode candidates of the seat's decision (:class:`agents.dmc.candidates.Candidates`);
        a card step needs the decision's ``mask``; ``follows``: the legal follows when already listed."""

    @abstractmethod
    def play_rows(self, view: Any, plays: Sequence[tuple[int, ...]], layout: str, tracker: Any = None) -> np.ndarray:
        """``play``-mode rows of whole plays at the seat's lead or follow."""

    @abstractmethod
    def forced_step(self, env: Any) -> int | None:
        """The action of a card-step decision of ``env`` (the environment) with one choice that self-play
        takes at once without a sample (a forced follow is found by the tables themselves), or ``None``."""

    @abstractmethod
    def step_plan(self, decision: Any) -> list[int]:
        """A whole decision taken card step by card step (a burial; 刮风's fix or 回牌) as its steps."""

    has_renamings = False
    """Whether :meth:`renamed_inputs` may give renamings (a ``relabel`` agent of the rule set needs some)."""

    def renamed_inputs(self, view: Any, layout: str, limit: int, obs: np.ndarray, history: np.ndarray,
                       rows: np.ndarray, planes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
        """The network's inputs of a decision (its observation, trick history and candidate rows, whose first
        ``planes`` slot planes hold the cards) under up to ``limit`` renamings of the position that leave its
        value and its candidates' values unchanged, the position itself first: observations and histories
        stacked, rows concatenated renaming by renaming. ``None`` (the default) where the rule set names
        no such renamings at this decision."""
        return None

    def renamed_encoding(self, ruleset: Any, layout: str, obs: np.ndarray, history: np.ndarray, rows: np.ndarray,
                         planes: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """A stored decision's inputs (as :meth:`renamed_inputs` takes them, without the view: what a label
        keeps) under one of its renamings drawn by ``rng``; only asked where :attr:`has_renamings`."""
        raise NotImplementedError(f"{type(self).__name__} names no renamings of a decision")

    def network_policy(self, agent: Any) -> Any:
        """The policy a :class:`~agents.dmc.agent.DMCAgent` trained on this rule set plays it with
        (default: the standard game's decisions through the agent's own methods)."""
        from agents.base import StandardPolicy

        return StandardPolicy(agent)


LEARNERS: dict[str, str] = {
    "standard": "agents.dmc.plays:StandardLearner",
    "guafeng": "agents.dmc.guafeng_plays:GuafengLearner",
}
"""The learner of each rule set, as ``"module:Class"``; a rule set's package registers its own."""
_LOADED: dict[str, LearnerRules] = {}


def register_learner(ruleset: str, target: str | LearnerRules) -> None:
    """Register the learner of the rule set called ``ruleset`` (an object or its ``"module:Class"``)."""
    if isinstance(target, LearnerRules):
        _LOADED[ruleset] = target
        LEARNERS[ruleset] = f"{type(target).__module__}:{type(target).__qualname__}"
    else:
        LEARNERS[ruleset] = target
        _LOADED.pop(ruleset, None)


def learner_rules(ruleset: Any) -> LearnerRules:
    """The learner of a rule set (``None``: the default rule set's); ``ValueError`` when it has none."""
    name = (ruleset or default_ruleset()).name
    if name not in _LOADED:
        if name not in LEARNERS:
            raise ValueError(f"the learner has no candidates for the {name!r} rule set (learners: "
                             f"{', '.join(sorted(LEARNERS))}; see agents.dmc.learner_rules.register_learner)")
        module, _, cls = LEARNERS[name].partition(":")
        _LOADED[name] = getattr(importlib.import_module(module), cls)()
    return _LOADED[name]


def action_feature_size(layout: str, ruleset: Any = None) -> int:
    """Length of one action's feature row in the ``card`` action mode."""
    rules = ruleset_from_config(ruleset)
    return learner_rules(rules).card_slots(layout) + special_actions(rules.num_actions) + 2


def feature_size(layout: str, action_mode: str, ruleset: Any = None) -> int:
    """Length of one candidate's feature row: card steps (``card``) or whole plays (``play``)."""
    if action_mode == "play":
        return learner_rules(ruleset).play_feature_size(layout, ruleset)
    return action_feature_size(layout, ruleset)


def card_step_table(source: Any, layout: str) -> np.ndarray:
    """The ``card``-mode rows of the rule set's actions at ``source``'s decision (a hand or a seat's view)."""
    return learner_rules(source.ruleset).card_step_table(source, layout)


def decision_phase(ruleset: Any, phase: Any) -> int:
    """The network's phase input (0, 1, 2) of a decision in ``phase`` under ``ruleset``."""
    return learner_rules(ruleset).decision_phase(phase)


def decision_candidates(view: Any, layout: str, mask: np.ndarray | None = None,
                        follows: MoveList | None = None) -> Any:
    """The ``play``-mode candidates of the seat's decision under the view's rule set."""
    return learner_rules(view.ruleset).decision_candidates(view, layout, mask, follows)


def play_rows(view: Any, plays: Sequence[tuple[int, ...]], layout: str, tracker: Any = None) -> np.ndarray:
    """``play``-mode rows of whole plays at the seat's lead or follow, under the view's rule set."""
    return learner_rules(view.ruleset).play_rows(view, plays, layout, tracker)
