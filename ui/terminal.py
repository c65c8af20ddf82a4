"""The terminal game: a rich table, cards typed in the project's notation, bids, the kitty, a whole match.

Prompts end in ``> `` and name the decision (``bid>``, ``bury>``, ``play>``,
``next>``, ``watch>``; in 刮风 also ``fix>`` for 扣主 and ``giveback>`` for
回牌), so a script can drive the game: ``?`` lists the legal plays (numbered,
one per line, in the notation to type back), ``hint`` asks the hint bot,
``help`` lists the commands. An illegal play is answered with the rules'
reason and the same prompt again; nothing changes.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.console import Console

from env.core.cards import CARD_NAMES, format_cards, parse_cards
from env.core.errors import IllegalActionError
from env.standard.bidding import Bid
from env.standard.hand import Phase
from ui.guafeng_words import fix_text, standing_text
from ui.narrate import bid_text, cards_text, trick_lines
from ui.record import MatchRecord
from ui.session import GameSession
from ui.terminal_view import screen

HELP = """Commands:
  SA SA / HT HT H9 ...   play (or bury) these cards: suit S H C D + rank 2-9 T J Q K A (10 ok), LJ, BJ
  ?                      list legal plays (or the bids you can make)
  hint                   what the hint bot would do
  t                      draw the table again
  log                    everything that happened this session
  tricks                 every trick of this hand: who led, each seat's cards, who won, the points
  scores                 the score history of the match: each hand's dealer, trump, points, level changes
  kitty                  the kitty you buried (only its burier sees it before the hand is scored)
  3                      when playing or burying: the play numbered 3 in the list ? shows
  help                   this text
  q                      quit"""


class QuitGame(Exception):  # noqa: N818 - a signal, not an error
    """The player asked to leave."""


class TerminalGame:
    """Runs a :class:`GameSession` in a terminal until the match ends or the player quits.

    ``input_fn`` reads a line (default :func:`input`); ``auto`` plays watch mode
    without waiting for Enter, pausing ``delay`` seconds between moves;
    ``log_dir`` receives each finished hand's JSON log.
    """

    def __init__(self, session: GameSession, console: Console | None = None,
                 input_fn: Callable[[str], str] = input, auto: bool = False, delay: float = 0.5,
                 log_dir: str | Path | None = None, legal_limit: int = 20):
        self.session = session
        self.console = console or Console(highlight=False)
        self.input_fn = input_fn
        self.auto = auto
        self.delay = delay
        self.log_dir = Path(log_dir) if log_dir else None
        self.legal_limit = legal_limit
        self._shown = 0
        self.watching = not session.humans
        self.viewer = None if self.watching else session.perspective

    # ------------------------------------------------------------------ loop
    def run(self) -> None:
        """Play until the match is over (or ``q``)."""
        try:
            while True:
                session = self.session
                if session.hand_over:
                    self._hand_over()
                    if session.match_over:
                        over = "The hand is over" if session.episode == "hand" else \
                            f"The match is over after {session.match.hands_played} hand(s)"
                        self._say(f"{over}. Thanks for playing!")
                        return
                    if self.watching and self.auto:
                        time.sleep(self.delay * 4)
                    else:
                        line = self._ask("next", "Press Enter for the next hand (scores, tricks, log; q to quit)")
                        while line and self._common(line):  # a look back at the hand or the match first
                            line = self._read("next")
                    session.next_hand()
                elif session.human_to_act:
                    self._human_turn()
                else:
                    self._ai_turn()
        except (QuitGame, EOFError, KeyboardInterrupt):
            self._say("Bye.")

    def _say(self, text: str, style: str | None = None) -> None:
        self.console.print(text, style=style, markup=False)

    def _news(self) -> None:
        """Print the session's messages not printed yet."""
        messages = self.session.messages_for(self.viewer)
        for line in messages[self._shown:]:
            self._say(line, "italic")
        self._shown = len(messages)

    def _draw(self) -> None:
        self._shown = len(self.session.messages_for(self.viewer))
        self.console.print(screen(self.session, show_all=self.watching))

    def _read(self, prompt: str) -> str:
        line = self.input_fn(f"{prompt}> ").strip()
        if line.lower() in ("q", "quit", "exit"):
            raise QuitGame
        return line

    def _ask(self, prompt: str, text: str) -> str:
        self._say(text, "bold")
        return self._read(prompt)

    # ------------------------------------------------------------------ agents
    def _ai_turn(self) -> None:
        session = self.session
        seat = session.to_act
        phase = session.hand.phase
        leading = phase == Phase.PLAY and not session.hand.trick_plays
        decision = session.step_ai()
        if phase == Phase.PLAY:
            name = session.lead_name(decision) if leading else None
            self._say(f"{session.seat_label(seat)} {'leads' if leading else 'plays'} "
                      f"{cards_text(session.in_display_order(decision))}" + (f" ({name})" if name else ""))
        self._news()
        if not self.watching:
            return
        self._draw()
        if self.auto:
            time.sleep(self.delay)
            return
        line = self._read("watch").lower()
        if line == "a":
            self.auto = True

    # ------------------------------------------------------------------ people
    def _human_turn(self) -> None:
        session = self.session
        self._news()
        self._draw()
        seat = session.to_act
        phase = session.hand.phase
        while session.to_act == seat and session.hand.phase == phase and not session.hand_over:
            decision = session.decision(seat)
            if decision == "bid":
                done = self._bid_turn(seat)
            elif decision == "fix":
                done = self._fix_turn(seat)
            elif decision == "tribute":
                done = self._card_turn(seat, "tribute", "Give your highest card as tribute: "
                                       + " ".join(CARD_NAMES[k] for k in session.card_options(seat)))
            elif decision == "return":
                giver = session.seat_label(session.hand.return_to())
                done = self._card_turn(seat, "return", f"Return one card (not a tribute card) to {giver}")
            elif decision == "give_back":
                done = self._card_turn(seat, "giveback", f"回牌: {session.give_back_note()} (? for the cards "
                                                         f"you may give)")
            elif decision == "bury":
                kitty_size = session.hand.ruleset.layout.kitty_size
                taken = session.in_display_order(session.kitty_received(seat))
                if taken:
                    self._say(f"From the kitty: {cards_text(taken)}")
                done = self._card_turn(seat, "bury", f"Bury {kitty_size} cards (type them, ? for a suggestion)")
            else:
                done = self._card_turn(seat, "play", self._play_request())
            if done:
                self._news()  # what the decision did (a trick won, a fix eaten) before the next seat moves
                return

    def _play_request(self) -> str:
        """What a play asks: any cards of one suit, or (刮风) one card first, then one combination."""
        return f"{self.session.play_request()} (? lists legal plays)"

    def _common(self, line: str) -> bool:
        """Handle the commands every prompt understands; True when handled."""
        word = line.lower()
        if word == "help":
            first, rest = HELP.split("\n", 2)[:2], HELP.split("\n", 2)[2]
            self._say("\n".join([*first, *self.session.terminal_commands(), rest]))
        elif word == "t":
            self._draw()
        elif word == "log":
            for text in self.session.messages_for(self.viewer):
                self._say(text)
        elif word == "kitty":
            kitty = self.session.kitty_of(self.viewer)
            if kitty is None:
                self._say("The kitty is face down: only the one who buried it sees it before the hand is scored.")
            else:
                self._say(f"Your kitty (you buried it): {cards_text(self.session.in_display_order(kitty))}")
        elif word in ("scores", "history"):
            lines = MatchRecord(self.session).score_lines(self.session.seat_label)
            for text in lines or ["No hand of this match has finished yet."]:
                self._say(text)
        elif word == "tricks":
            lines = trick_lines(self.session.hand, self.session.seat_label, self.session.in_display_order)
            for text in lines or ["No trick has been played in this hand yet."]:
                self._say(text)
        elif word == "":
            self._say("Type your cards, ? for the legal plays, or help.")
        else:
            return False
        return True

    def _bid_turn(self, seat: int) -> bool:
        session = self.session
        options = session.bid_options(seat)
        level_rank = session.hand.level_rank
        menu = "  ".join(f"{i}) {bid_text(b)} ({format_cards(b.cards(level_rank))})"
                         for i, b in enumerate(options, start=1))
        line = self._ask("bid", f"You may bid: {menu}  p) pass")
        if line == "?":
            for i, bid in enumerate(options, start=1):
                self._say(f"  {i}. {format_cards(bid.cards(level_rank))}")
            self._say("  p. pass")
            return False
        if self._hint_or_common(seat, line, bid_text):
            return False
        bid = self._parse_bid(line, options, level_rank)
        if bid is False:
            return False
        if bid is None:  # the session's record says "You pass." (and the table talk says a bid)
            return self._decide(lambda s, _: session.pass_turn(s), seat, None, None)
        return self._decide(session.bid, seat, bid, None)

    def _hint_or_common(self, seat: int, line: str, name: Callable[[Any], str]) -> bool:
        """Answer ``line`` if it asks for a hint (a bid or fix, named by ``name``) or is a common command;
        False when it is a decision to read."""
        if line.lower() == "hint":
            suggestion = self.session.hint(seat)
            self._say(f"Hint: {'pass' if suggestion is None else name(suggestion)}")
            return True
        return self._common(line)

    def _decide(self, apply: Callable[[int, Any], None], seat: int, choice: Any, done: str | None) -> bool:
        """Apply a bid or fix ``choice`` (``None``: pass) for ``seat``; say ``done`` (``None``: the session's
        messages say it), or why it is illegal."""
        try:
            apply(seat, choice)
        except IllegalActionError as error:
            self._say(f"Illegal: {error}", "bold red")
            return False
        if done is not None:
            self._say(done)
        return True

    def _fix_turn(self, seat: int) -> bool:
        """扣主 (刮风): fix with one of the fixes offered (each eats the standing fix), or pass."""
        session = self.session
        options = session.fix_options(seat)
        standing = standing_text(session.hand, session.seat_label)
        self._say(f"扣主: {'the standing fix is ' + standing if standing else 'nobody has fixed yet'}. "
                  f"You may fix (show jokers, lay a base face down):")
        for i, fix in enumerate(options, start=1):
            self._say(f"  {i}) {fix_text(fix)}")
        line = self._ask("fix", "Type a number to fix, or p to pass (hint, help)")
        if line == "?":
            return False  # the list is printed with every question
        if self._hint_or_common(seat, line, fix_text):
            return False
        if line.lower() in ("p", "pass"):
            fix = None
        elif line.isdigit() and 1 <= int(line) <= len(options):
            fix = options[int(line) - 1]
        else:
            self._say(f"Illegal: {line} is not one of the numbers 1-{len(options)} or p", "bold red")
            return False
        return self._decide(session.fix, seat, fix, "You pass." if fix is None else f"You fix (扣主): {fix_text(fix)}.")

    def _parse_bid(self, line: str, options: list[Bid], level_rank: int) -> Bid | bool | None:
        """The bid a line names (``None`` = pass), or ``False`` after explaining why it names none."""
        if line.lower() in ("p", "pass"):
            return None
        if line.isdigit() and 1 <= int(line) <= len(options):
            return options[int(line) - 1]
        try:
            kinds = sorted(parse_cards(line))
        except ValueError as error:
            self._say(f"Illegal: {error}", "bold red")
            return False
        for bid in options:
            if sorted(bid.cards(level_rank)) == kinds:
                return bid
        self._say(f"Illegal: {line} is not one of the bids you can make now", "bold red")
        return False

    def _card_turn(self, seat: int, prompt: str, text: str) -> bool:
        session = self.session
        line = self._ask(prompt, text)
        if line == "?":
            self._list_legal(seat, prompt)
            return False
        if line.lower() == "hint":
            hint = session.hint(seat)
            hint = [hint] if isinstance(hint, int) else hint  # a tribute or returned card is one card
            self._say(f"Hint: {format_cards(session.in_display_order(hint))}")
            return False
        if self._common(line):
            return False
        if line.isdigit():  # a number from the list `?` shows
            listed = self._listed(seat, prompt)
            if not 1 <= int(line) <= len(listed):
                self._say(f"Illegal: {line} is not one of the numbered plays 1-{len(listed)} (? lists them)",
                          "bold red")
                return False
            line = format_cards(listed[int(line) - 1])
        try:
            attempted = parse_cards(line)
            played = session.submit(seat, attempted)
        except (IllegalActionError, ValueError) as error:
            self._say(f"Illegal: {error}", "bold red")
            return False
        if prompt == "bury":
            self._say(f"You buried {cards_text(session.in_display_order(attempted))}.")
        elif prompt == "giveback":
            self._say(f"You give back {cards_text(session.in_display_order(attempted))} (回牌).")
        elif prompt in ("tribute", "return"):
            self._say(f"You {'give' if prompt == 'tribute' else 'return'} {cards_text(attempted)}.")
        else:
            if len(played) < len(attempted):
                self._say("Your throw failed: it can be beaten.", "bold red")
            name = session.lead_name(played) if len(session.hand.trick_plays) == 1 else None
            self._say(f"You {'lead' if name else 'play'} {cards_text(session.in_display_order(played))}"
                      + (f" ({name})" if name else ""))
        return True

    def _listed(self, seat: int, prompt: str) -> list[list[int]]:
        """The numbered plays ``?`` lists at ``prompt`` (a burial or 回牌: the hint bot's one)."""
        session = self.session
        if prompt in ("tribute", "return"):
            return [[k] for k in session.card_options(seat)]
        if prompt in ("bury", "giveback"):
            return [list(session.hint(seat))]
        return [list(play) for play in session.legal_plays(seat, self.legal_limit).plays]

    def _list_legal(self, seat: int, prompt: str) -> None:
        session = self.session
        if prompt in ("tribute", "return"):
            self._say(f"One of: {format_cards(session.card_options(seat))}")
            return
        if prompt == "bury":
            self._say(f"Any {session.hand.ruleset.layout.kitty_size} of your cards; the hint bot would bury:")
            self._say(f"  1. {format_cards(session.in_display_order(session.hint(seat)))}")
            return
        if prompt == "giveback":
            addable = session.selection(seat, []).addable
            self._say(f"You may give: {format_cards(session.in_display_order(addable))}; the hint bot "
                      f"would give:")
            self._say(f"  1. {format_cards(session.in_display_order(session.hint(seat)))}")
            return
        moves = session.legal_plays(seat, self.legal_limit)
        self._say("Legal plays:" if not moves.truncated else f"Legal plays (the first {len(moves.plays)}):")
        for i, play in enumerate(moves.plays, start=1):
            self._say(f"  {i}. {format_cards(session.in_display_order(play))}")

    # ------------------------------------------------------------------ between hands
    def _hand_over(self) -> None:
        session = self.session
        self._news()
        hand = session.hand
        burier = hand.dealer if hand.buried_by is None else hand.buried_by
        self._say(f"Kitty ({session.seat_label(burier)} buried): {cards_text(session.in_display_order(hand.kitty))}")
        levels = session.match.team_levels
        me = session.perspective
        self._say(f"Levels now: {session.seat_label(me)} & partner {levels[me % 2]}, "
                  f"opponents {levels[1 - me % 2]}.", "bold")
        if self.log_dir is not None:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            path = self.log_dir / f"hand_{len(session.hand_logs):03d}.json"
            path.write_text(json.dumps(session.hand_log(), indent=1))
            self._say(f"Hand log saved to {path}")
