"""What one seat may see of a 刮风 hand (env/guafeng/view.py, RULES-guafeng.md section 5 "What is public").

A view answers every decision as the hand does (random hands), and hides what
the seat may not know: another seat's base, the trump mode before the first
lead, the 回牌 cards to the two seats outside it, the kitty to all but its taker.
"""

from __future__ import annotations

import random

import pytest

from env.core.cards import parse_cards
from env.core.registry import make_ruleset
from env.guafeng.encoding import GuafengEncoder
from env.guafeng.hand import GuafengHand, GuafengPhase
from env.guafeng.view import GuafengView, guafeng_view_of
from tests.test_guafeng_hand import at, deck_of, fix, pass_to_end_of_fixing
from ui.guafeng_words import narrate_guafeng

RULES = make_ruleset("guafeng", {})


def test_the_rule_sets_view_of_gives_a_guafeng_view():
    hand = RULES.new_hand(1)
    view = RULES.view_of(hand, hand.current_player)
    assert isinstance(view, GuafengView) and view.decision == "fix"
    assert view == guafeng_view_of(hand, hand.current_player)


def random_decision(hand: GuafengHand, view: GuafengView, rng: random.Random):
    """A random legal decision chosen from the view alone, checked against the hand's own answers."""
    seat = view.seat
    if view.decision == "fix":
        assert view.fix_options() == hand.fix_options(seat)
        return rng.choice(view.fix_options()) if rng.random() < 0.5 else None
    if view.decision == "give_back":
        chosen: list[int] = []
        for _ in range(view.give_back_count):
            options = view.give_back_options(chosen)
            assert options == hand.give_back_options(seat, chosen)
            chosen.append(rng.choice(options))
        assert view.give_back_error(chosen) is None
        return chosen
    if view.decision == "bury":
        cards = [k for k in range(54) for _ in range(view.hand[k])]
        return rng.sample(cards, RULES.layout.kitty_size)
    plays = view.legal_plays()
    assert plays == hand.legal_plays(seat)
    play = rng.choice(plays.plays)
    assert view.play_error(play) is None and hand.play_error(seat, list(play)) is None
    return play


@pytest.mark.parametrize("seed", range(12))
def test_a_view_answers_every_decision_as_the_hand_and_never_shows_the_hidden_trump(seed):
    rng = random.Random(seed)
    hand = RULES.new_hand(seed, dealer=None if seed % 3 == 0 else seed % 4, team_levels=("A", "5"))
    while hand.phase != GuafengPhase.DONE:
        views = [guafeng_view_of(hand, s) for s in range(4)]
        for view in views:
            knows = hand.trump_revealed or (hand.standing is not None and hand.standing.seat == view.seat)
            assert view.trump_known == knows
            if not knows:
                assert view.ctx is None and view.trump is None
            assert (view.kitty is not None) == (view.seat == hand.buried_by or hand.phase == GuafengPhase.DONE)
            assert view.hand == tuple(hand.hands[view.seat])
            assert (view.decision is not None) == (view.seat == hand.current_player)
        hand.act(hand.current_player, random_decision(hand, views[hand.current_player], rng))
    assert all(guafeng_view_of(hand, s).result == hand.result for s in range(4))


def test_a_base_is_seen_by_its_maker_and_its_eater_and_the_exchange_by_both():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7", 1: "LJ C4 D5 S8 S8 S9 S9"}))
    hand.fix(0, fix("BJ", "H7 H7"))
    hand.fix(1, fix("LJ", "S8 S8 S9 S9"))
    giver = guafeng_view_of(hand, 1)
    assert giver.decision == "give_back" and giver.give_back_to == 0
    assert (giver.give_back_count, giver.give_back_constants) == (3, 1)
    assert set(giver.give_back_options()) >= set(parse_cards("H7 D5"))
    assert parse_cards("S8")[0] not in giver.give_back_options()  # its new fix stays
    assert guafeng_view_of(hand, 2).give_back_options() == []
    hand.give_back(1, "H7 H7 D5")
    views = {s: guafeng_view_of(hand, s) for s in range(4)}
    first, second = views[2].fixes
    # public: jokers, base size, who ate whom, counts exchanged
    assert (first.jokers, first.base_size, first.base) == (tuple(parse_cards("BJ")), 2, None)
    assert (second.eaten, second.taken_count, second.given_count) == (0, 3, 3)
    assert second.base is None and second.taken is None and second.given is None and second.taken_jokers is None
    assert views[0].fixes[1].taken_jokers == views[1].fixes[1].taken_jokers == 1
    assert views[0].fixes[0].base == tuple(parse_cards("H7 H7"))  # laid it
    assert views[1].fixes[0].base == tuple(parse_cards("H7 H7"))  # ate it
    assert views[0].fixes[1].base is None                          # was eaten: does not see the eater's base
    assert views[1].fixes[1].base == tuple(parse_cards("S8 S8 S9 S9"))
    for seat in (0, 1):
        assert views[seat].fixes[1].taken == tuple(parse_cards("BJ H7 H7"))
        assert views[seat].fixes[1].given == tuple(sorted(parse_cards("D5 H7 H7")))
    assert views[1].trump_known and views[1].trump == "S"
    assert not views[0].trump_known and views[0].trump is None and views[0].standing_fix.base is None
    assert views[3].standing_seat == 1 and views[3].standing_fix.strength == (1, 2)


def _joker_base_or_pair_base(base: str) -> list[str]:
    """Seat 1 is dealt ``BJ`` + ``base`` (``LJ LJ`` or ``H9 H9``), seat 2 ``BJ S7 S7 S8 S8``: the same deal
    for seats 0 and 3, the pair the base does not use lying in the kitty."""
    deck = deck_of({1: "BJ LJ LJ", 2: "BJ S7 S7 S8 S8"}, kitty="H9 H9")
    if base == "LJ LJ":
        return deck
    return ["H9" if card == "LJ" else "LJ" if card == "H9" else card for card in deck]


def test_bystanders_cannot_tell_an_eaten_joker_base_from_a_pair_base():
    """Section 5: public are the shown jokers, the base's size and the count exchanged; the jokers taken
    (one more than shown when the base is ``LJ LJ``, 打常主) only to the eater and the eaten."""
    encoder = GuafengEncoder()
    hands = {}
    for base in ("LJ LJ", "H9 H9"):
        hand = GuafengHand.from_deck(_joker_base_or_pair_base(base))
        at(hand, 1)
        hand.fix(1, fix("BJ", base))
        at(hand, 2)
        hand.fix(2, fix("BJ", "S7 S7 S8 S8"))
        at(hand, 2, GuafengPhase.GIVE_BACK)
        hands[base] = hand
    joker, pair = hands["LJ LJ"], hands["H9 H9"]
    assert (joker.give_back_constants, pair.give_back_constants) == (3, 1)

    def seen(hand: GuafengHand, seat: int):
        return (guafeng_view_of(hand, seat), encoder.encode(hand, seat).tolist(), hand.visible_events(seat),
                [line for line in narrate_guafeng(hand, 0, str) if line[0] in (None, seat)])

    def compare() -> None:
        for seat in (0, 3):
            assert seen(joker, seat) == seen(pair, seat)
        for seat in (1, 2):  # the eaten and the eater know
            assert guafeng_view_of(joker, seat) != guafeng_view_of(pair, seat)

    view = guafeng_view_of(joker, 3)
    assert view.give_back_constants is None and view.fixes[1].taken_jokers is None
    assert view.give_back_count == 3 and view.fixes[1].taken_count == 3
    assert [guafeng_view_of(joker, s).give_back_constants for s in (1, 2)] == [3, 3]
    assert [guafeng_view_of(joker, s).fixes[1].taken_jokers for s in (1, 2)] == [3, 3]
    compare()
    joker.give_back(2, "BJ LJ LJ")
    pair.give_back(2, "BJ H9 H9")
    compare()
    pass_to_end_of_fixing(joker)
    pass_to_end_of_fixing(pair)
    compare()


def test_the_taker_sees_the_kitty_and_the_trump_goes_public_with_the_first_lead():
    hand = GuafengHand.from_deck(deck_of({0: "BJ H7 H7"}))
    hand.fix(0, fix("BJ", "H7 H7"))
    pass_to_end_of_fixing(hand)
    taker = hand.kitty_taker
    assert taker == 2  # the stage fixer's partner
    view = guafeng_view_of(hand, taker)
    assert view.decision == "bury" and len(view.kitty_received) == 4 and view.kitty is None
    assert not view.trump_known and view.ctx is None
    assert all(guafeng_view_of(hand, s).kitty_received is None for s in (0, 1, 3))
    assert guafeng_view_of(hand, 0).ctx is not None  # the fixer knows its own trump
    cards = [k for k in range(54) for _ in range(view.hand[k])][:4]
    hand.bury(taker, cards)
    view = guafeng_view_of(hand, taker)
    assert view.kitty == tuple(sorted(cards)) and view.decision == "lead" and view.first_lead
    assert len(view.legal_plays().plays) == sum(1 for n in view.hand if n)
    assert "exactly one card" in view.play_error(cards[:2])
    assert guafeng_view_of(hand, 1).kitty is None
    hand.play(taker, view.legal_plays().plays[0])
    assert all(guafeng_view_of(hand, s).trump == "H" and guafeng_view_of(hand, s).ctx is hand.ctx
               for s in range(4))
