"""Rule variants: validation, and each option changes what it should and nothing else."""

from __future__ import annotations

import json
import random

import pytest

from env.core.cards import NUM_KINDS, RANKS, parse_cards, points_of
from env.core.suits import TRUMP
from env.standard.hand import Hand, Phase
from env.standard.moves import legal_follows, legal_leads
from env.standard.scoring import kitty_multiplier_of, score_table
from env.standard.tricks import Lead
from env.standard.trump import trump_context
from env.standard.variants import RuleOptions

# ---------------------------------------------------------------------------- validation


def test_defaults_are_the_marked_ones():
    options = RuleOptions()
    assert options.to_dict() == {
        "constant_twos": False, "level_sequence": None, "tractor_skips_level": True, "big_joker_pair": "no_trump",
        "no_bid": "turn_kitty", "throw_penalty": 0, "kitty_multiplier": "exponential", "takeover": "plain",
        "threshold": 80, "step": 40, "win": "defend_A"}
    assert options.levels == tuple(RANKS) and options.top_level == "A"


@pytest.mark.parametrize("bad", [
    {"big_joker_pair": "jokers"}, {"no_bid": "pass"}, {"kitty_multiplier": "square"}, {"takeover": "plus_two"},
    {"win": "reach_K"}, {"constant_twos": 1}, {"tractor_skips_level": "no"}, {"throw_penalty": -10},
    {"throw_penalty": 1.5}, {"threshold": 0}, {"step": 0}, {"step": True}, {"level_sequence": ("5", "5", "K")},
    {"level_sequence": ("K", "T", "5")}, {"level_sequence": ("5", "X")}, {"level_sequence": ()},
    {"constant_twos": True, "level_sequence": ("2", "5")},
])
def test_bad_options_raise_value_error_naming_the_option(bad):
    with pytest.raises(ValueError) as info:
        RuleOptions(**bad)
    assert any(name in str(info.value) for name in bad)


def test_from_dict_rejects_unknown_keys_and_round_trips():
    with pytest.raises(ValueError, match="unknown rule option"):
        RuleOptions.from_dict({"trump_fives": True})
    options = RuleOptions(level_sequence=("5", "10", "K"), takeover="plus_one", throw_penalty=10)
    assert options.level_sequence == ("5", "T", "K")
    data = json.loads(json.dumps(options.to_dict()))
    assert RuleOptions.from_dict(data) == options
    assert RuleOptions.from_dict(None) == RuleOptions()


def test_constant_twos_levels_start_at_three():
    assert RuleOptions(constant_twos=True).levels == tuple(RANKS[1:])
    with pytest.raises(ValueError):
        Hand.new(1, RuleOptions(constant_twos=True), level="2")


def test_level_sequence_5_t_k():
    options = RuleOptions(level_sequence=("5", "T", "K"))
    assert options.levels == ("5", "T", "K") and options.top_level == "K"
    assert Hand.new(1, options).level == "5"
    with pytest.raises(ValueError, match="level sequence"):
        Hand.new(1, options, level="2")


# ---------------------------------------------------------------------------- trump tables


def test_tractor_skips_level_false_only_opens_a_gap_at_the_level_rank():
    on, off = trump_context("T", "H"), trump_context("T", "H", RuleOptions(tractor_skips_level=False))
    assert on.suit == off.suit
    level = RANKS.index("T")
    for kind in range(NUM_KINDS):
        rank = kind % 13 if kind < 52 else None
        above = kind >= 52 or rank > level or (on.suit[kind] == TRUMP and rank == level)
        assert off.order[kind] == on.order[kind] + (1 if above else 0), kind


@pytest.mark.parametrize("level", ["2", "A"])
def test_tractor_skips_level_false_changes_nothing_at_2_or_a(level):
    on, off = trump_context(level, "S"), trump_context(level, "S", RuleOptions(tractor_skips_level=False))
    assert on.order == off.order and on.suit == off.suit


def test_constant_twos_only_adds_the_twos_to_trump():
    plain, twos = trump_context("7", "D"), trump_context("7", "D", RuleOptions(constant_twos=True))
    assert {k for k in range(54) if twos.is_trump[k]} == (
        {k for k in range(54) if plain.is_trump[k]} | {s * 13 for s in range(4)})
    for suit in range(4):  # plain suits keep their relative order, one index lower
        kinds = [k for k in plain.suit_kinds[suit] if k % 13 != 0]
        assert [twos.order[k] for k in kinds] == [plain.order[k] - 1 for k in kinds]


def test_big_joker_pair_master_context_only_jokers_trump():
    ctx = trump_context("9", None, RuleOptions(big_joker_pair="master"), jokers_only=True)
    assert ctx.suit_kinds[TRUMP] == (52, 53)
    assert [ctx.order[k] for k in parse_cards("S8 S9 ST")] == [6, 7, 8]


# ---------------------------------------------------------------------------- scoring-only options: replay


def random_hand(seed: int, options: RuleOptions | None = None) -> Hand:
    rng = random.Random(seed)
    hand = Hand.new(seed, options)
    while hand.phase != Phase.DONE:
        seat = hand.current_player
        if hand.phase.is_bidding:
            choice = rng.choice([None, *hand.bid_options(seat)])
            hand.pass_bid(seat) if choice is None else hand.bid(seat, choice)
        elif hand.phase == Phase.KITTY:
            cards = [k for k in range(54) for _ in range(hand.hands[seat][k])]
            hand.bury(seat, rng.sample(cards, 8))
        else:
            moves = (legal_leads(hand.ctx, hand.hands[seat], 32) if hand.lead is None
                     else legal_follows(hand.ctx, hand.hands[seat], hand.lead, 32))
            hand.play(seat, list(rng.choice(moves.plays)))
    return hand


@pytest.fixture(scope="module")
def hands():
    return [random_hand(seed) for seed in range(40)]


def replay_with(hand: Hand, **changes) -> Hand:
    log = hand.to_log()
    log["options"] = {**log["options"], **changes}
    return Hand.from_log(log)


def test_kitty_multiplier_linear_changes_only_the_kitty_bonus(hands):
    for hand in hands:
        other = replay_with(hand, kitty_multiplier="linear")
        assert other.tricks == hand.tricks
        last_lead = Lead(hand.ctx, hand.tricks[-1].plays[0])
        multiplier = kitty_multiplier_of(last_lead.components, "linear")
        assert other.result.kitty_multiplier == multiplier
        bonus = other.result.kitty_bonus
        assert bonus == (hand.result.kitty_bonus // hand.result.kitty_multiplier) * multiplier
        assert other.result.defender_points - bonus == hand.result.defender_points - hand.result.kitty_bonus


@pytest.mark.parametrize("changes", [
    {"takeover": "plus_one"}, {"threshold": 100, "step": 30}, {"threshold": 60, "step": 20}, {"win": "reach_A"},
    {"no_bid": "redeal"}, {"big_joker_pair": "master"},
])
def test_scoring_and_other_options_do_not_change_play(hands, changes):
    replayed = 0
    for hand in hands:
        bids = [d for d in hand.decisions if d["action"] == "bid"]
        if "no_bid" in changes and not bids:
            continue  # without a bid the option does apply
        if "big_joker_pair" in changes and bids and bids[-1]["strength"] == 4:
            continue
        other = replay_with(hand, **changes)
        replayed += 1
        assert other.tricks == hand.tricks and other.kitty == hand.kitty
        points = hand.result.defender_points
        assert other.result.defender_points == points
        options = other.options
        expected = score_table(points, takeover=options.takeover, threshold=options.threshold, step=options.step)
        assert (other.result.winner, other.result.levels) == expected
        if changes.get("takeover") == "plus_one" and hand.result.winner == "defenders":
            assert other.result.levels == hand.result.levels + 1
    assert replayed >= 20


def test_throw_penalty_changes_only_the_defender_points(hands):
    failed = 0
    for hand in hands:
        other = replay_with(hand, throw_penalty=10)
        assert other.tricks == hand.tricks
        charged = 0
        for event in other.events:
            if event["type"] == "throw_failed":
                taken_back = len(event["attempted"]) - len(event["played"])
                assert event["penalty"] == 10 * taken_back
                charged += event["penalty"] if other.is_dealer_team(event["seat"]) else -event["penalty"]
                failed += 1
        assert other.result.defender_points == hand.result.defender_points + charged
    assert failed > 0


def test_big_joker_pair_master_changes_a_big_joker_hand():
    for seed in range(200):
        hand = random_hand(seed)
        bids = [d for d in hand.decisions if d["action"] == "bid"]
        if bids and bids[-1]["strength"] == 4:
            break
    else:
        pytest.skip("no big-joker bid in 200 random hands")
    assert hand.ctx.no_trump and not hand.ctx.jokers_only
    other = Hand.new(seed, RuleOptions(big_joker_pair="master"))
    for decision in hand.decisions:
        if other.phase in (Phase.KITTY, Phase.PLAY):
            break
        other.apply_decision(decision)
    assert other.ctx.jokers_only
    assert sum(other.ctx.is_trump) == 2


def test_constant_twos_hand_plays_to_the_end_with_twos_as_trump():
    for seed in range(30):
        hand = random_hand(seed, RuleOptions(constant_twos=True))
        assert hand.level == "3" and all(hand.ctx.is_trump[s * 13] for s in range(4))
        assert sum(t.points for t in hand.tricks) + points_of(hand.kitty) == 200


def test_tractor_skips_level_false_hands_play_to_the_end():
    for seed in range(30):
        hand = random_hand(seed, RuleOptions(tractor_skips_level=False, level_sequence=("5", "T", "K")))
        assert hand.cards_accounted() == 108 and hand.result is not None
