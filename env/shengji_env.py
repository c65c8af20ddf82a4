"""Shengji (升级, Tractor, 80 points) as a PettingZoo AEC environment: ``shengji_v0``.

Four agents ``player_0``..``player_3`` in seat order; teams {0, 2} and {1, 3}.
One episode is one hand (default) or a whole match (``episode="match"``).

Actions: ``Discrete(66)``, one card per step (table in :mod:`env.actions`):
0..53 pick a card kind, 54 STOP (end a lead), 55 PASS, 56..65 bids (single
S/H/C/D, pair S/H/C/D, LJ pair, BJ pair). A leader picks cards of one
effective suit then STOP; a follower picks as many cards as were led; the
dealer buries the kitty with one pick per kitty card (8 in the standard
game). The same agent acts until its play is complete. ``action_mask``
allows an action iff a legal completion exists; an action outside it raises
:class:`~env.errors.IllegalActionError` and changes nothing.
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
                   sizes, deal progress (:mod:`env.encoding`).
``action_mask``    1 where the action is legal now.
``history``        the last K tricks (default: all, 25 in the standard game), oldest first: cards
                   each relative seat played, leader, winner, points.
=================  ==========================================================

Slots follow the canonical layout (trump block then plain suits, strongest
first; 73 slots) or ``layout="raw"`` (54 kinds). OBS is 1871 canonical, 1415 raw.

Rewards: zero-sum between teams, paid when the hand ends (``episode="match"``:
when each hand ends). ``reward="level"`` (default): the team's signed level
change (dealers holding +1..+3; defenders taking over +1.. with the takeover
counted); ``"win_loss"``: +1/-1; ``"level_points"``: the level change plus half the
points margin; ``"points"``: defenders' margin over the
threshold divided by the threshold.

Options (constructor or ``reset(options=...)``): ``rules`` (a
:class:`~env.ruleset.RuleSet`, or the standard game's RuleOptions or a dict of
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
observation grows by a block (:func:`env.encoding.observation_size` takes the
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
(:func:`env.rewards.guafeng_hand_rewards`): ``level`` is the levels the hand's
winner climbs (+n / -n; a takeover at 80..115 is 0); ``points`` is
``(P - 80) / 80`` for the defenders. ``episode="match"`` plays a
:class:`~env.guafeng.match.GuafengMatch` of ``match_hands`` hands (terminated,
also on a draw). ``start="first"`` is a 抢台 hand, ``"random"`` a random
dealer seat and team levels; ``deal`` takes ``hands``, ``kitty``, ``dealer``,
``trump`` and optional ``team_levels``, ``kitty_taker``, ``buried``.
``legal_plays()`` / ``play()`` work for leads and follows (``play()`` also for a
回牌 or a burial); ``apply_decision()`` also takes a fix or ``None`` (pass).

Version history: v0 (2026-11) first release; v0.1 (2026-11) the RULES.md 9
options 炒地皮 and 进贡 (standard game unchanged); v0.2 (2026-11) the 刮风 rule
set (standard game unchanged); v0.3 (2026-11) ``encode()``, observations and
masks unchanged.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from env.actions import (
    NUM_ACTIONS,
    PASS,
    STOP,
    PlayComposer,
    action_bid,
    action_name,
    bid_action,
    bid_mask,
    card_mask,
    composer_for,
)
from env.bidding import Bid
from env.cards import format_cards, parse_cards
from env.encoding import make_encoder, observation_size
from env.errors import IllegalActionError
from env.game import Hand, Phase
from env.guafeng.actions import GuafengComposer
from env.guafeng.hand import GuafengHand
from env.guafeng.view import guafeng_view_of
from env.match import Match
from env.moves import MoveList
from env.render import render_table
from env.rewards import REWARD_SCHEMES, guafeng_hand_rewards, hand_rewards
from env.ruleset import RuleSet, ruleset_from_config
from env.variants import RuleOptions
from env.view import PlayerView, view_of

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

    def __init__(self, render_mode: str | None = None, rules: RuleSet | RuleOptions | dict | str | None = None,
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
        self.hand: Hand | None = None
        self.match: Match | None = None
        self.composer: PlayComposer | GuafengComposer | None = None
        self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)

    def _configure(self, *, rules, episode, reward, deal, start, layout, history_len) -> None:
        if not isinstance(rules, RuleOptions | RuleSet | dict | str) and rules is not None:
            raise ValueError(f"rules must be a RuleSet, RuleOptions, a dict or a rule set's name, "
                             f"got {type(rules).__name__}")
        self.ruleset = ruleset_from_config(rules)
        self.guafeng = self.ruleset.name == "guafeng"
        rules = self.ruleset.options
        if episode not in ("hand", "match"):
            raise ValueError(f"episode must be 'hand' or 'match', got {episode!r}")
        if reward not in REWARD_SCHEMES:
            raise ValueError(f"reward must be one of {REWARD_SCHEMES}, got {reward!r}")
        if deal is not None and episode == "match":
            raise ValueError("a fixed deal plays one hand: use episode='hand'")
        if start not in STARTS:
            raise ValueError(f"start must be one of {STARTS}, got {start!r}")
        self.rules, self.episode, self.reward_scheme, self.deal, self.start = rules, episode, reward, deal, start
        self._history_len = history_len  # None: all the tricks of the rule set's layout
        self.encoder = make_encoder(layout, history_len, self.ruleset)
        size = observation_size(layout, self.ruleset)
        self._observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, 2.0, (size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), dtype=np.int8),
            "history": spaces.Box(0.0, 2.0, self.encoder.history_shape, dtype=np.float32),
        })
        self._action_space = spaces.Discrete(NUM_ACTIONS)

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
        if self.episode == "match" and self.guafeng:
            self.match = self.ruleset.new_match(self._seed_rng.randrange(2**31))
            self.hand = self.match.new_hand()
        elif self.episode == "match":
            self.match = Match(self._seed_rng.randrange(2**31), self.ruleset, max_hands=self.max_match_hands)
            self.hand = self.match.new_hand()
        else:
            self.match = None
            self.hand = self._new_hand()
        self._begin_decision()

    def _new_hand(self) -> Hand | GuafengHand:
        if self.guafeng:
            return self._new_guafeng_hand()
        if self.deal is None and self.start == "random":
            # A hand from the middle of a match: random dealer and team levels.
            levels = self.ruleset.levels
            team_levels = (self._seed_rng.choice(levels), self._seed_rng.choice(levels))
            dealer = self._seed_rng.randrange(self.ruleset.layout.players)
            return Hand.new(self._seed_rng.randrange(2**31), self.ruleset, level=team_levels[dealer % 2],
                            dealer=dealer, team_levels=team_levels)
        if self.deal is None:
            return Hand.new(self._seed_rng.randrange(2**31), self.ruleset)
        deal = dict(self.deal)
        return Hand.from_deal(deal["hands"], deal["kitty"], level=deal["level"], dealer=deal["dealer"],
                              trump=deal.get("trump"), options=self.ruleset, buried=deal.get("buried", False))

    def _new_guafeng_hand(self) -> GuafengHand:
        """A 刮风 hand: a first hand (抢台), one from mid-match (``start="random"``) or a fixed deal
        (``deal``: ``hands``, ``kitty``, ``dealer``, ``trump``, optional ``team_levels``,
        ``kitty_taker``, ``buried``)."""
        rules, rng = self.ruleset, self._seed_rng
        if self.deal is not None:
            deal = dict(self.deal)
            levels = deal.get("team_levels")
            return GuafengHand.from_deal(deal["hands"], deal["kitty"], dealer=deal["dealer"], trump=deal.get("trump"),
                                         rules=rules, team_levels=tuple(levels) if levels else None,
                                         kitty_taker=deal.get("kitty_taker"), buried=deal.get("buried", False))
        if self.start == "random":
            team_levels = (rng.choice(rules.levels), rng.choice(rules.levels))
            dealer = rng.randrange(rules.layout.players)
            return rules.new_hand(rng.randrange(2**31), dealer=dealer, team_levels=team_levels)
        return rules.new_hand(rng.randrange(2**31))

    def _begin_decision(self) -> None:
        """Set up the composer and mask for whoever acts next."""
        hand = self.hand
        seat = hand.current_player
        if self.guafeng:
            self.composer = GuafengComposer(guafeng_view_of(hand, seat)) if seat is not None else None
            self._mask = self.composer.mask() if seat is not None else np.zeros(NUM_ACTIONS, dtype=np.int8)
        elif hand.phase.is_bidding:
            self.composer = None
            self._mask = bid_mask(hand.bid_options(seat))
        elif hand.phase == Phase.REBID:
            self.composer = None
            self._mask = bid_mask(hand.rebid_options(seat))
        elif hand.phase == Phase.TRIBUTE:
            self.composer = None
            self._mask = card_mask(hand.tribute_options(seat))
        elif hand.phase == Phase.TRIBUTE_RETURN:
            self.composer = None
            self._mask = card_mask(hand.return_options(seat))
        elif hand.phase in (Phase.KITTY, Phase.PLAY):
            self.composer = composer_for(hand, seat)
            self._mask = None  # from the composer when first asked (see _legal_mask)
        else:
            self.composer = None
            self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if seat is not None:
            self.agent_selection = AGENTS[seat]

    # ------------------------------------------------------------------ stepping
    def action_mask(self) -> np.ndarray:
        """The acting agent's current mask (a copy)."""
        return self._legal_mask().copy()

    def _legal_mask(self) -> np.ndarray:
        """The current mask. A card decision's is built from its composer on first use: an agent that
        answers in whole plays (:meth:`play`, :meth:`encode`) never asks for it, and it is 3% of self-play."""
        if self._mask is None:
            self._mask = self.composer.mask()
        return self._mask

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        mask = self._legal_mask()
        if action is None or not 0 <= int(action) < NUM_ACTIONS or not mask[int(action)]:
            legal = ", ".join(action_name(a) for a in np.flatnonzero(mask))
            shown = action if action is None or not 0 <= int(action) < NUM_ACTIONS else action_name(int(action))
            raise IllegalActionError(f"{agent} cannot take action {shown} now; legal: {legal}")
        action = int(action)
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        hand = self.hand
        seat = hand.current_player
        if self.guafeng:
            composer = self.composer
            composer.step(action)
            if not composer.complete:
                self._mask = composer.mask()
                return
            hand.act(seat, composer.decision())
        elif hand.phase.is_bidding:
            if action == PASS:
                hand.pass_bid(seat)
            else:
                hand.bid(seat, action_bid(action))
        elif hand.phase == Phase.REBID:
            if action == PASS:
                hand.pass_rebid(seat)
            else:
                hand.rebid(seat, action_bid(action))
        elif hand.phase == Phase.TRIBUTE:
            hand.give_tribute(seat, action)
        elif hand.phase == Phase.TRIBUTE_RETURN:
            hand.return_tribute(seat, action)
        else:
            composer = self.composer
            if action == STOP:
                hand.play(seat, composer.picked)
            else:
                composer.add(action)
                if composer.complete:
                    if hand.phase == Phase.KITTY:
                        hand.bury(seat, composer.picked)
                    else:
                        hand.play(seat, composer.picked)
                else:
                    self._mask = composer.mask()
                    return
        if hand.phase == Phase.DONE:
            self._end_hand()
        else:
            self._begin_decision()

    def _end_hand(self) -> None:
        hand = self.hand
        if self.guafeng:
            team_rewards = guafeng_hand_rewards(hand.result, hand.dealer, self.reward_scheme)
        else:
            team_rewards = hand_rewards(hand.result, hand.dealer, self.rules, self.reward_scheme)
        for seat, agent in enumerate(AGENTS):
            self.rewards[agent] = team_rewards[seat % 2]
        finished_hand = hand
        if self.match is not None:
            self.match.record(hand)
        if self.guafeng:  # a 刮风 match is match_hands hands, won by the levels climbed (or drawn)
            match_over = self.match is None or self.match.finished
        else:
            match_over = self.match is None or self.match.winner is not None or \
                self.match.hands_played >= self.match.max_hands
        for agent in self.agents:
            self.infos[agent] = {"hand_result": finished_hand.result, "dealer": finished_hand.dealer}
        if match_over:
            truncated = self.match is not None and self.match.winner is None and not self.guafeng
            for agent in self.agents:
                self.terminations[agent] = not truncated
                self.truncations[agent] = truncated
            self.composer = None
            self._mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        else:
            self.hand = self.match.new_hand()
            self._begin_decision()
        self._accumulate_rewards()

    def play(self, cards) -> None:
        """Apply a whole play (or kitty burial) of the acting seat as its card steps.

        The whole play is checked first; an illegal one raises and changes nothing.
        """
        hand = self.hand
        kinds = parse_cards(cards)
        if self.composer is None or self.composer.picked or getattr(self.composer, "mode", None) == "fix":
            raise IllegalActionError("play() needs a fresh card decision (not bidding, nothing picked yet)")
        seat = hand.current_player
        if self.guafeng:
            hand.act(seat, kinds)  # a 回牌, a burial, a lead or a follow, checked first
        elif hand.phase == Phase.KITTY:
            kitty_size = hand.ruleset.layout.kitty_size
            if len(kinds) != kitty_size or any(kinds.count(k) > hand.hands[seat][k] for k in kinds):
                raise IllegalActionError(f"the kitty takes {kitty_size} cards from the dealer's hand, got {cards!r}")
            hand.bury(seat, kinds)
        else:
            hand.play(seat, kinds)  # checks the play first: an illegal one raises and changes nothing
        # Same result as stepping the cards one by one (the masks are exact, so every prefix of a
        # legal play is allowed), without building a mask per card: the learner plays whole plays.
        self._after_whole_decision()

    def _after_whole_decision(self) -> None:
        self._cumulative_rewards[self.agent_selection] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if self.hand.phase == Phase.DONE:
            self._end_hand()
        else:
            self._begin_decision()

    def legal_plays(self, max_plays: int | None = None) -> MoveList:
        """The acting seat's legal leads or follows as whole plays (the whole-play view, with :meth:`play`).

        Sorted tuples of kinds; ``max_plays`` bounds the list (``truncated`` says
        whether it was cut). Learners choose their own candidates among them
        (e.g. :func:`agents.dmc.plays.learner_plays`).
        """
        if self.hand.phase != Phase.PLAY:
            raise IllegalActionError(f"no lead or follow to make in phase {self.hand.phase.value}")
        return view_of(self.hand, self.hand.current_player).legal_plays(max_plays)

    def apply_decision(self, decision: Bid | tuple | list | None) -> None:
        """Apply an agent's whole decision (a Bid, None to pass, or cards; one card for a
        tribute or a returned card; in 刮风 a fix or None while fixing, else cards) for the acting seat."""
        if self.guafeng and self.composer is not None and self.composer.mode == "fix":
            if self.composer.picked:
                raise IllegalActionError("apply_decision() needs a fresh decision (nothing picked yet)")
            self.hand.act(self.hand.current_player, decision)  # checked first: an illegal fix changes nothing
            self._after_whole_decision()
        elif self.guafeng:
            self.play(list(decision))
        elif self.hand.phase.takes_bids:
            if decision is None:
                self.step(PASS)
            else:
                self.step(bid_action(Bid(*decision)))
        elif self.hand.phase in (Phase.TRIBUTE, Phase.TRIBUTE_RETURN):
            card = decision if isinstance(decision, int | str) else self._single(decision)
            self.step(parse_cards([card])[0])
        else:
            self.play(list(decision))

    @staticmethod
    def _single(decision) -> int | str:
        cards = list(decision)
        if len(cards) != 1:
            raise IllegalActionError(f"a tribute or a returned card is one card, got {decision!r}")
        return cards[0]

    # ------------------------------------------------------------------ observing
    def observe(self, agent: str) -> dict[str, np.ndarray]:
        observation, history = self.encode(agent)
        mask = self._legal_mask().copy() if self._acting(agent) else np.zeros(NUM_ACTIONS, dtype=np.int8)
        return {"observation": observation, "action_mask": mask, "history": history}

    def encode(self, agent: str) -> tuple[np.ndarray, np.ndarray]:
        """``observe(agent)`` without the action mask: ``(observation, history)``. For agents that
        choose among whole plays (:meth:`legal_plays`) and so have no use for the card-step mask."""
        seat = AGENTS.index(agent)
        acting = self._acting(agent)
        picked = self.composer.picked if (acting and self.composer is not None) else None
        # 刮风 encodes from a seat's view: the acting seat's composer holds it already, others' is built once.
        source = self.hand if not self.guafeng else self.composer.view if acting and self.composer is not None \
            else view_of(self.hand, seat)
        return self.encoder.encode(source, seat, picked), self.encoder.history(source, seat)

    def _acting(self, agent: str) -> bool:
        return agent == self.agent_selection and not (self.terminations.get(agent) or self.truncations.get(agent))

    def view(self, agent: str | int) -> PlayerView:
        """The :class:`PlayerView` of an agent (name or seat), for agents that think in whole plays."""
        seat = agent if isinstance(agent, int) else AGENTS.index(agent)
        return view_of(self.hand, seat)

    def render(self) -> str | None:
        if self.render_mode is None:
            return None
        text = self._render_guafeng() if self.guafeng else render_table(self.hand)
        if self.composer is not None and self.composer.picked:
            text += "\n  picked: " + " ".join(action_name(k) for k in self.composer.picked)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def _render_guafeng(self) -> str:
        hand = self.hand
        trump = hand.trump if hand.trump_revealed else "hidden"
        lines = [f"guafeng {hand.phase.value}: level {hand.level}, trump {trump}, dealer {hand.dealer}, "
                 f"defender points {hand.defender_points}"]
        for seat in range(hand.num_players):
            mark = ">" if seat == hand.current_player else " "
            lines.append(f"{mark} seat {seat}: {format_cards(hand.hand_cards(seat))}")
        if hand.trick_plays:
            lines.append("  trick: " + " | ".join(format_cards(p) for p in hand.trick_plays))
        return "\n".join(lines)

    def close(self) -> None:
        pass
