"""A 刮风 hand (RULES-guafeng.md sections 1, 5-9 and 12): fixing, 吃, 回牌, the stage team, the
step-down, the kitty taker, the burial, the single-card first lead, 捡底 and the score.

Each example and **Decision** of the spec that concerns the flow is a case here;
scenarios are dealt from a chosen deal order (:func:`deck_of`) so the decision
points fall where the case needs them.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
import yaml

from env.core.cards import BIG_JOKER, LITTLE_JOKER, NUM_KINDS, card_list, counts_of, parse_cards
from env.core.errors import IllegalActionError
from env.core.layout import DealLayout
from env.core.registry import make_ruleset, ruleset_class
from env.guafeng.fixing import (
    FIX_INDEX,
    FIX_TABLE,
    Fix,
    StandingFix,
    fix_error,
    fix_options,
    fix_shape_error,
    give_back_choices,
    give_back_error,
)
from env.guafeng.hand import GuafengHand, GuafengPhase, GuafengResult
from env.guafeng.options import GuafengOptions
from env.guafeng.ruleset import GuafengRules
from env.standard.hand import Hand

RULES = GuafengRules()


# ---------------------------------------------------------------------------- helpers

def deck_of(first: dict[int, str], kitty: str = "", start: int = 0) -> list[str]:
    """A deal order in which seat s is dealt ``first[s]`` first, in order; the other cards never make a
    pair in one hand, and the jokers nobody is given lie in the kitty (so no unplanned fix)."""
    seats = {s: parse_cards(first.get(s, "")) for s in range(4)}
    kitty_kinds = parse_cards(kitty)
    rest = counts_of(k for k in range(NUM_KINDS) for _ in range(2))
    for k in [k for cards in seats.values() for k in cards] + kitty_kinds:
        rest[k] -= 1
        assert rest[k] >= 0, f"more than two of kind {k}"
    for joker in (LITTLE_JOKER, BIG_JOKER):
        while rest[joker]:
            rest[joker] -= 1
            kitty_kinds.append(joker)
    assert len(kitty_kinds) <= 4, "place the jokers the kitty cannot hold"
    spare = [k for k in range(NUM_KINDS) for _ in range(rest[k])]
    while len(kitty_kinds) < 4:
        kitty_kinds.append(spare.pop())
    for attempt in range(100):  # fill without a pair: a seeded greedy fill, tried again when it gets stuck
        filled = {s: list(cards) for s, cards in seats.items()}
        order = list(spare)
        random.Random(attempt).shuffle(order)
        for k in order:
            need = [s for s in range(4) if len(filled[s]) < 26 and k not in filled[s]]
            if not need:
                break
            filled[max(need, key=lambda s: 26 - len(filled[s]))].append(k)
        else:
            seats = filled
            break
    assert all(len(cards) == 26 for cards in seats.values()) and len(kitty_kinds) == 4
    order = [seats[(start + i) % 4][i // 4] for i in range(104)]
    return card_list(order + kitty_kinds)


def snapshot(hand: GuafengHand) -> str:
    """Everything a request could change, as one string."""
    state = {k: v for k, v in vars(hand).items() if k not in ("ruleset", "options", "_rng")}
    return json.dumps({"state": state, "log": hand.to_log(), "rng": hand._rng.getstate()}, default=str)


def assert_refused(hand: GuafengHand, request, reason: str) -> None:
    """The request raises IllegalActionError naming ``reason`` and changes nothing."""
    before = snapshot(hand)
    with pytest.raises(IllegalActionError, match=reason):
        request(hand)
    assert snapshot(hand) == before


def fix(jokers: str, base: str) -> Fix:
    return Fix.of(jokers, base)


def at(hand: GuafengHand, seat: int, phase: GuafengPhase | None = None) -> None:
    """The hand waits for ``seat`` (in ``phase``)."""
    assert hand.current_player == seat, (hand.current_player, hand.phase)
    if phase is not None:
        assert hand.phase == phase


def pass_to_end_of_fixing(hand: GuafengHand) -> None:
    while hand.phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
        hand.pass_fix(hand.current_player)


# ---------------------------------------------------------------------------- the rule set

def test_the_rule_set_is_registered_with_its_options():
    assert ruleset_class("guafeng") is GuafengRules
    rules = make_ruleset("guafeng", {"match_hands": 5, "stage_limit": 0})
    assert rules.options == GuafengOptions(match_hands=5, stage_limit=0)
    assert make_ruleset("guafeng").options == GuafengOptions(13, 7)
    assert rules.layout == DealLayout(players=4, decks=2, hand_size=26, kitty_size=4)
    assert rules.describe()["options"] == {"match_hands": 5, "stage_limit": 0}
    assert make_ruleset("guafeng", rules.options) == rules and rules != RULES
    assert rules.levels[0] == "A" and len(rules.levels) == 13
    assert isinstance(rules.new_hand(3), GuafengHand) and rules.hand_class is GuafengHand


def test_the_rule_file_builds_the_rule_set():
    config = yaml.safe_load((Path(__file__).parent.parent / "conf" / "rules" / "guafeng.yaml").read_text())
    assert make_ruleset(config.pop("ruleset"), config) == GuafengRules()


@pytest.mark.parametrize("options, named", [
    ({"match_hands": 0}, "match_hands"), ({"match_hands": "13"}, "match_hands"),
    ({"stage_limit": -1}, "stage_limit"), ({"stage_limit": True}, "stage_limit"),
    ({"kitty_multiplier": "linear"}, "unknown guafeng option"),
])
def test_bad_options_fail_naming_the_option(options, named):
    with pytest.raises(ValueError, match=named):
        make_ruleset("guafeng", options)


def test_the_guafeng_rules_have_their_own_hand_class():
    with pytest.raises(ValueError, match="deals DealLayout"):
        GuafengRules(layout=DealLayout(players=4, decks=2, hand_size=25, kitty_size=8))
    with pytest.raises(ValueError, match="new_hand"):
        Hand.new(1, RULES)
    with pytest.raises(ValueError, match="guafeng rule set"):
        GuafengHand.new(1, make_ruleset("standard"))
    assert make_ruleset("standard").hand_class is Hand


# ---------------------------------------------------------------------------- fixes (section 5)

@pytest.mark.parametrize("jokers, base, trump", [
    ("BJ", "H7 H7", "H"), ("LJ", "HA HA H2 H2", "H"), ("BJ LJ", "SK SK SA SA", "S"),
    ("LJ LJ", "D5 D5 D6 D6 D7 D7", "D"), ("BJ", "LJ LJ", "constants"), ("LJ", "BJ BJ", "constants"),
    ("BJ BJ", "LJ LJ", "constants"), ("LJ LJ", "BJ BJ", "constants"),
    ("BJ", "SA SA", "S"), ("LJ", "C2 C2 C3 C3", "C"),  # any rank: level cards and constants too
])
def test_these_are_fixes(jokers, base, trump):
    f = fix(jokers, base)
    assert fix_shape_error(f) is None and f in FIX_INDEX and f.trump == trump


@pytest.mark.parametrize("jokers, base, reason", [
    ("", "H7 H7", "one or two jokers"), ("BJ LJ LJ", "H7 H7", "one or two jokers"), ("SA", "H7 H7", "jokers"),
    ("BJ", "H7", "pairs"), ("BJ", "H7 H8", "pairs of identical"), ("BJ", "H7 H7 H9 H9", "consecutive"),
    ("BJ", "HK HK HA HA H2 H2", "consecutive"), ("BJ", "S8 S8 H9 H9", "one printed suit"),
    ("LJ", "LJ LJ", "not be among the shown"), ("BJ LJ", "BJ BJ", "not be among"),
    ("BJ", "LJ LJ BJ BJ", "exactly one joker pair"), ("BJ", "LJ BJ", "exactly one joker pair"),
    ("BJ", "H7 H7 H7 H7", "repeats a pair (H7 4 times"), ("BJ", "H7 H7 H7 H8", "repeats a pair (H7 3 times"),
])
def test_these_are_not_fixes(jokers, base, reason):
    assert reason in fix_shape_error(fix(jokers, base))


def test_a_repeated_pair_is_refused_as_one_not_as_unpaired_cards():
    hand = GuafengHand.from_deck(deck_of({0: "BJ SA SA"}))
    at(hand, 0)
    assert_refused(hand, lambda h: h.fix(0, ("BJ", "SA SA SA SA")), r"repeats a pair \(SA 4 times in SA SA SA SA\)")
    with pytest.raises(IllegalActionError) as refused:
        hand.fix(0, ("BJ", "SA SA SA SA"))
    assert "identical" not in str(refused.value)


@pytest.mark.parametrize("standing, eater, eats", [
    (("BJ", "H7 H7"), ("LJ", "S8 S8 S9 S9"), True),                  # (1, 2) eats (1, 1)
    (("BJ LJ", "H7 H7"), ("BJ LJ", "S8 S8 S9 S9"), True),            # (2, 2) eats (2, 1)
    (("BJ", "H7 H7 H8 H8"), ("LJ", "S8 S8 S9 S9 ST ST"), True),      # (1, 3) eats (1, 2): 三连对吃两连对
    (("BJ", "H7 H7 H8 H8 H9 H9"), ("BJ LJ", "S8 S8"), True),         # (2, 1) eats any (1, m)
    (("BJ LJ", "H7 H7"), ("BJ", "S8 S8 S9 S9 ST ST SJ SJ"), False),  # no (1, m) eats (2, 1)
    (("BJ", "H7 H7"), ("LJ", "S8 S8"), False),                       # equal never eats
    (("BJ", "H7 H7"), ("BJ", "LJ LJ"), False),                       # a joker base is one pair
    (("BJ LJ", "H7 H7 H8 H8"), ("BJ LJ", "S8 S8 S9 S9"), False),
])
def test_only_a_strictly_stronger_fix_eats(standing, eater, eats):
    counts = [2] * NUM_KINDS
    error = fix_error(counts, fix(*eater), StandingFix(1, fix(*standing)))
    assert (error is None) == eats
    if not eats:
        assert "strictly stronger" in error


def test_fix_options_are_every_held_fix_of_the_table_that_eats():
    rng = random.Random(5)
    deck = [k for k in range(NUM_KINDS) for _ in range(2)]
    for trial in range(60):
        rng.shuffle(deck)
        counts = counts_of(deck[:30])
        standing = None if trial % 3 == 0 else StandingFix(0, rng.choice(FIX_TABLE))
        expected = [f for f in FIX_TABLE if fix_error(counts, f, standing) is None]
        assert sorted(fix_options(counts, standing)) == sorted(expected)
    assert len(FIX_TABLE) == len(set(FIX_TABLE)) and all(fix_shape_error(f) is None for f in FIX_TABLE)
    assert all(FIX_TABLE[FIX_INDEX[f]] == f for f in FIX_TABLE)


def test_give_back_needs_the_count_the_constants_and_not_the_new_fix():
    available = counts_of(parse_cards("BJ H7 H7 C5 SA SK D9"))
    assert give_back_error(available, parse_cards("BJ H7 H7"), 3, 1) is None
    assert give_back_error(available, parse_cards("C5 SA SK"), 3, 1) is None
    assert "at least 1 constant" in give_back_error(available, parse_cards("SA SK D9"), 3, 1)
    assert "exactly 3" in give_back_error(available, parse_cards("BJ H7"), 3, 1)
    assert "not of the eater's new fix" in give_back_error(available, parse_cards("LJ H7 H7"), 3, 1)
    # Composing one card at a time: once the last pick must be a constant, only constants are offered.
    assert set(give_back_choices(available, parse_cards("SA SK"), 3, 1)) == set(parse_cards("BJ C5"))
    assert len(give_back_choices(available, parse_cards("BJ"), 3, 1)) == 5  # kinds: H7 C5 SA SK D9


# ---------------------------------------------------------------------------- the deal and its decision points

def test_a_dealt_card_that_gives_a_fix_asks_its_holder_and_the_first_fixer_takes_the_stage():
    # Seat 1 is dealt LJ, S8 (5), S8 (9): it has a fix after deal index 9.
    hand = GuafengHand.from_deck(deck_of({1: "LJ S8 S8"}))
    at(hand, 1, GuafengPhase.DEAL)
    assert hand.hand_sizes == [3, 3, 2, 2] and hand.dealer is None
    assert hand.fix_options() == [fix("LJ", "S8 S8")]
    hand.fix(1, fix("LJ", "S8 S8"))
    # 抢台: team B (seats 1, 3) takes the stage; its dealer seat is seat 1, at level A.
    assert (hand.dealer, hand.stage_team, hand.level, hand.first_fixer) == (1, 1, "A", 1)
    pass_to_end_of_fixing(hand)
    # The fixer is on stage: its partner takes the kitty; the trump is the base's suit, not yet public.
    assert (hand.phase, hand.kitty_taker, hand.current_player, hand.trump) == (GuafengPhase.KITTY, 3, 3, "S")
    assert hand.hand_sizes == [26, 26, 26, 30] and not hand.trump_revealed


def test_the_first_fix_not_the_standing_one_decides_the_stage_and_a_defender_fix_gives_the_dealer_the_kitty():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7", 1: "LJ S8 S8 S9 S9"}))
    at(hand, 0)
    hand.fix(0, fix("BJ", "H7 H7"))
    assert hand.dealer == 0
    at(hand, 1)  # seat 1's (1, 1) could not eat; its tractor (1, 2) can
    assert hand.fix_options(1) == [fix("LJ", "S8 S8 S9 S9")]
    hand.fix(1, fix("LJ", "S8 S8 S9 S9"))
    at(hand, 1, GuafengPhase.GIVE_BACK)
    hand.give_back(1, "BJ H7 H7")
    pass_to_end_of_fixing(hand)
    assert (hand.dealer, hand.standing.seat, hand.kitty_taker, hand.trump) == (0, 1, 0, "S")


def test_eating_takes_the_fix_and_gives_back_as_many_cards_with_a_constant_for_each_joker():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7", 1: "LJ C4 D5 S8 S8 S9 S9"}))
    hand.fix(0, fix("BJ", "H7 H7"))
    before = [list(h) for h in hand.hands]
    hand.fix(1, fix("LJ", "S8 S8 S9 S9"))
    taken = counts_of(parse_cards("BJ H7 H7"))
    assert [hand.hands[1][k] - before[1][k] for k in range(NUM_KINDS)] == taken
    assert (hand.give_back_to, hand.give_back_count, hand.give_back_constants) == (0, 3, 1)
    assert_refused(hand, lambda h: h.give_back(1, "H7 H7"), "exactly 3")
    assert_refused(hand, lambda h: h.give_back(1, "H7 H7 S8"), "not of the eater's new fix")
    assert_refused(hand, lambda h: h.give_back(1, "H7 H7 C4"), "at least 1 constant")
    assert_refused(hand, lambda h: h.give_back(0, "BJ H7 H7"), "seat 1's turn")
    assert_refused(hand, lambda h: h.pass_fix(1), "phase give_back")
    assert_refused(hand, lambda h: h.fix(1, fix("LJ", "S8 S8 S9 S9")), "phase give_back")
    hand.give_back(1, "H7 H7 D5")  # D5 is a constant trump
    assert hand.hands[0][parse_cards("D5")[0]] == 1 and hand.hands[1][BIG_JOKER] == 1
    assert hand.cards_accounted() == 108 and hand.hand_sizes[0] == hand.hand_sizes[1]
    rec = hand.fixes[-1]
    assert (rec.seat, rec.eaten, card_list(rec.taken), card_list(rec.given)) == (1, 0, ["BJ", "H7", "H7"],
                                                                               ["H7", "H7", "D5"])
    # Who knows what: the exchanged cards and the jokers taken only to seats 0 and 1; the counts to all.
    take = next(e for e in hand.visible_events(2) if e["type"] == "take")
    assert "private" not in take and take["count"] == 3 and "jokers" not in take
    assert next(e for e in hand.visible_events(0) if e["type"] == "take")["private"] == {
        "cards": ["BJ", "H7", "H7"], "jokers": 1}


def test_a_player_eats_their_own_fix_without_an_exchange():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7 LJ H8 H8"}))
    hand.fix(0, fix("BJ", "H7 H7"))
    pass_to_end_of_fixing_or(hand, until=0)
    assert hand.fix_options(0) == [fix("BJ LJ", "H7 H7")] and hand.hand_sizes[0] == 4  # asked when LJ comes
    hand.pass_fix(0)
    pass_to_end_of_fixing_or(hand, until=0)
    assert hand.hand_sizes[0] == 6  # and again when the H8 pair completes
    # The old fix's cards are back in hand: (2, 2) is built from them.
    assert fix("BJ LJ", "H7 H7 H8 H8") in hand.fix_options(0)
    hand.fix(0, fix("BJ LJ", "H7 H7 H8 H8"))
    assert hand.phase != GuafengPhase.GIVE_BACK and hand.give_back_count == 0
    assert all(hand.hands[0][k] >= n for k, n in enumerate(counts_of(parse_cards("BJ LJ H7 H7 H8 H8"))))
    assert hand.standing == StandingFix(0, fix("BJ LJ", "H7 H7 H8 H8")) and hand.fixes[-1].eaten is None


def pass_to_end_of_fixing_or(hand: GuafengHand, until: int) -> None:
    """Pass for everyone until ``until`` is asked."""
    while hand.phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX) and hand.current_player != until:
        hand.pass_fix(hand.current_player)


def test_an_equal_fix_never_asks_and_the_final_round_asks_in_seat_order_from_the_first_seat():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7", 2: "LJ C9 C9", 3: "BJ D4 D4 D5 D5"}))
    hand.fix(0, fix("BJ", "H7 H7"))
    # Seat 2's (1, 1) is never asked; seat 3 is asked for its (1, 2) when its 5th card comes.
    at(hand, 3)
    assert hand.hand_sizes == [5, 5, 5, 5]
    hand.pass_fix(3)
    asked = []
    while hand.phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
        asked.append((hand.phase.value, hand.current_player))
        hand.pass_fix(hand.current_player)
    # After the deal only seat 3 holds a fix that eats; the standing fixer holds none stronger.
    assert asked == [("final_fix", 3)]


def test_no_fix_in_a_first_hand_deals_again_from_the_seed():
    no_jokers_dealt = deck_of({})  # every joker in the kitty: nobody can fix
    hand = GuafengHand.from_deck(no_jokers_dealt, seed=7)
    again = GuafengHand.from_deck(no_jokers_dealt, seed=7)
    assert [e["type"] for e in hand.events].count("redeal") >= 1
    assert hand.hands == again.hands and hand.phase.is_fixing and hand.cards_accounted() == 108


def test_a_level_of_10_is_t_wherever_a_hand_is_given_its_levels():
    deck = deck_of({}, start=2)
    for make in (lambda levels: GuafengHand.new(3, dealer=0, team_levels=levels),
                 lambda levels: RULES.new_hand(3, dealer=0, team_levels=levels),
                 lambda levels: GuafengHand.from_deck(deck, dealer=2, team_levels=levels),
                 lambda levels: GuafengHand.from_deal(["SA", "HA", "CA", "DA"], "S4", dealer=0, trump="S",
                                                      team_levels=levels)):
        ten, t = make(("10", "A")), make(("T", "A"))
        assert ten.team_levels == ("T", "A") and ten.to_log() == t.to_log()
        assert GuafengHand.from_log(ten.to_log()).to_log() == t.to_log()
    assert GuafengHand.new(3, dealer=1, team_levels=("a", 10)).level == "T"
    for bad in (("1", "A"), ("A",), ("A", "A", "A"), ("A", "Z")):
        with pytest.raises(ValueError, match="team_levels must be two levels"):
            GuafengHand.new(3, dealer=0, team_levels=bad)


def test_no_fix_in_a_later_hand_steps_the_stage_team_down():
    hand = GuafengHand.from_deck(deck_of({}, start=2), dealer=2, team_levels=("7", "J"), stage_run=3)
    # Nobody can fix: the defenders (team B) take the stage at their level J, dealer seat 2 + 1, no trump suit.
    assert hand.stepped_down and (hand.dealer, hand.level, hand.trump, hand.ctx.mode) == (3, "J", None, "none")
    assert (hand.phase, hand.kitty_taker, hand.current_player) == (GuafengPhase.KITTY, 3, 3)
    assert hand.trump_revealed and hand.ctx.is_trump[parse_cards("HJ")[0]]  # the level cards are trump
    # The step-down restarts the stage count.
    finish_randomly(hand, random.Random(0))
    assert hand.result.stage_run == 1


def test_a_defender_that_fixes_in_a_later_hand_does_not_take_the_stage():
    hand = GuafengHand.from_deck(deck_of({1: "LJ HQ HQ"}, start=2), dealer=2, team_levels=("7", "J"))
    hand.fix(1, fix("LJ", "HQ HQ"))
    pass_to_end_of_fixing(hand)
    assert (hand.dealer, hand.level, hand.kitty_taker, hand.trump) == (2, "7", 2, "H")
    hand = GuafengHand.from_deck(deck_of({2: "LJ HQ HQ"}, start=2), dealer=2, team_levels=("7", "J"))
    hand.fix(2, fix("LJ", "HQ HQ"))
    pass_to_end_of_fixing(hand)
    assert (hand.dealer, hand.kitty_taker) == (2, 0)  # the stage fixer's partner buries


def test_a_joker_base_fixes_constants_only():
    hand = GuafengHand.from_deck(deck_of({0: "BJ LJ LJ"}))
    assert hand.fix_options(0) == [fix("BJ", "LJ LJ")]
    hand.fix(0, fix("BJ", "LJ LJ"))
    pass_to_end_of_fixing(hand)
    assert hand.trump == "constants" and hand.ctx.mode == "constants"


# ---------------------------------------------------------------------------- bad requests while fixing

def test_illegal_fixes_and_passes_are_refused_without_a_change():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7 LJ"}))
    at(hand, 0)
    assert_refused(hand, lambda h: h.fix(1, fix("BJ", "H7 H7")), "seat 0's turn")
    assert_refused(hand, lambda h: h.pass_fix(2), "seat 0's turn")
    assert_refused(hand, lambda h: h.fix(0, fix("BJ", "H8 H8")), "not in hand")
    assert_refused(hand, lambda h: h.fix(0, fix("BJ", "H7 H7 H8 H8")), "not in hand")
    assert_refused(hand, lambda h: h.fix(0, fix("BJ", "H7")), "pairs")
    assert_refused(hand, lambda h: h.fix(0, ("BJ", "XX")), "malformed card")
    assert_refused(hand, lambda h: h.fix(0, "BJ H7 H7"), "jokers shown, base cards")
    assert_refused(hand, lambda h: h.bury(0, "BJ H7 H7 LJ"), "phase deal")
    assert_refused(hand, lambda h: h.play(0, "BJ"), "phase deal")
    assert_refused(hand, lambda h: h.give_back(0, "BJ"), "phase deal")
    hand.fix(0, fix("BJ", "H7 H7"))
    pass_to_end_of_fixing_or(hand, until=0)
    if hand.current_player == 0:  # asked again once LJ arrives: the same strength never eats
        assert_refused(hand, lambda h: h.fix(0, fix("LJ", "H7 H7")), "strictly stronger")


# ---------------------------------------------------------------------------- the kitty and the first lead

def test_the_burial_is_exactly_four_held_cards_and_the_first_lead_one_card_that_shows_the_trump():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7", 2: "C9 C9", 3: "BJ"}, kitty="SK C5 LJ LJ"))
    hand.fix(0, fix("BJ", "H7 H7"))
    pass_to_end_of_fixing(hand)
    taker = hand.kitty_taker
    assert taker == 2 and hand.hand_sizes[taker] == 30 and not hand.trump_revealed
    cards = hand.hand_cards(taker)
    assert_refused(hand, lambda h: h.bury(taker, card_list(cards[:3])), "exactly 4")
    assert_refused(hand, lambda h: h.bury(taker, card_list(cards[:5])), "exactly 4")
    assert_refused(hand, lambda h: h.bury(taker, "BJ BJ BJ BJ"), "not in hand")
    assert_refused(hand, lambda h: h.bury(0, card_list(cards[:4])), "seat 2's turn")
    hand.bury(taker, "SK C5 LJ LJ")  # points and jokers may be buried
    assert hand.kitty == sorted(parse_cards("SK C5 LJ LJ")) and hand.hand_sizes == [26] * 4
    at(hand, taker, GuafengPhase.PLAY)
    assert hand.ruleset.lead_error(hand.ctx, hand.hands[taker], parse_cards("C9 C9")) is None
    assert_refused(hand, lambda h: h.play(taker, "C9 C9"), "first lead of a hand is exactly one card")
    assert all(len(p) == 1 for p in hand.legal_plays().plays)
    hand.play(taker, [hand.hand_cards(taker)[0]])
    assert hand.trump_revealed and hand.events[-1] == {"type": "trump", "trump": "H", "level": "A"}
    assert_refused(hand, lambda h: h.play(0, [h.hand_cards(0)[0]]), "seat 3's turn")


# ---------------------------------------------------------------------------- 捡底 and the score (sections 8, 9, 12)

def example_1(stage_run: int = 0, stage_limit: int = 7) -> GuafengHand:
    """Seed case (1): the defenders take 20 in tricks; the stage team ruffs the last trick, a pair; kitty LJ."""
    rules = GuafengRules(GuafengOptions(stage_limit=stage_limit))
    hand = GuafengHand.from_deal(["H4 D8 D9", "HA D7 D7", "HK S4 S4", "CK C6 C7"], "LJ C8 C9 H6", dealer=0,
                                 trump="S", rules=rules, team_levels=("T", "A"), buried=True, stage_run=stage_run)
    for seat, cards in [(0, "H4"), (1, "HA"), (2, "HK"), (3, "CK"),
                        (1, "D7 D7"), (2, "S4 S4"), (3, "C6 C7"), (0, "D8 D9")]:
        hand.play(seat, cards)
    return hand


def test_seed_example_1_the_stage_team_takes_the_kitty_off_the_defenders():
    hand = example_1()
    result = hand.result
    assert isinstance(result, GuafengResult) and hand.phase == GuafengPhase.DONE
    assert (result.trick_points, result.kitty_points, result.kitty_multiplier) == (20, 80, 2)
    assert (result.kitty_bonus, result.defender_points) == (-160, -140)
    assert (result.winner, result.levels) == ("dealers", 6)
    assert RULES.advance_level("T", result.levels) == "3"
    assert result.next_dealer == 2 and not result.stage_limit_reached  # held: dealer seat + 2


@pytest.mark.parametrize("stage_run, stage_limit, reached, next_dealer", [
    (5, 7, False, 2), (6, 7, True, 1), (0, 1, True, 1), (40, 0, False, 2),
])
def test_stage_limit_moves_a_holding_stage_team_off_after_its_last_hand(stage_run, stage_limit, reached,
                                                                        next_dealer):
    result = example_1(stage_run, stage_limit).result
    assert (result.stage_run, result.stage_limit_reached, result.next_dealer) == (stage_run + 1, reached,
                                                                                  next_dealer)
    assert (result.winner, result.levels) == ("dealers", 6)  # its levels of the hand still count


def test_seed_example_5_the_defenders_pick_up_the_kitty_with_a_six_card_run():
    hand = GuafengHand.from_deal(["C4 H6 H7 H9 HJ HQ HA", "CA D9 DT DJ DQ DK DA", "C6 H6 H7 H9 HJ HQ HA",
                                  "C7 C9 C9 CJ CQ H4 H4"], "LJ C8 C8 D6", dealer=0, trump="S",
                                 team_levels=("8", "5"), buried=True)
    for seat, cards in [(0, "C4"), (1, "CA"), (2, "C6"), (3, "C7"), (1, "D9 DT DJ DQ DK DA"),
                        (2, "H6 H7 H9 HJ HQ HA"), (3, "C9 C9 CJ CQ H4 H4"), (0, "H6 H7 H9 HJ HQ HA")]:
        hand.play(seat, cards)
    result = hand.result
    assert (result.trick_points, result.kitty_points, result.kitty_multiplier) == (20, 80, 6)
    assert (result.defender_points, result.winner, result.levels) == (500, "defenders", 10)
    assert RULES.advance_level("5", 10) == "2" and result.next_dealer == 1  # defenders on stage: seat + 1


def test_illegal_plays_are_refused_without_a_change():
    hand = GuafengHand.from_deal(["H4 D8 D9", "HA D7 D7", "HK S4 S4", "CK C6 C7"], "LJ C8 C9 H6", dealer=0,
                                 trump="S", team_levels=("T", "A"), buried=True)
    assert_refused(hand, lambda h: h.play(0, "D8 D9"), "exactly one card")
    assert_refused(hand, lambda h: h.play(0, "SA"), "not in hand")
    assert_refused(hand, lambda h: h.play(0, "H4 D8 D9 XX"), "malformed")
    hand.play(0, "H4")
    assert_refused(hand, lambda h: h.play(1, "D7"), "your H card")  # holds a heart: must follow hearts
    assert_refused(hand, lambda h: h.play(1, "HA D7"), "exactly 1 card")
    for seat, cards in [(1, "HA"), (2, "HK"), (3, "CK")]:
        hand.play(seat, cards)
    assert_refused(hand, lambda h: h.play(1, "D7 D8"), "not in hand")
    hand.play(1, "D7 D7")
    assert_refused(hand, lambda h: h.play(2, "S4"), "exactly 2 card")
    assert_refused(hand, lambda h: h.bury(2, "S4 S4 HK C6"), "phase play")


# ---------------------------------------------------------------------------- logs and the public record

def finish_randomly(hand: GuafengHand, rng: random.Random) -> GuafengHand:
    """Play the hand to its end with random legal decisions."""
    while hand.phase != GuafengPhase.DONE:
        seat = hand.current_player
        if hand.phase in (GuafengPhase.DEAL, GuafengPhase.FINAL_FIX):
            options = hand.fix_options(seat)
            hand.act(seat, rng.choice(options) if rng.random() < 0.4 else None)
        elif hand.phase == GuafengPhase.GIVE_BACK:
            chosen: list[int] = []
            while len(chosen) < hand.give_back_count:
                chosen.append(rng.choice(hand.give_back_options(seat, chosen)))
            hand.act(seat, chosen)
        elif hand.phase == GuafengPhase.KITTY:
            hand.act(seat, rng.sample(hand.hand_cards(seat), 4))
        else:
            hand.act(seat, rng.choice(hand.legal_plays(seat, 40).plays))
    return hand


@pytest.mark.parametrize("seed", range(6))
def test_a_log_replays_the_hand_exactly(seed):
    rules = make_ruleset("guafeng", {"stage_limit": 3})
    hand = finish_randomly(rules.new_hand(seed, dealer=None if seed < 2 else seed % 4,
                                          team_levels=("K", "3"), stage_run=seed % 3), random.Random(seed))
    log = json.loads(json.dumps(hand.to_log()))
    replay = GuafengHand.from_log(log)
    assert replay.to_log() == hand.to_log() and replay.result == hand.result and replay.hands == hand.hands
    tampered = copy.deepcopy(log)
    last_play = max(i for i, d in enumerate(tampered["decisions"]) if d["action"] == "play")
    tampered["decisions"][last_play]["cards"] = ["BJ", "BJ", "BJ"]
    with pytest.raises(IllegalActionError):
        GuafengHand.from_log(tampered)


def test_deck_and_deal_logs_replay_too():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7", 1: "LJ S8 S8 S9 S9"}))
    hand.fix(0, fix("BJ", "H7 H7"))
    hand.fix(1, fix("LJ", "S8 S8 S9 S9"))
    hand.give_back(1, "BJ H7 H7")
    finish_randomly(hand, random.Random(1))
    assert GuafengHand.from_log(hand.to_log()).to_log() == hand.to_log()
    assert GuafengHand.from_log(example_1().to_log()).result == example_1().result
    with pytest.raises(ValueError, match="ruleset 'guafeng'"):
        GuafengHand.from_log({**hand.to_log(), "ruleset": "standard", "options": {}, "layout": None})


def test_a_seat_sees_the_shown_jokers_and_the_base_size_but_not_anothers_base():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7"}))
    hand.fix(0, fix("BJ", "H7 H7"))
    mine = next(e for e in hand.visible_events(0) if e["type"] == "fix")
    theirs = next(e for e in hand.visible_events(1) if e["type"] == "fix")
    assert mine["private"] == {"base": ["H7", "H7"]} and "private" not in theirs
    assert (theirs["jokers"], theirs["base_size"], theirs["seat"]) == (["BJ"], 2, 0)
    assert all("private" not in e for e in hand.visible_events(3) if e["type"] == "shuffle")
