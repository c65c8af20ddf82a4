"""A 刮风 table for the user interfaces: fixes, 回牌, the burial and the plays of a person, the match.

:class:`GuafengSession` is the :class:`ui.session.GameSession` of the 刮风 rule
set (RULES-guafeng.md): it plays a :class:`env.guafeng.hand.GuafengHand`
chained by a :class:`env.guafeng.match.GuafengMatch`. Its decisions
(:meth:`GameSession.decision`) are ``"fix"`` (扣主: a fix from
:meth:`fix_options`, or pass), ``"give_back"`` (回牌, cards), ``"bury"`` (the 4
kitty cards) and ``"play"`` (the first lead is one card; then one combination,
or a follow). Legality is the engine's: a partial selection is checked card by
card with :mod:`env.guafeng.moves` and ``give_back_options``, and every
refusal is the engine's :class:`~env.core.errors.IllegalActionError`, leaving the
table unchanged.

What the table says is public: the shown jokers, a base's size, who eats whom,
how many cards are exchanged. A seat's own secrets (its base, the cards taken
from or given back to it, the kitty it takes up) are told to that seat only
(:meth:`GameSession.messages_for`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from agents.base import Decision
from env.core.cards import CARD_NAMES, NUM_KINDS, format_cards, parse_cards
from env.core.errors import IllegalActionError
from env.core.moves import MoveList
from env.guafeng.combos import classify
from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengHand, GuafengPhase
from env.guafeng.match import GuafengMatch
from env.guafeng.moves import can_complete_lead, completing_cards, follow_duty
from ui import guafeng_words
from ui.guafeng_words import combo_text, narrate_guafeng, stage_text
from ui.session import GameSession, Selection
from ui.words import team_text

FIXING = (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX)
DECISIONS = {GuafengPhase.DEAL: "fix", GuafengPhase.FINAL_FIX: "fix", GuafengPhase.GIVE_BACK: "give_back",
             GuafengPhase.KITTY: "bury", GuafengPhase.PLAY: "play"}
"""The decision a person takes in each phase."""


class GuafengSession(GameSession):
    """One 刮风 table: four seats playing a match of ``match_hands`` hands (at most ``max_hands``), or one hand."""

    hand: GuafengHand
    match: GuafengMatch
    CARD_PHASES = (GuafengPhase.GIVE_BACK, GuafengPhase.KITTY, GuafengPhase.PLAY)
    """The phases whose decision is cards: a person gives back (回牌), buries or plays (:meth:`submit`)."""
    NO_CARDS = "no cards to give in phase {phase}: fix or pass"

    def _new_match(self, max_hands: int) -> GuafengMatch:
        self.max_hands = min(max_hands, self.ruleset.options.match_hands)
        return GuafengMatch(self.seed, self.ruleset)

    # ------------------------------------------------------------------ where the match stands
    @property
    def match_over(self) -> bool:
        """No further hand: ``match_hands`` were played, or ``max_hands`` (one for a one-hand game)."""
        return self.hand_over and (self.match.finished or self.match.hands_played >= self.max_hands)

    def decision(self, seat: int | None) -> str | None:
        """``"fix"``, ``"give_back"``, ``"bury"`` or ``"play"`` when ``seat`` is to act, else ``None``."""
        if seat is None or self.to_act != seat:
            return None
        return DECISIONS.get(self.hand.phase)

    # ------------------------------------------------------------------ fixing (扣主) and 回牌
    def fix_options(self, seat: int) -> list[Fix]:
        """The fixes ``seat`` may make now (each eats the standing fix); empty unless it is asked to fix."""
        if self.hand.phase not in FIXING or self.hand.current_player != seat:
            return []
        return self.hand.fix_options(seat)

    def fix(self, seat: int, fix: Fix | dict | None) -> None:
        """A person fixes (``None`` passes); raises ``IllegalActionError`` when not allowed."""
        self._check_person(seat)
        if self.hand.phase not in FIXING:
            raise IllegalActionError(f"cannot {'pass' if fix is None else 'fix'} in phase {self.hand.phase.value}")
        self._apply(seat, fix)

    def terminal_commands(self) -> list[str]:
        """The help line of 扣主 (the terminal's ``fix>`` prompt)."""
        return ["  1 / p                  fix> : fix with the numbered fix (扣主), or pass"]

    def pass_turn(self, seat: int) -> None:
        """A person declines to fix."""
        self.fix(seat, None)

    def bid_options(self, seat: int) -> list:
        """刮风 has no bids (see :meth:`fix_options`)."""
        return []

    def bid(self, seat: int, bid: Any) -> None:
        """刮风 has no bids: a pass declines to fix, anything else is refused."""
        if bid is None:
            self.pass_turn(seat)
            return
        raise IllegalActionError("刮风 has no bids: fix the trump (扣主) or pass")

    def give_back_note(self) -> str:
        """What the 回牌 asks, e.g. ``"give North 3 cards, at least 1 constant trump ..."``."""
        hand = self.hand
        owed = hand.give_back_constants
        constants = f", at least {owed} constant trump{'s' if owed > 1 else ''} (jokers, 5s, 3s, 2s)" if owed else ""
        return f"give {self.seat_label(hand.give_back_to)} {hand.give_back_count} cards{constants}, " \
               f"none of your new fix"

    # ------------------------------------------------------------------ cards: 回牌, burial, plays
    def selection(self, seat: int, cards: Sequence[str | int] | str) -> Selection:
        """Check a partial selection card by card; say what may be added.

        Raises ``IllegalActionError`` naming the first card no legal decision
        with the cards before it can contain.
        """
        try:
            kinds = parse_cards(cards)
        except ValueError as error:
            raise IllegalActionError(str(error)) from None
        decision = self.decision(seat)
        if decision == "give_back":
            return self._counted_selection(seat, kinds, self.hand.give_back_count,
                                           lambda picked: self.hand.give_back_options(seat, picked),
                                           lambda picked, kind: f"回牌: cannot give {CARD_NAMES[kind]} "
                                                                f"after {format_cards(picked) or 'nothing'} "
                                                                f"({self.give_back_note()})")
        if decision == "bury":
            held = self.hand.hands[seat]
            return self._counted_selection(seat, kinds, self.hand.ruleset.layout.kitty_size,
                                           lambda picked: [k for k in range(NUM_KINDS)
                                                           if held[k] > picked.count(k)],
                                           lambda picked, kind: f"you hold no more {CARD_NAMES[kind]}")
        if decision == "play":
            return self._play_selection(seat, kinds)
        raise IllegalActionError(f"seat {seat} has no card decision now (phase {self.hand.phase.value}, "
                                 f"seat {self.hand.current_player} to act)")

    def _counted_selection(self, seat: int, kinds: list[int], count: int, allowed, error) -> Selection:
        """A selection of exactly ``count`` cards, each from ``allowed(picked)`` (a 回牌, a burial)."""
        picked: list[int] = []
        for kind in kinds:
            if len(picked) >= count:
                raise IllegalActionError(f"{count} cards are already selected")
            if kind not in allowed(picked):
                raise IllegalActionError(error(picked, kind))
            picked.append(kind)
        addable = () if len(picked) >= count else tuple(allowed(picked))
        return Selection(tuple(picked), addable, len(picked) == count, count)

    def _play_selection(self, seat: int, kinds: list[int]) -> Selection:
        hand = self.hand
        counts, ctx, lead = hand.hands[seat], hand.ctx, hand.lead
        if hand.first_lead:
            held = tuple(k for k in range(NUM_KINDS) if counts[k])
            if kinds and kinds[0] not in held:
                raise IllegalActionError(f"you hold no {CARD_NAMES[kinds[0]]}")
            if len(kinds) > 1:
                raise IllegalActionError("the first lead of a hand is one card (it reveals the trump)")
            return Selection(tuple(kinds), () if kinds else held, len(kinds) == 1, 1, "single" if kinds else None)
        duty = None if lead is None else follow_duty(ctx, counts, lead)
        picked: list[int] = []
        for kind in kinds:
            trial = [*picked, kind]
            if not (can_complete_lead(ctx, counts, trial) if duty is None else duty.allows(trial)):
                raise IllegalActionError(self._pick_error(seat, picked, kind))
            picked.append(kind)
        addable = tuple(completing_cards(ctx, counts, picked, lead))
        complete = bool(picked) and hand.play_error(seat, picked) is None
        note = combo_text(classify(ctx, picked)) if complete and lead is None else None
        return Selection(tuple(picked), addable, complete, None if lead is None else lead.length, note)

    def _pick_error(self, seat: int, picked: list[int], kind: int) -> str:
        hand = self.hand
        trial = [*picked, kind]
        if hand.hands[seat][kind] < trial.count(kind):
            return f"you hold {'no' if hand.hands[seat][kind] == 0 else 'no more'} {CARD_NAMES[kind]}"
        if hand.lead is None:
            return f"no combination you hold contains {format_cards(trial)}: a lead is one single, pair, tractor, " \
                   f"bomb or run (no throws, 不能撇牌)"
        if len(picked) >= hand.lead.length:
            return f"{hand.lead.length} cards are already selected"
        reason = hand.play_error(seat, trial + self._any_fill(seat, trial))
        return f"no legal follow to the {combo_text(hand.lead)} contains {format_cards(trial)}" + \
            (f" ({reason})" if reason else "")

    def _any_fill(self, seat: int, picked: list[int]) -> list[int]:
        """Held cards completing ``picked`` to the lead's length, of the lead's suit first, highest first."""
        ctx, lead = self.hand.ctx, self.hand.lead
        rest = list(self.hand.hands[seat])
        for k in picked:
            rest[k] -= 1
        pool = sorted((k for k in range(NUM_KINDS) for _ in range(max(rest[k], 0))),
                      key=lambda k: (ctx.suit[k] != lead.suit, -ctx.order[k]))
        return pool[:lead.length - len(picked)]

    def lead_name(self, kinds: Sequence[int]) -> str | None:
        """The combination of a lead in words (``"pair of hearts"``), once the trump is public."""
        ctx = self.hand.ctx if self.hand.trump_revealed else None
        return None if ctx is None else combo_text(classify(ctx, list(kinds)))

    def kitty_received(self, seat: int | None) -> list[int]:
        """The 4 cards the kitty taker picked up, while it is to bury them (its view's; else empty)."""
        if seat is None or self.decision(seat) != "bury":
            return []
        return list(self.view(seat).kitty_received or ())

    def legal_plays(self, seat: int, max_plays: int = 30) -> MoveList:
        """Legal plays of ``seat`` now (the engine's enumeration), bounded."""
        return self.hand.legal_plays(seat, max_plays)

    # ------------------------------------------------------------------ applying decisions
    def _apply(self, seat: int, decision: Decision) -> tuple[int, ...] | None:
        hand = self.hand
        if hand.phase == GuafengPhase.DONE:
            raise IllegalActionError("the hand is over")
        played = hand.play(seat, decision) if hand.phase == GuafengPhase.PLAY else hand.act(seat, decision)
        self._after_action()
        return played

    def _narrate(self) -> None:
        """Write the hand's new events for every reader (:meth:`GameSession._tell_everyone`)."""
        cursor = self._event_cursor
        self._event_cursor = len(self.hand.events)

        def write() -> None:
            for seat, text in narrate_guafeng(self.hand, cursor, self.seat_label):
                if seat is None:
                    self.messages.append(text)
                elif self.is_human(seat):
                    self.tell(seat, text)

        self._tell_everyone(write)

    def _after_action(self) -> None:
        if self.hand.phase == GuafengPhase.DONE:
            self.match.record(self.hand)
            self.hand_logs.append(self.hand.to_log())
        self._narrate()
        if self.hand.phase == GuafengPhase.DONE and self.match_over and self.episode == "match":
            self._tell_everyone(lambda: self.messages.append(self.match_result_text()))

    # ------------------------------------------------------------------ 刮风's words (terminal and page)
    def display_context(self) -> Any:
        """The context the seats may sort by: the trump mode once it is public, else the level's no-suit order."""
        return guafeng_words.display_context(self.hand)

    def trump_text(self) -> str:
        return guafeng_words.trump_text(self.hand)

    def trump_suit_letter(self) -> str | None:
        return guafeng_words.trump_suit_letter(self.hand)

    def score_text(self, label: Callable[[int], str]) -> str:
        return guafeng_words.score_text(self.hand, label)

    def kitty_text(self, label: Callable[[int], str]) -> str | None:
        return guafeng_words.kitty_text(self.hand, label)

    def header_text(self, label: Callable[[int], str]) -> str:
        """The stage team, the standing fix while fixing, the kitty taker at the burial."""
        hand = self.hand
        text = f"\nStage team (台上): {guafeng_words.stage_text(hand, label)}"
        standing = guafeng_words.standing_text(hand, label)
        if hand.phase.is_fixing and standing:
            text += f" · standing fix: {standing}"
        if hand.kitty_taker is not None and hand.phase == GuafengPhase.KITTY:
            text += f" · kitty taker: {label(hand.kitty_taker)}"
        return text

    def play_request(self) -> str:
        """One card first, then one combination (no throws), or a follow of the lead's length."""
        hand = self.hand
        if hand.first_lead:
            return "Lead one card: the first lead of a hand is a single card, and it reveals the trump"
        if hand.lead is None:
            return "Lead one combination: a single, pair, tractor, bomb or run"
        return f"Follow the {combo_text(hand.lead)} with {hand.lead.length} card(s)"

    def rule_state(self, seat: int | None, decision: str | None) -> dict[str, Any]:
        """The page's record of the fixing and the stage, the 回牌 asked of ``seat``, and its fixes now."""
        hand = self.hand
        label = self.seat_label
        fixes = [{"seat": record.seat, "jokers": [CARD_NAMES[k] for k in record.fix.jokers],
                  "base_size": len(record.fix.base), "eats": record.eaten} for record in hand.fixes]
        guafeng = {"stage": guafeng_words.stage_text(hand, label), "stage_team": hand.stage_team,
                   "standing": guafeng_words.standing_text(hand, label), "fixes": fixes,
                   "kitty_taker": hand.kitty_taker, "trump_revealed": hand.trump_revealed,
                   "first_lead": hand.phase == GuafengPhase.PLAY and hand.first_lead,
                   "lead": combo_text(hand.lead) if hand.lead is not None else None, "give_back": None}
        if self.decision(seat) == "give_back":
            guafeng["give_back"] = {"to": hand.give_back_to, "count": hand.give_back_count,
                                    "constants": hand.give_back_constants, "note": self.give_back_note()}
        state: dict[str, Any] = {"guafeng": guafeng}
        if decision == "fix":
            state["bid_options"] = [{"index": i, "text": guafeng_words.fix_text(f),
                                     "cards": [CARD_NAMES[k] for k in f.cards]}
                                    for i, f in enumerate(self.fix_options(seat))]
        return state

    def match_result_text(self) -> str:
        """The match's end in one sentence: the levels each team climbed and who wins."""
        climbed = self.match.climbed
        teams = [team_text(seat, self.seat_label) for seat in (0, 1)]
        told = f"{teams[0]} climbed {climbed[0]} level{'s' if climbed[0] != 1 else ''}, {teams[1]} {climbed[1]}"
        if not self.match.finished:
            return f"Match stopped after {self.match.hands_played} hands: {told}."
        if self.match.winner is None:
            return f"Match over: {told}; a draw."
        return f"Match over: {told}; {teams[self.match.winner]} win the match."

    # ------------------------------------------------------------------ hands
    def _deal(self) -> GuafengHand:
        self._event_cursor = 0
        self.hand = self.match.new_hand()
        for agent in self.agents:
            if agent is not None:
                agent.reset(None)
        levels = self.match.team_levels
        self._tell_everyone(lambda: self.messages.append(
            f"Hand {len(self.hand_logs) + 1} of 刮风: levels {levels[0]} / {levels[1]}; "
            f"stage team (台上): {stage_text(self.hand, self.seat_label)}."))
        self._narrate()
        return self.hand
