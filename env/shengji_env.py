"""Shengji (升级, Tractor, 80 points) as a PettingZoo AEC environment: ``shengji_v0``.

Four agents ``player_0``..``player_3`` in seat order; teams {0, 2} and {1, 3}.
One episode is one hand (default) or a whole match (``episode="match"``).

Actions: ``Discrete(66)``, one card per step (table in :mod:`env.standard.actions`):
0..53 pick a card kind, 54 STOP (end a lead), 55 PASS, 56..65 bids (single
S/H/C/D, pair S/H/C/D, LJ pair, BJ pair). A leader picks cards of one
effective suit then STOP; a follower picks as many cards as were led; the
dealer buries the kitty with one pick per kitty card (8 in the standard
game). The same agent acts until its play is complete. ``action_mask``
allows an action iff a legal completion exists; an action outside it raises
:class:`~env.core.errors.IllegalActionError` and changes nothing.
Whole-play view (what the learner uses): ``env.unwrapped.legal_plays()`` lists
the acting seat's legal leads or follows as whole plays and
``env.unwrapped.play(cards)`` applies one (or a whole kitty burial), with the
same result as its card steps; ``env.unwrapped.encode(agent)`` is ``observe``
without the mask (a card decision's mask is only built when asked for).

Observation: ``Dict(observation=Box(OBS,), action_mask=Box(66, int8),
history=Box(K, ROW))`` from the acting seat's side (relative seats 0 = self,
1 = next, 2 = partner, 3 = previous):

=================  ==========================================================
``observation``    12 card sets x 2 planes (>=1 copy, 2 copies) x slots:
                   own hand, picked in the current step, played by each seat,
                   current trick by each seat, unseen, own buried kitty;
                   then scalars: phase, leading, picks left, lead suit and
                   format, current trick winner and points, known voids
                   (seat x suit), trump suit, level, both teams' levels,
                   dealer, bid state, defender points, trick number, hand
                   sizes, deal progress (:mod:`env.standard.encoding`).
``action_mask``    1 where the action is legal now.
``history``        the last K tricks (default: all, 25 in the standard game), oldest first: cards
                   each relative seat played, leader, winner, points.
=================  ==========================================================

Slots follow the canonical layout (trump block then plain suits, strongest
first; 73 slots) or ``layout="raw"`` (54 kinds). OBS is 1871 canonical, 1415 raw.

With ``d`` decks (RULES.md 11, rule option ``decks``) each card set has ``d``
planes (>= 1 .. >= d copies), the bid strength a place per step of the ladder,
the action table ``ruleset.num_actions`` actions (66, 72 for three decks, 78 for
four) and the history as many tricks as the hand has cards: OBS is 995 (one
deck), 2750 (three), 3629 (four) canonical.

Rewards: zero-sum between teams, paid when the hand ends (``episode="match"``:
when each hand ends). ``reward="level"`` (default): the team's signed level
change (dealers holding +1..+3; defenders taking over +1.. with the takeover
counted); ``"win_loss"``: +1/-1; ``"level_points"``: the level change plus half the
points margin; ``"points"``: defenders' margin over the
threshold divided by the threshold.

Options (constructor or ``reset(options=...)``): ``rules`` (a
:class:`~env.core.ruleset.RuleSet`, or the standard game's RuleOptions or a dict of
them; the rule set's layout sets the burial length and the history's default
length), ``episode``, ``reward``, ``deal`` (fixed deal: dict with ``hands``,
``kitty``, ``level``, ``dealer``, ``trump``, optional ``buried``), ``start``
(``"first"``: a match's first hand, bidding decides the dealer; ``"random"``:
a hand from mid-match, random dealer and team levels),
``layout``, ``history_len``, ``render_mode`` (``"ansi"`` returns the table,
``"human"`` prints it).

Variants of the deal (RULES.md 9, rule options ``chaodipi`` and ``tribute``):
a 炒地皮 turn is PASS or a bid action (only the bids that are strictly stronger;
the standing bidder only reinforces), and a bid is followed by the bidder's
burial (card picks as the dealer's); a tribute card and a returned card are one
card action each, masked to the giver's highest cards by the tribute order and
to the dealer's cards that are not tribute cards. With either option on, the
observation grows by a block (:func:`env.standard.encoding.observation_size` takes the
rule set): the tribute cards, the returned cards the seat knows, the variant
phase, who buried last, and the 炒地皮 round's passes and bids. With both off it
is the standard observation, unchanged.

刮风 (``rules="guafeng"``, a :class:`~env.guafeng.ruleset.GuafengRules`, or the
``conf/rules/guafeng.yaml`` dict with ``ruleset: guafeng``; RULES-guafeng.md):
the same action table, composed by :class:`env.guafeng.actions.GuafengComposer`.
A fix is PASS, or its shown jokers and base cards then STOP (the cards of some
legal fix; ``LJ LJ BJ BJ`` shows the kind picked first); a 回牌 is
``give_back_count`` picks; the burial 4 picks; the first lead one card; a later
lead one combination then STOP (no throws); a follow the lead's length. The
observation is :mod:`env.guafeng.encoding`'s (2831 canonical, 1981 raw; 79
slots), read from the seat's :class:`~env.guafeng.view.GuafengView`: the trump
mode only once the seat knows it, no other seat's base. Rewards
(:func:`env.guafeng.rewards.hand_rewards`): ``level`` is the levels the hand's
winner climbs (+n / -n; a takeover at 80..115 is 0); ``points`` is
``(P - 80) / 80`` for the defenders. ``episode="match"`` plays a
:class:`~env.guafeng.match.GuafengMatch` of ``match_hands`` hands (terminated,
also on a draw). ``start="first"`` is a 抢台 hand, ``"random"`` a random
dealer seat and team levels; ``deal`` takes ``hands``, ``kitty``, ``dealer``,
``trump`` and optional ``team_levels``, ``kitty_taker``, ``buried``.
``legal_plays()`` / ``play()`` work for leads and follows (``play()`` also for a
回牌 or a burial); ``apply_decision()`` also takes a fix or ``None`` (pass).

The environment knows no rule set: it asks the hand's rule set
(:class:`~env.core.ruleset.RuleSet`) for the hand, the seat's decision and its
mask (:class:`~env.core.decisions.Decision`), the encoder, the rewards and the
text of the table, so a rule set registered in :mod:`env.core.registry` plays
here without a change to this module.

Version history: v0 (2026-11) first release; v0.1 (2026-11) the RULES.md 9
options 炒地皮 and 进贡 (standard game unchanged); v0.2 (2026-11) the 刮风 rule
set (standard game unchanged); v0.3 (2026-11) ``encode()``, observations and
masks unchanged; v0.4 (2026-12) one environment over the rule-set protocol
(``env.decision`` replaces ``env.composer``; observations, masks and rewards
unchanged).
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from env.core.actions import no_actions
from env.core.cards import CARD_NAMES, parse_cards
from env.core.decisions import Decision
from env.core.errors import IllegalActionError
from env.core.moves import MoveList
from env.core.registry import ruleset_from_config
from env.core.rewards import REWARD_SCHEMES
from env.core.ruleset import RuleSet

AGENTS = [f"player_{i}" for i in range(4)]
_OPTION_KEYS = ("rules", "episode", "reward", "deal", "start", "layout", "history_len")
STARTS = ("first", "random")


def env(**kwargs: Any) -> AECEnv:
    """The wrapped environment (bounds and order checks, as PettingZoo's classic envs)."""
    environment = raw_env(**kwargs)
    environment = wrappers.AssertOutOfBoundsWrapper(environment)
    return wrappers.OrderEnforcingWrapper(environment)


class raw_env(AECEnv):  # noqa: N801 - PettingZoo's naming convention
    """The unwrapped AEC environment; see the module docstring."""

    metadata = {"render_modes": ["human", "ansi"], "name": "shengji_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, render_mode: str | None = None, rules: RuleSet | Any | dict | str | None = None,
                 episode: str = "hand", reward: str = "level", deal: dict | None = None, start: str = "first",
                 layout: str = "canonical", history_len: int | None = None, max_match_hands: int = 200):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.max_match_hands = max_match_hands
        self._configure(rules=rules, episode=episode, reward=reward, deal=deal, start=start, layout=layout,
                        history_len=history_len)
        self.possible_agents = list(AGENTS)
        self.agents: list[str] = []
        self._seed_rng = random.Random()
        self.hand: Any = None
        self.match: Any = None
        self.decision: Decision | None = None
        self._mask = no_actions(self.num_actions)

    def _configure(self, *, rules, episode, reward, deal, start, layout, history_len) -> None:
        self.ruleset = ruleset_from_config(rules)
        self.num_actions = self.ruleset.num_actions
        if self.ruleset.layout.players != len(AGENTS):
            raise ValueError(f"the environment seats {len(AGENTS)} players, the rule set "
                             f"{self.ruleset.name!r} deals to {self.ruleset.layout.players}")
        if episode not in ("hand", "match"):
            raise ValueError(f"episode must be 'hand' or 'match', got {episode!r}")
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {reward!r}")
        if deal is not None and episode == "match":
            raise ValueError("a fixed deal plays one hand: use episode='hand'")
        if start not in STARTS:
            raise ValueError(f"start must be one of {STARTS}, got {start!r}")
        self.rules = self.ruleset.options
        self.episode, self.reward_scheme, self.deal, self.start = episode, reward, deal, start
        self._history_len = history_len  # None: all the tricks of the rule set's layout
        self.encoder = self.ruleset.encoder(layout, history_len)
        size = self.ruleset.observation_size(layout)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 2.0, (size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (self.num_actions,), dtype=np.int8),
            "history": spaces.Box(0.0, 2.0, self.encoder.history_shape, dtype=np.float32),
        })
        self._action_space = spaces.Discrete(self.num_actions)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._observation_space

    def action_space(self, agent: str) -> spaces.Space:
        return self._action_space

    # ------------------------------------------------------------------ episode control
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if options:
            unknown = sorted(set(options) - set(_OPTION_KEYS))
            if unknown:
                # PettingZoo's api_test passes arbitrary keys, so they are reported, not refused.
                warnings.warn(f"ignoring unknown reset option(s) {unknown}; known: {list(_OPTION_KEYS)}",
                              stacklevel=2)
            options = {k: v for k, v in options.items() if k in _OPTION_KEYS}
            current = {"rules": self.ruleset, "episode": self.episode, "reward": self.reward_scheme,
                       "deal": self.deal, "start": self.start, "layout": self.encoder.layout,
                       "history_len": self._history_len}
            current.update(options)
            self._configure(**current)
        if seed is not None:
            self._seed_rng.seed(seed)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        if self.episode == "match":
            self.match = self.ruleset.new_match(self._seed_rng.randrange(2**31), max_hands=self.max_match_hands)
            self.hand = self.match.new_hand()
        else:
            self.match = None
            self.hand = self._new_hand()
        self._begin_decision()

    def _new_hand(self) -> Any:
        """A first hand, one from mid-match (``start="random"``: random dealer and team levels) or the
        fixed ``deal``."""
        ruleset, rng = self.ruleset, self._seed_rng
        if self.deal is not None:
            return ruleset.hand_from_deal(dict(self.deal))
        if self.start == "random":
            team_levels = (rng.choice(ruleset.levels), rng.choice(ruleset.levels))
            dealer = rng.randrange(ruleset.layout.players)
            return ruleset.new_hand(rng.randrange(2**31), dealer=dealer, team_levels=team_levels)
        return ruleset.new_hand(rng.randrange(2**31))

    def _begin_decision(self) -> None:
        """Set up the decision of whoever acts next; its mask is built when first asked for."""
        seat = self.hand.current_player
        if seat is None:
            self.decision = None
            self._mask = no_actions(self.num_actions)
            return
        self.decision = self.ruleset.decision(self.hand, seat)
        self._mask = None  # from the decision when first asked (see _legal_mask)
        self.agent_selection = AGENTS[seat]

    # ------------------------------------------------------------------ stepping
    def action_mask(self) -> np.ndarray:
        """The acting agent's current mask (a copy)."""
        return self._legal_mask().copy()

    def _legal_mask(self) -> np.ndarray:
        """The current mask, built from the decision on first use: an agent that answers in whole plays
        (:meth:`play`, :meth:`encode`) never asks for it, and it is 3% of self-play."""
        if self._mask is None:
            self._mask = self.decision.mask()
        return self._mask

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = self._legal_mask()
        if action is None or not 0 <= int(action) < self.num_actions or not mask[int(action)]:
            legal = ", ".join(self.ruleset.action_name(a) for a in np.flatnonzero(mask))
            shown = action if action is None or not 0 <= int(action) < self.num_actions else \
                self.ruleset.action_name(int(action))
            raise IllegalActionError(f"{agent} cannot take action {shown} now; legal: {legal}")
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if not self.decision.step(int(action)):
            self._mask = None
            return
        if self.hand.finished:
            self._end_hand()
        else:
            self._begin_decision()

    def _end_hand(self) -> None:
        hand = self.hand
        team_rewards = self.ruleset.hand_rewards(hand, self.reward_scheme)
        for seat, agent in enumerate(AGENTS):
            self.rewards[agent] = team_rewards[seat % 2]
        if self.match is not None:
            self.match.record(hand)
        for agent in self.agents:
            self.infos[agent] = {"hand_result": hand.result, "dealer": hand.dealer}
        if self.match is None or self.match.finished:
            truncated = self.match is not None and self.match.truncated
            for agent in self.agents:
                self.terminations[agent] = not truncated
                self.truncations[agent] = truncated
            self.decision = None
            self._mask = no_actions(self.num_actions)
        else:
            self.hand = self.match.new_hand()
            self._begin_decision()
        self._accumulate_rewards()

    def play(self, cards) -> None:
        """Apply a whole play (a lead, a follow, a burial; in 刮风 also a 回牌) of the acting seat.

        The whole play is checked first; an illegal one raises and changes nothing.
        """
        kinds = parse_cards(cards)
        if self.decision is None or self.decision.picked or not self.decision.takes_plays:
            raise IllegalActionError("play() needs a fresh card decision (not bidding, nothing picked yet)")
        self.decision.play(kinds)
        # Same result as stepping the cards one by one (the masks are exact, so every prefix of a
        # legal play is allowed), without building a mask per card: the learner plays whole plays.
        self._after_whole_decision()

    def _after_whole_decision(self) -> None:
        self._cumulative_rewards[self.agent_selection] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if self.hand.finished:
            self._end_hand()
        else:
            self._begin_decision()

    def legal_plays(self, max_plays: int | None = None) -> MoveList:
        """The acting seat's legal leads or follows as whole plays (the whole-play view, with :meth:`play`).

        Sorted tuples of kinds; ``max_plays`` bounds the list (``truncated`` says
        whether it was cut). Learners choose their own candidates among them
        (e.g. :func:`agents.dmc.plays.learner_plays`).
        """
        if not self.hand.in_play:
            raise IllegalActionError(f"no lead or follow to make in phase {self.hand.phase.value}")
        return self.view(self.hand.current_player).legal_plays(max_plays)

    def apply_decision(self, decision: Any) -> None:
        """Apply an agent's whole decision for the acting seat: one action (a bid or ``None`` to pass,
        one card for a tribute or a returned card), cards (a lead, a follow, a burial, a 回牌), or a
        rule set's own kind of decision (a 刮风 fix or ``None``)."""
        current = self.decision
        if current is None:
            raise IllegalActionError("no decision to take: the episode is over")
        action = current.single_action(decision)
        if action is not None:
            self.step(action)
        elif current.takes_plays:
            self.play(list(decision))
        else:
            if current.picked:
                raise IllegalActionError("apply_decision() needs a fresh decision (nothing picked yet)")
            current.apply(decision)  # checked first: an illegal decision changes nothing
            self._after_whole_decision()

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        observation, history = self.encode(agent)
        mask = self._legal_mask().copy() if self._acting(agent) else no_actions(self.num_actions)
        return {"observation": observation, "action_mask": mask, "history": history}

    def encode(self, agent: str) -> tuple[np.ndarray, np.ndarray]:
        """``observe(agent)`` without the action mask: ``(observation, history)``. For agents that
        choose among whole plays (:meth:`legal_plays`) and so have no use for the card-step mask."""
        seat = AGENTS.index(agent)
        acting = self._acting(agent) and self.decision is not None
        picked = self.decision.picked if acting else None
        source = self.ruleset.encoding_source(self.hand, seat, self.decision if acting else None)
        return self.encoder.encode(source, seat, picked), self.encoder.history(source, seat)

    def _acting(self, agent: str) -> bool:
        return agent == self.agent_selection and not (self.terminations.get(agent) or self.truncations.get(agent))

    def view(self, agent: str | int) -> Any:
        """What an agent (name or seat) may see: its rule set's view, for agents that think in whole plays."""
        seat = agent if isinstance(agent, int) else AGENTS.index(agent)
        return self.ruleset.view_of(self.hand, seat)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self.ruleset.render(self.hand)
        if self.decision is not None and self.decision.picked:
            text += "\n  picked: " + " ".join(CARD_NAMES[k] for k in self.decision.picked)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
