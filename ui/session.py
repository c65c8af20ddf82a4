"""A game session for the user interfaces: seats, turns, legal cards, AI moves, logs, the match.

:class:`GameSession` wraps the engine (:class:`env.standard.hand.Hand` chained by
:class:`env.standard.match.Match`) for a terminal or a web page. It never decides a rule
itself: legality comes from ``Hand.play_error`` / ``Hand.bid`` / ``Hand.bury``
and which cards may be added to a partial selection from the environment's
:class:`env.standard.actions.PlayComposer` masks. Every action is checked first and
raises :class:`env.core.errors.IllegalActionError` with the rules' message, leaving
the session unchanged. Between hands the session waits (``hand_over``) so a
UI can show the score before :meth:`GameSession.next_hand`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent, Decision
from env.core.actions import STOP
from env.core.cards import CARD_NAMES, NUM_KINDS, POINTS, SUITS, parse_cards
from env.core.errors import IllegalActionError
from env.core.moves import MoveList
from env.core.registry import ruleset_from_config
from env.core.ruleset import RuleSet
from env.standard.actions import PlayComposer, composer_for
from env.standard.bidding import Bid
from env.standard.hand import Hand, Phase
from env.standard.match import Match
from env.standard.render import sorted_for_display
from env.standard.variants import RuleOptions
from env.standard.view import PlayerView
from ui.narrate import bid_text, display_context, narrate, score_text, trump_text
from ui.record import kitty_taken_up
from ui.seats import HUMAN, build_agents, display_name, make_seat_agent, orientation, plays_rule_set
from ui.words import decks_text, layout_text

ONE_CARD_PHASES = (Phase.TRIBUTE, Phase.TRIBUTE_RETURN)
"""Phases where a seat chooses one card (a tribute card, a returned card; RULES.md 9)."""
TABLE = "table"
"""The reader of :attr:`GameSession.messages`: the table seen from :attr:`GameSession.perspective` (a terminal)."""


@dataclass(frozen=True)
class Selection:
    """What a seat's partial card selection allows next.

    Attributes:
        cards: the selected kinds, in the order given.
        addable: kinds that may be added (some legal completion contains them).
        complete: the selection is a whole decision that may be submitted now.
        needed: cards the decision takes (``None`` for a lead: any number of one suit).
        note: what a complete selection is, when a rule set names it (刮风: the lead's combination).
    """

    cards: tuple[int, ...]
    addable: tuple[int, ...]
    complete: bool
    needed: int | None
    note: str | None = None


class GameSession:
    """One table: four seats (humans and agents) playing a match, or a single hand.

    ``seats`` are four specs (``"human"``, a bot name, a checkpoint path, see
    :mod:`ui.seats`); ``agents`` may be given instead of building them from the
    specs (tests). ``episode`` is ``"match"`` (hands until a team wins or
    ``max_hands``) or ``"hand"`` (one hand). ``rules`` is the rule set, or the
    standard game's options (RuleOptions or a dict). :func:`ui.sessions.open_session` makes
    the session class a rule set needs (:class:`ui.guafeng_session.GuafengSession`
    for 刮风).
    """

    CARD_PHASES: tuple = (Phase.KITTY, Phase.PLAY, *ONE_CARD_PHASES)
    """The phases whose decision is cards (:meth:`submit`)."""
    NO_CARDS = "no cards to play in phase {phase}: bid or pass"
    """What :meth:`submit` says in the other phases."""

    def __init__(self, seats: Sequence[str], seed: int = 0, rules: RuleSet | RuleOptions | dict | None = None,
                 episode: str = "match", max_hands: int = 200, agents: Sequence[Agent | None] | None = None,
                 hint_bot: str = "expert"):
        ruleset = ruleset_from_config(rules)
        players = ruleset.layout.players
        if len(seats) != players:
            raise ValueError(f"a table has {players} seats, got {len(seats)}")
        if episode not in ("match", "hand"):
            raise ValueError(f"episode must be 'match' or 'hand', got {episode!r}")
        self.seats = [str(s) for s in seats]
        self.seed = seed
        self.episode = episode
        self.agents = list(agents) if agents is not None else build_agents(self.seats, seed)
        for seat, (spec, agent) in enumerate(zip(self.seats, self.agents)):
            if (spec == HUMAN) != (agent is None):
                raise ValueError(f"seat {seat}: a human seat has no agent and an AI seat needs one")
            if agent is not None and not plays_rule_set(agent, ruleset):
                raise ValueError(f"seat {seat}: {display_name(spec)} does not play the {ruleset.name} rules "
                                 f"(the rule bots random, greedy and expert do, and a checkpoint trained with "
                                 f"`python train.py rules={ruleset.name}`)")
        self.hint_bot = hint_bot
        self._hint_agent: Agent | None = None
        self.ruleset = ruleset
        self.match = self._new_match(1 if episode == "hand" else max_hands)
        self.hand_logs: list[dict[str, Any]] = []
        # The table talk is written once per reader (the table, a spectator, each person), each in its own
        # words ("You" for the reader's own seat); _viewer is the reader being written for.
        self._viewer: int | str | None = TABLE
        self._lines: dict[int | str | None, list[str]] = {key: [] for key in (TABLE, None, *self.humans)}
        self._private: dict[int | str | None, list[tuple[int, int, str]]] = {key: [] for key in self._lines}
        self.hand = self._deal()

    def _new_match(self, max_hands: int) -> Match:
        """The match this table plays (a rule set with a match of its own overrides this)."""
        if self.ruleset.match_class is not Match:
            raise ValueError(f"the {self.ruleset.name} rule set needs its own session: make it with open_session "
                             "(ui.sessions)")
        return Match(self.seed, self.ruleset, max_hands=max_hands)

    # ------------------------------------------------------------------ who and where
    @property
    def humans(self) -> list[int]:
        """Seats played by people."""
        return [seat for seat, spec in enumerate(self.seats) if spec == HUMAN]

    @property
    def perspective(self) -> int:
        """The seat a table drawing is seen from: the first human, else seat 0."""
        return self.humans[0] if self.humans else 0

    def is_human(self, seat: int) -> bool:
        """True when a person plays ``seat``."""
        return self.seats[seat] == HUMAN

    def seat_label(self, seat: int) -> str:
        """``seat`` named for the reader being written for (:meth:`label_for`); outside narration, for the table:
        ``"You"`` for the only human, else the compass position (seen from :attr:`perspective`) and the name."""
        return self.label_for(self._viewer, seat)

    def label_for(self, viewer: int | str | None, seat: int) -> str:
        """``seat`` as ``viewer`` names it: ``"You"`` for its own seat, else the compass position seen from
        it and the seat's name. ``viewer`` is a seat, ``None`` (a spectator, seeing from :attr:`perspective`)
        or :data:`TABLE` (a terminal: "You" for the only human)."""
        if viewer == TABLE:
            if self.humans == [seat]:
                return "You"
            viewer = None
        if viewer is not None and seat == viewer:
            return "You"
        return f"{orientation(seat, self.perspective if viewer is None else viewer)} ({display_name(self.seats[seat])})"

    @property
    def to_act(self) -> int | None:
        """The seat with a decision, ``None`` between hands and at the end."""
        return None if self.hand.phase == Phase.DONE else self.hand.current_player

    @property
    def human_to_act(self) -> bool:
        """True when a person has the decision."""
        return self.to_act is not None and self.is_human(self.to_act)

    @property
    def ai_to_act(self) -> bool:
        """True when an agent has the decision."""
        return self.to_act is not None and not self.is_human(self.to_act)

    @property
    def hand_over(self) -> bool:
        """The current hand is scored (call :meth:`next_hand` to go on)."""
        return self.hand.phase == Phase.DONE

    @property
    def match_over(self) -> bool:
        """No further hand will be dealt (a team won, the hand limit, or a one-hand game)."""
        return self.hand_over and (self.match.winner is not None or self.match.hands_played >= self.match.max_hands)

    @property
    def hand_number(self) -> int:
        """1-based number of the current hand in the match."""
        return len(self.hand_logs) + (0 if self.hand_over else 1)

    def view(self, seat: int) -> PlayerView:
        """What ``seat`` may see now."""
        return self.ruleset.view_of(self.hand, seat)

    @property
    def messages(self) -> list[str]:
        """The public table talk in the words of the reader being written for (outside narration: the table's,
        :data:`TABLE`). Appending to it while narrating (:meth:`_tell_everyone`) writes that reader's copy."""
        return self._lines[self._viewer]

    def messages_for(self, seat: int | None) -> list[str]:
        """The messages as ``seat`` reads them, in its own words ("You" is that seat): the public ones with
        that seat's private ones in place (``None``: a spectator, the public ones). The list only grows, so a
        reader may keep its place in it."""
        key = seat if seat is None or seat in self.humans else TABLE
        lines = self._lines[key]
        mine = [(place, text) for place, owner, text in self._private[key] if owner == seat]
        if not mine:
            return list(lines)
        merged, start = [], 0
        for place, text in mine:
            merged.extend(lines[start:place])
            merged.append(text)
            start = place
        merged.extend(lines[start:])
        return merged

    def tell(self, seat: int, text: str) -> None:
        """Add a message only ``seat`` may read (its own cards, a fix it laid), in the current reader's copy."""
        self._private[self._viewer].append((len(self._lines[self._viewer]), seat, text))

    def _tell_everyone(self, write: Callable[[], None]) -> None:
        """Run ``write`` once per reader of the table talk (it appends to :attr:`messages` and calls
        :meth:`tell`, naming seats with :meth:`seat_label`), so each reads the news in their own words."""
        for key in self._lines:
            self._viewer = key
            try:
                write()
            finally:
                self._viewer = TABLE

    def decision(self, seat: int | None) -> str | None:
        """The kind of decision ``seat`` has now: ``"bid"``, ``"tribute"``, ``"return"``, ``"bury"``,
        ``"play"`` (or a rule set's own, such as 刮风's ``"fix"`` and ``"give_back"``); ``None`` when none."""
        if seat is None or self.to_act != seat:
            return None
        phase = self.hand.phase
        if phase.takes_bids:
            return "bid"
        return {Phase.TRIBUTE: "tribute", Phase.TRIBUTE_RETURN: "return", Phase.KITTY: "bury",
                Phase.PLAY: "play"}.get(phase)

    # ------------------------------------------------------------------ decisions
    def _check_person(self, seat: int) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or seat not in range(4):
            raise IllegalActionError(f"no seat {seat!r}: seats are 0..3")
        if not self.is_human(seat):
            raise IllegalActionError(f"seat {seat} is played by {display_name(self.seats[seat])}, not by a person")
        if self.hand_over:
            raise IllegalActionError("the hand is over: start the next hand")

    def fix_options(self, seat: int) -> list:
        """Fixes ``seat`` may make now: none in the standard game (刮风's session has them), so a client's
        ``fix`` message is refused as any other option that does not exist."""
        return []

    def bid_options(self, seat: int) -> list[Bid]:
        """Bids ``seat`` may make now (empty unless it is asked to bid, in the deal or a 炒地皮 round)."""
        if not self.hand.phase.takes_bids or self.hand.current_player != seat:
            return []
        if self.hand.phase == Phase.REBID:
            return self.hand.rebid_options(seat)
        return self.hand.bid_options(seat)

    def bid(self, seat: int, bid: Bid | None) -> None:
        """A person bids (``None`` passes); raises ``IllegalActionError`` when not allowed."""
        self._check_person(seat)
        if not self.hand.phase.takes_bids:
            raise IllegalActionError(f"cannot {'pass' if bid is None else 'bid'} in phase {self.hand.phase.value}")
        self._apply(seat, bid)

    def lead_name(self, kinds: Sequence[int]) -> str | None:
        """The name of a lead's combination when the rule set names one (刮风), else ``None``."""
        return None

    def pass_turn(self, seat: int) -> None:
        """A person passes (a bid, a 炒地皮 turn; a rule set's own decision to decline); the record tells
        that person (a pass is no event of the hand, so the table talk would not)."""
        self.bid(seat, None)
        self._tell_everyone(lambda: self.tell(seat, "You pass."))

    def card_options(self, seat: int) -> list[int]:
        """The cards ``seat`` may give as tribute or return now (RULES.md 9; empty otherwise)."""
        if self.hand.current_player != seat:
            return []
        if self.hand.phase == Phase.TRIBUTE:
            return self.hand.tribute_options(seat)
        if self.hand.phase == Phase.TRIBUTE_RETURN:
            return self.hand.return_options(seat)
        return []

    def _composer(self, seat: int) -> PlayComposer:
        hand = self.hand
        if hand.current_player != seat or hand.phase not in (Phase.KITTY, Phase.PLAY):
            raise IllegalActionError(f"seat {seat} has no card decision now (phase {hand.phase.value}, "
                                     f"seat {hand.current_player} to act)")
        return composer_for(hand, seat)

    def selection(self, seat: int, cards: Sequence[str | int] | str) -> Selection:
        """Check a partial selection card by card against the masks; say what may be added.

        Raises ``IllegalActionError`` naming the first card that no legal play
        with the cards before it can contain (or that is malformed).
        """
        try:
            kinds = parse_cards(cards)
        except ValueError as error:
            raise IllegalActionError(str(error)) from None
        if self.hand.phase in ONE_CARD_PHASES and self.hand.current_player == seat:
            options = self.card_options(seat)
            if len(kinds) > 1 or (kinds and kinds[0] not in options):
                raise IllegalActionError(f"choose one of {' '.join(CARD_NAMES[k] for k in options)}")
            return Selection(tuple(kinds), () if kinds else tuple(options), len(kinds) == 1, 1)
        composer = self._composer(seat)
        for kind in kinds:
            mask = composer.mask()
            if not mask[kind]:
                raise IllegalActionError(self._pick_error(seat, composer, kind))
            composer.add(kind)
        mask = composer.mask()
        complete = composer.complete or (composer.mode == "lead" and bool(mask[STOP]))
        addable = tuple(int(k) for k in np.flatnonzero(mask[:NUM_KINDS]))
        return Selection(tuple(kinds), addable, complete, composer.target)

    def _pick_error(self, seat: int, composer: PlayComposer, kind: int) -> str:
        name = CARD_NAMES[kind]
        held = self.hand.hands[seat][kind]
        if composer.counts[kind] >= held:
            return f"you hold {'no' if held == 0 else 'no more'} {name}"
        if composer.target is not None and len(composer.picked) >= composer.target:
            return f"{composer.target} cards are already selected"
        if composer.mode == "lead":
            return f"{name} is not of the suit of {CARD_NAMES[composer.picked[0]]}: a lead is all one suit"
        picked = composer.picked + [kind]
        reason = self.hand.play_error(seat, picked + self._any_fill(seat, picked))
        return f"no legal play contains {' '.join(CARD_NAMES[k] for k in picked)}" + (f" ({reason})" if reason else "")

    def _any_fill(self, seat: int, picked: list[int]) -> list[int]:
        """Some held cards completing ``picked`` to the lead's length (to name the duty it breaks)."""
        rest = list(self.hand.hands[seat])
        for k in picked:
            rest[k] -= 1
        need = self.hand.lead.n - len(picked)
        suit = self.hand.lead.suit
        ctx = self.hand.ctx
        pool = sorted((k for k in range(NUM_KINDS) for _ in range(max(rest[k], 0))),
                      key=lambda k: ctx.suit[k] != suit)
        return pool[:need]

    def submit(self, seat: int, cards: Sequence[str | int] | str) -> tuple[int, ...]:
        """A person decides with cards (in the phases of :attr:`CARD_PHASES`: buries the kitty, plays,
        gives a card...); returns the cards played (a failed throw plays fewer; empty for other decisions)."""
        self._check_person(seat)
        try:
            kinds = parse_cards(cards)
        except ValueError as error:
            raise IllegalActionError(str(error)) from None
        if self.hand.phase not in self.CARD_PHASES:
            raise IllegalActionError(self.NO_CARDS.format(phase=self.hand.phase.value))
        return self._apply(seat, kinds) or ()

    def terminal_commands(self) -> list[str]:
        """The terminal's help lines for this rule set's own decisions (the standard game has none)."""
        return []

    # ------------------------------------------------------------------ the rule set's words (terminal and page)
    def display_context(self) -> Any:
        """The trump context to sort and mark cards by (provisional while bidding)."""
        return display_context(self.hand)

    def in_display_order(self, kinds: Iterable[int]) -> list[int]:
        """Cards grouped by effective suit (trump first) and strongest first."""
        return sorted_for_display(self.display_context(), list(kinds))

    def trump_text(self) -> str:
        """The trump in words, or the bid so far."""
        return trump_text(self.hand)

    def trump_suit_letter(self) -> str | None:
        """The trump suit's letter for the page's colours (``None``: no suit, or not yet known)."""
        ctx = self.hand.ctx
        return SUITS[ctx.trump_suit] if ctx is not None and ctx.trump_suit is not None else None

    def score_text(self, label: Callable[[int], str]) -> str:
        """The finished hand's score in one sentence, naming the teams with ``label``."""
        return score_text(self.hand, label)

    def kitty_text(self, label: Callable[[int], str]) -> str | None:
        """A sentence on the kitty's part in the score, where the rule set has one (the standard game: none)."""
        return None

    def header_text(self, label: Callable[[int], str]) -> str:
        """What the table's header says after the level and the trump: the dealer."""
        return f" · dealer: {label(self.hand.dealer)}" if self.hand.dealer is not None else ""

    def rules_text(self) -> str:
        """The deal in a line for a header: decks, cards a hand, the kitty (``"3 decks · 39 cards a hand · kitty
        of 6"``), from the rule set's layout."""
        layout = self.hand.ruleset.layout
        return layout_text(layout.decks, layout.hand_size, layout.kitty_size)

    def decks_text(self) -> str:
        """How many decks are dealt, in words (``"3 decks"``)."""
        return decks_text(self.hand.ruleset.layout.decks)

    def deck_points(self) -> int:
        """The card points of all the decks dealt (100 a deck; RULES.md 11)."""
        return sum(POINTS) * self.hand.ruleset.layout.decks

    def trick_counter(self) -> str:
        """``trick n``: leads of several cards end a hand before its hand size's number of tricks, so no total."""
        return f"trick {len(self.hand.tricks) + (not self.hand.finished)}"

    def play_request(self) -> str:
        """What a lead or a follow asks for."""
        lead = self.hand.lead
        return "Lead any cards of one suit" if lead is None else f"Play {lead.n} card(s)"

    def rule_state(self, seat: int | None, decision: str | None) -> dict[str, Any]:
        """The page's record of this rule set's own decisions: the standing bid, the public tribute, the
        bids ``seat`` may make now."""
        hand = self.hand
        state: dict[str, Any] = {}
        if hand.standing is not None:
            state["standing_bid"] = {"seat": hand.standing.seat, "text": bid_text(hand.standing.bid)}
        if hand.tribute_cards:  # public (RULES.md 9)
            state["tribute_cards"] = [{"seat": g, "card": CARD_NAMES[k]} for g, k in hand.tribute_cards]
        if hand.phase == Phase.TRIBUTE_RETURN:
            state["return_to"] = hand.return_to()
        if decision == "bid":
            state["bid_options"] = [{"index": i, "text": bid_text(b), "cards": [CARD_NAMES[k] for k in
                                                                              b.cards(hand.level_rank)]}
                                    for i, b in enumerate(self.bid_options(seat))]
        return state

    def kitty_of(self, seat: int | None) -> list[int] | None:
        """The kitty ``seat`` buried in this hand (``None`` when it buried none, or before the burial): the
        one who buried it may look at it during the hand; everyone sees it in the result."""
        hand = self.hand
        if seat is None or hand.buried_by != seat:
            return None
        return list(hand.kitty)

    def kitty_received(self, seat: int | None) -> list[int]:
        """The cards ``seat`` took up from the kitty, while it is to bury them (else empty)."""
        return [] if seat is None else kitty_taken_up(self.hand, seat)

    def legal_plays(self, seat: int, max_plays: int = 30) -> MoveList:
        """Legal plays of ``seat`` now (singles, pairs and tractors first for a lead), bounded."""
        return self.view(seat).legal_plays(max_plays)

    def hint(self, seat: int) -> Decision:
        """What the hint bot would do in ``seat``'s place (never applied)."""
        if self.to_act != seat:
            raise IllegalActionError(f"seat {seat} has no decision now")
        if self._hint_agent is None:
            self._hint_agent = make_seat_agent(self.hint_bot, self.seed)
            if not plays_rule_set(self._hint_agent, self.ruleset):
                self._hint_agent = make_seat_agent("greedy", self.seed)
        return self._hint_agent.act(self.view(seat))

    def step_ai(self) -> Decision:
        """Let the agent whose turn it is take its decision; returns the decision."""
        seat, decision = self.think()
        self.apply_ai(seat, decision)
        return decision

    def think(self) -> tuple[int, Decision]:
        """The seat to act and its agent's decision, not yet applied.

        Reads only a frozen view, so a server may think in a worker thread
        (a search takes a while) and apply the decision afterwards.
        """
        if not self.ai_to_act:
            raise IllegalActionError("no agent has a decision now")
        seat = self.to_act
        return seat, self.agents[seat].act(self.view(seat))

    def apply_ai(self, seat: int, decision: Decision) -> None:
        """Apply a decision :meth:`think` took for ``seat`` (refused if the turn moved on meanwhile)."""
        if self.to_act != seat or not self.ai_to_act:
            raise IllegalActionError(f"seat {seat} no longer has a decision")
        self._apply(seat, decision)

    def apply_for_person(self, seat: int, decision: Decision) -> None:
        """Apply a decision an AI took for a person's seat while they are away (a web room's choice)."""
        self._check_person(seat)
        if self.to_act != seat:
            raise IllegalActionError(f"seat {seat} has no decision now")
        self._apply(seat, decision)

    def _apply(self, seat: int, decision: Decision) -> tuple[int, ...] | None:
        hand = self.hand
        played = None
        if hand.phase.takes_bids:  # a bid or a pass, in the deal or a 炒地皮 round (Hand.act picks which)
            if decision is not None:
                try:
                    decision = Bid(*decision)
                except TypeError:
                    raise IllegalActionError(f"malformed bid {decision!r}") from None
            hand.act(seat, decision)
        elif hand.phase in ONE_CARD_PHASES:
            hand.act(seat, decision)
        elif hand.phase == Phase.KITTY:
            hand.bury(seat, list(decision))
        elif hand.phase == Phase.PLAY:
            played = hand.play(seat, list(decision))
        else:
            raise IllegalActionError("the hand is over")
        self._after_action()
        return played

    def _after_action(self) -> None:
        hand, cursor = self.hand, self._event_cursor
        self._event_cursor = len(hand.events)
        if hand.phase == Phase.DONE:
            self.match.record(hand)
            self.hand_logs.append(hand.to_log())

        def write() -> None:
            self.messages.extend(narrate(hand, cursor, self.seat_label))
            if hand.phase == Phase.DONE and self.match.winner is not None:
                team = " and ".join(self.seat_label(s) for s in (self.match.winner, self.match.winner + 2))
                self.messages.append(f"Match over: {team} win the match.")

        self._tell_everyone(write)

    # ------------------------------------------------------------------ hands
    def _deal(self) -> Hand:
        hand = self.match.new_hand()
        self._event_cursor = 0
        for agent in self.agents:
            if agent is not None:
                agent.reset(None)
        self.hand = hand

        def write() -> None:
            self.messages.append(f"Hand {len(self.hand_logs) + 1}: levels {hand.team_levels[0]} / "
                                 f"{hand.team_levels[1]}, playing level {hand.level}.")
            self.messages.extend(narrate(hand, 0, self.seat_label))

        self._tell_everyone(write)
        self._event_cursor = len(hand.events)
        return hand

    def next_hand(self) -> Hand:
        """Deal the next hand of the match (only once the current one is over)."""
        if not self.hand_over:
            raise IllegalActionError("the current hand is still being played")
        if self.match_over:
            raise IllegalActionError("the match is over")
        return self._deal()

    def decisions(self) -> list[list[dict[str, Any]]]:
        """Every decision of the match so far, hand by hand (the last list: the hand being played, unless it
        is over): what :meth:`restore` needs to rebuild the table, as the hands' logs record them."""
        hands = [list(log["decisions"]) for log in self.hand_logs]
        if not self.hand_over:
            hands.append([dict(d) for d in self.hand.decisions])
        return hands

    def restore(self, hands: Sequence[Sequence[dict[str, Any]]]) -> None:
        """Bring a newly opened session (same seats, seed, rules and episode) to a stored position: replay
        ``hands`` (:meth:`decisions`), dealing each next hand on the way. Raises ``ValueError`` when a
        decision does not apply (the store belongs to another game or version)."""
        if self.hand.decisions or self.hand_logs:
            raise ValueError("only a newly opened session can be restored")
        for number, decisions in enumerate(hands):
            if number:
                self.next_hand()
            for decision in decisions:
                try:
                    self.hand.apply_decision(decision)
                except (IllegalActionError, KeyError, TypeError, ValueError) as error:
                    raise ValueError(f"hand {number + 1}: stored decision {decision} does not apply: {error}") \
                        from None
                self._after_action()

    def hand_log(self, index: int = -1) -> dict[str, Any]:
        """The JSON log (``Hand.to_log``) of a finished hand; it shows every card, so only finished hands."""
        if not self.hand_logs:
            raise IllegalActionError("no hand has finished yet")
        try:
            return self.hand_logs[index]
        except IndexError:
            raise IllegalActionError(f"no finished hand {index}: {len(self.hand_logs)} finished") from None
