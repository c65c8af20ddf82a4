"""刮风 in words for the user interfaces: fixes, the trump mode, the hand's events, the score.

The terminal and the web page tell a 刮风 hand (RULES-guafeng.md) with these
sentences, in the game's words: 扣主 (fix), 吃 (eat), 回牌 (give back), 扣底
(bury), 捡底 (pick up the kitty), 台上 (the stage team). Public sentences never
name a hidden card; :func:`narrate_guafeng` also returns, per seat, the
sentences only that seat may read (its base, the cards exchanged with it, the
kitty it took up and buried).

Until the first lead the trump mode is secret (section 5), so cards are sorted
and marked by the no-suit order (jokers, level cards, 5s, 3s and 2s as trump),
which every seat may know; afterwards by the hand's real order.
"""

from __future__ import annotations

from collections.abc import Sequence

from env.core.cards import CARD_NAMES, SUITS, format_cards
from env.guafeng.combos import Combo
from env.guafeng.fixing import Fix
from env.guafeng.hand import GuafengHand
from env.guafeng.order import CONSTANTS, GuafengContext, guafeng_context
from ui.words import SUIT_WORDS, Label, team_text


def display_context(hand: GuafengHand) -> GuafengContext:
    """The order to sort and mark cards by: the hand's once the trump is public, else the no-suit order."""
    if hand.trump_revealed and hand.ctx is not None:
        return hand.ctx
    return guafeng_context(hand.level, None)


def trump_mode_text(trump: str | None) -> str:
    """A trump mode in words: ``"hearts"``, ``"constants only (打常主)"``, ``"no trump suit"``."""
    if trump == CONSTANTS:
        return "constants only (打常主)"
    if trump is None:
        return "no trump suit"
    return SUIT_WORDS[trump]


def trump_text(hand: GuafengHand) -> str:
    """What everyone knows of the trump: the mode once public, else the fixing's state."""
    if hand.trump_revealed:
        return trump_mode_text(hand.trump)
    if hand.standing is None:
        return "not fixed yet"
    return "fixed, hidden until the first lead"


def fix_text(fix: Fix) -> str:
    """A fix a player may make, e.g. ``"show BJ, lay HA HA: trump hearts (1 joker, 1 pair)"``."""
    jokers, pairs = fix.strength
    return (f"show {format_cards(fix.jokers)}, lay {format_cards(fix.base)}: trump {trump_mode_text(fix.trump)} "
            f"({jokers} joker{'s' if jokers > 1 else ''}, {pairs} pair{'s' if pairs > 1 else ''})")


def public_fix_text(seat_label: str, jokers: Sequence[str], base_size: int) -> str:
    """A standing fix as everyone sees it: the shown jokers and the base's size."""
    return f"{seat_label}: {' '.join(jokers)} shown, a base of {base_size} cards face down"


def combo_text(combo: Combo | None) -> str:
    """A combination in words, e.g. ``"pair of hearts"``, ``"tractor of 2 pairs of trump"``."""
    if combo is None:
        return "no combination"
    text = combo.describe()
    for letter, word in SUIT_WORDS.items():
        if text.endswith(f" of {letter}"):
            return text[:-1] + word
    return text


def score_text(hand: GuafengHand, label: Label) -> str:
    """The finished hand's score: 捡底 (V x M), the defenders' points and the levels climbed."""
    result = hand.result
    stage, defenders = team_text(hand.dealer, label), team_text((hand.dealer + 1) % 4, label)
    rules = hand.ruleset
    if result.winner == "dealers":
        old = hand.team_levels[hand.dealer % 2]
        outcome = f"{stage} stay on stage (台上) and go up {result.levels} " \
                  f"({old} → {rules.advance_level(old, result.levels)})"
        if result.stage_limit_reached:
            outcome += f", then step down after {result.stage_run} hands on stage"
    else:
        old = hand.team_levels[(hand.dealer + 1) % 2]
        outcome = f"{defenders} take the stage at level {old}" if not result.levels else \
            f"{defenders} take the stage and go up {result.levels} ({old} → {rules.advance_level(old, result.levels)})"
    return f"Defenders' points {result.defender_points} (tricks {result.trick_points}, kitty " \
           f"{result.kitty_bonus:+d}): {outcome}."


def kitty_text(hand: GuafengHand, label: Label) -> str:
    """捡底: who picked up the kitty, its value V and the multiplier M of the last trick."""
    result, last = hand.result, hand.tricks[-1]
    side = "the defenders gain" if result.kitty_bonus >= 0 else "the defenders lose"
    return (f"Kitty (捡底): {_does(label(last.winner), 'wins')} the last trick and the kitty "
            f"{format_cards(hand.kitty)}: "
            f"V = {result.kitty_points} × M = {result.kitty_multiplier} → {side} "
            f"{abs(result.kitty_bonus)}.")


def _does(name: str, verb: str) -> str:
    """``name`` and the verb agreeing with it: ``"East eats"``, ``"You eat"`` (``verb`` as for "it")."""
    if name != "You":
        return f"{name} {verb}"
    return f"You {verb[:-2] if verb.endswith(('shes', 'ches', 'xes')) else verb[:-1]}"


def _whose(name: str) -> str:
    """``"East's"``, or ``"your"``."""
    return "your" if name == "You" else f"{name}'s"


def _whom(name: str) -> str:
    """``name`` as an object: ``"you"`` for the person."""
    return "you" if name == "You" else name


class _Story:
    """Sentences in order, each public (seat ``None``) or for one seat only."""

    def __init__(self) -> None:
        self.lines: list[tuple[int | None, str]] = []

    def append(self, text: str) -> None:
        self.lines.append((None, text))

    def tell(self, seat: int, text: str) -> None:
        self.lines.append((seat, text))


def narrate_guafeng(hand: GuafengHand, start: int, label: Label) -> list[tuple[int | None, str]]:
    """Sentences for ``hand.events[start:]`` as ``(seat, text)``: seat ``None`` for a public one,
    else the only seat that may read it (its base, the cards exchanged with it, its kitty)."""
    story = _Story()
    tricks = sum(1 for e in hand.events[:start] if e["type"] == "trick")
    for event in hand.events[start:]:
        kind = event["type"]
        secret = event.get("private", {})
        who = label(event["seat"]) if "seat" in event else ""
        if kind == "stage":
            story.append(f"First fix (抢台): {team_text(event['dealer'], label)} take the stage (台上); "
                         f"{label(event['dealer'])} is the dealer seat.")
        elif kind == "fix":
            eats = event["eats"]
            what = _does(who, "fixes") + " (扣主)" if eats is None else \
                _does(who, "eats") + " their own fix (吃自己)" if eats == event["seat"] else \
                _does(who, "eats") + f" (吃) {_whose(label(eats))} fix"
            story.append(f"{what}: {' '.join(event['jokers'])} shown, a base of {event['base_size']} cards face "
                         f"down (strength {event['strength'][0]}×{event['strength'][1]}).")
            story.tell(event["seat"], f"Your base: {' '.join(secret['base'])} (only you know it).")
        elif kind == "take":
            gives = "give" if who == "You" else "gives"
            story.append(f"{_does(who, 'takes')} the {event['count']} cards of {_whose(label(event['from']))} "
                         f"fix and {gives} as many back (回牌).")
            jokers = secret["jokers"]  # private: it tells whether the base was a joker pair
            plural = "s" if jokers != 1 else ""
            owed = f" ({jokers} joker{plural}: at least {jokers} constant trump{plural} in the 回牌)" if jokers else ""
            story.tell(event["from"], f"{who} took your fix: {' '.join(secret['cards'])}{owed}.")
            story.tell(event["seat"], f"You took {' '.join(secret['cards'])} from {label(event['from'])}{owed}.")
        elif kind == "give_back":
            story.append(f"{who} gave {_whom(label(event['to']))} {event['count']} cards back (回牌).")
            story.tell(event["to"], f"{who} gave you back {' '.join(secret['cards'])}.")
        elif kind == "final_round":
            story.append("The deal is over: a last round to fix.")
        elif kind == "redeal":
            story.append("Nobody fixed: the cards are shuffled and dealt again.")
        elif kind == "step_down":
            story.append(f"No fix stands: the stage team steps down (自动下台). {team_text(event['dealer'], label)} "
                         f"take the stage at level {event['level']}, with no trump suit.")
        elif kind == "fixing_over":
            fixer, taker = event["standing"], label(event["kitty_taker"])
            stands = "no fix stands" if fixer is None else \
                f"{_whose(label(fixer))} fix stands (the trump is hidden until the first lead)"
            story.append(f"The fixing is over: {stands}. {_does(taker, 'takes')} the kitty.")
        elif kind == "kitty":
            story.tell(event["seat"], f"The kitty you take up: {' '.join(secret['cards'])}.")
        elif kind == "bury":
            story.append(f"{who} buried 4 cards (扣底).")
        elif kind == "trump":
            story.append(f"The trump is revealed: {trump_mode_text(event['trump'])} (level {event['level']}).")
        elif kind == "trick":
            tricks += 1
            story.append(f"{label(event['winner'])} won trick {tricks} (+{event['points']} points).")
        elif kind == "score" and hand.result is not None:
            story.append(kitty_text(hand, label))
            story.append(score_text(hand, label))
    return story.lines


def stage_text(hand: GuafengHand, label: Label) -> str:
    """The stage team (台上) and its dealer seat, or that the first fix decides it (抢台)."""
    if hand.dealer is None:
        return "the first team to fix takes it (抢台)"
    return f"{team_text(hand.dealer, label)} (dealer seat {label(hand.dealer)})"


def standing_text(hand: GuafengHand, label: Label) -> str | None:
    """The standing fix as everyone sees it, ``None`` before any fix."""
    if hand.standing is None:
        return None
    seat, fix = hand.standing
    return public_fix_text(label(seat), [CARD_NAMES[k] for k in fix.jokers], len(fix.base))


def trump_suit_letter(hand: GuafengHand) -> str | None:
    """The trump suit's letter once public (for a suit mark), else ``None``."""
    if not hand.trump_revealed or hand.ctx is None or hand.ctx.trump_suit is None:
        return None
    return SUITS[hand.ctx.trump_suit]
