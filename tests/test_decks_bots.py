"""The rule bots and the evaluation deals with 1, 3 and 4 decks (RULES.md 11).

Every bot plays whole hands with only legal decisions; the expert reads triples
and tractors of triples as units (leads them whole, keeps them when it discards)
and counts what it has seen with ``d`` copies per card; each deck count has its
own saved deal set, and a deal file of another deck count is refused.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from test_agents import CheckedAgent

from agents.bots.card_tracker import CardTracker
from agents.bots.expert import ExpertAgent
from agents.bots.expert_play import build_shaped
from agents.bots.heuristics import suit_components
from agents.evaluation.deals import check_deal, deal_hand, default_deals_file, load_deals, make_deal
from agents.registry import make_agent
from agents.runner import play_hand
from env.core.cards import POINTS, counts_of, parse_cards
from env.core.registry import make_ruleset
from env.core.suits import TRUMP
from env.standard import tuples
from env.standard.hand import Phase
from env.standard.view import view_of

ROOT = Path(__file__).resolve().parents[1]
OTHER_DECKS = (1, 3, 4)
SPADES = 0


def rules_of(decks: int):
    """The standard game with ``decks`` decks."""
    return make_ruleset("standard", {"decks": decks})


@pytest.mark.parametrize("decks", OTHER_DECKS)
@pytest.mark.parametrize("bot", ["random", "greedy", "expert"])
def test_bots_play_whole_hands_legally(bot, decks):
    rules = rules_of(decks)
    layout = rules.layout
    for i in range(3):
        agents = [CheckedAgent(make_agent(bot, i * 4 + seat)) for seat in range(4)]
        dealer = None if i == 0 else i % 4  # a first hand: the bidding decides the dealer
        hand = play_hand(rules.new_hand(500 + i, dealer=dealer, team_levels=("5", "5")), agents)
        assert hand.phase == Phase.DONE
        assert hand.cards_accounted() == layout.deck_size
        played = sum(len(p) for t in hand.tricks for p in t.plays)
        assert played == layout.dealt_cards
        # Every point is in a trick or the kitty: 100 per deck.
        assert sum(POINTS[k] for t in hand.tricks for p in t.plays for k in p) + \
            sum(POINTS[k] for k in hand.kitty) == 100 * decks


@pytest.mark.parametrize("decks", (3, 4))
def test_expert_leads_tuples_larger_than_pairs(decks):
    # Over a few hands the expert leads triples (or tractors of them) whole: it reads them as units.
    rules = rules_of(decks)
    leads: list[tuple[int, ...]] = []
    for i in range(4):
        agents = [CheckedAgent(ExpertAgent()) for _ in range(4)]
        play_hand(rules.new_hand(700 + i, dealer=i % 4), agents)
        leads += [lead for a in agents for lead in a.leads]
    most = max(max(lead.count(k) for k in lead) for lead in leads)
    assert most >= 3


def _scenario(hands: list[str], decks: int = 3, trump: str = "H", dealer: int = 0):
    return rules_of(decks).hand_from_deal({"hands": hands, "kitty": "", "level": "2", "dealer": dealer,
                                          "trump": trump, "buried": True})


def test_expert_leads_a_low_tractor_of_triples_whole():
    # Nothing is sure and there are no trumps to draw: the low pointless tractor goes, all six cards of it
    # (the two-deck reading would see a tractor of pairs and two singles).
    hand = _scenario(["S3 S3 S3 S4 S4 S4 C9 DT", "C3 C4 C6 C7 C8 CJ CQ CK", "D3 D4 D6 D7 D8 DJ DQ DK",
                      "S6 S7 S8 S9 SJ SQ C2 D2"])
    view = view_of(hand, 0)
    spades = suit_components(view.ctx, view.hand, SPADES)
    assert [tuples.shape_of(c) for c in spades] == [(3, 2)]
    assert sorted(ExpertAgent().act(view)) == sorted(parse_cards("S3 S3 S3 S4 S4 S4"))


def test_expert_keeps_a_triple_when_it_discards():
    # Seat 2 is void in diamonds and cannot win: it discards two cards, and keeps its triple of threes
    # (S4 S6) rather than break it (S3 S3) to save the cheapest cards.
    hand = _scenario(["C3 C4 C6 C7 C8", "DA DA C9 CT CJ", "S3 S3 S3 S4 S6", "D3 D4 D6 D7 D8"], dealer=1)
    hand.play(1, parse_cards("DA DA"))
    view = view_of(hand, 2)
    assert sorted(ExpertAgent().act(view)) == sorted(parse_cards("S4 S6"))


def test_expert_ruffs_a_triple_with_a_trump_triple():
    # A triple of clubs (30 points) is led; seat 1 is void in clubs: its shaped ruff is a trump triple, built
    # from the lead's requirements, and the expert takes the points with it (not H3 H7 and a spade).
    hand = _scenario(["CK CK CK S3 S4", "H3 H3 H3 H7 S6", "C3 C4 C6 S7 S8", "CT CJ CQ S9 ST"])
    hand.play(0, parse_cards("CK CK CK"))
    view = view_of(hand, 1)
    ruff = build_shaped(view, TRUMP, highest=False)
    assert sorted(ruff) == sorted(parse_cards("H3 H3 H3"))
    assert view.play_error(list(ruff)) is None
    assert sorted(ExpertAgent().act(view)) == sorted(parse_cards("H3 H3 H3"))


def test_card_tracker_counts_d_copies_and_reads_degraded_duties():
    # Four decks: a quad lead that seat 1 cannot meet asks it for one pair only (RULES.md 11), so its
    # follow S9 S9 S3 S4 says nothing about its other pair (SJ SJ); it holds no more spades than that.
    hand = _scenario(["S5 S5 S5 S5 C3 C4", "S9 S9 SJ SJ S3 S4", "C6 C7 C8 C9 CT CJ", "D3 D4 D6 D7 D8 D9"],
                     decks=4, dealer=0)
    hand.play(0, parse_cards("S5 S5 S5 S5"))
    hand.play(1, parse_cards("S9 S9 S3 S4"))
    hand.play(2, parse_cards("C6 C7 C8 C9"))
    tracker = CardTracker(view_of(hand, 3))
    assert tracker.unseen[parse_cards("SK")[0]] == 4
    assert tracker.unseen[parse_cards("S9")[0]] == 2
    assert tracker.void[2][SPADES] and not tracker.void[1][SPADES]
    assert not tracker.no_pairs[1][SPADES]
    # What is unseen could still beat a pair of spades above SJ (the SJ pair, or an unseen SQ pair).
    jack = view_of(hand, 3).ctx.order[parse_cards("SJ")[0]]
    assert tracker.can_beat_shape((2, 1), jack - 1, SPADES, [1])


def test_card_tracker_breaks_a_quad_for_a_triple():
    # Four decks: the unseen kings (all four copies) can be broken for a triple above our triple of queens;
    # nothing unseen is above a triple of aces.
    hand = _scenario(["SQ SQ SQ C3", "C4 C6 C7 C8", "C9 CT CJ CQ", "D3 D4 D6 D7"], decks=4)
    view = view_of(hand, 0)
    tracker = CardTracker(view)
    queens = suit_components(view.ctx, view.hand, SPADES)[0]
    assert tuples.shape_of(queens) == (3, 1)
    assert tracker.can_beat(queens, SPADES)
    aces = suit_components(view.ctx, counts_of(parse_cards("SA SA SA")), SPADES)[0]
    assert not tracker.can_beat(aces, SPADES)


# ---------------------------------------------------------------------- the evaluation deals

def test_deal_files_are_named_by_deck_count():
    assert default_deals_file(0) == "data/eval_deals_seed0.json"
    assert default_deals_file(1, rules_of(2)) == "data/eval_deals_seed1.json"
    assert default_deals_file(0, "guafeng") == "data/eval_deals_guafeng_seed0.json"
    for decks in OTHER_DECKS:
        assert default_deals_file(0, rules_of(decks)) == f"data/eval_deals_decks{decks}_seed0.json"
        assert default_deals_file(1, {"decks": decks}) == f"data/eval_deals_decks{decks}_seed1.json"


@pytest.mark.parametrize("decks", OTHER_DECKS)
def test_shipped_deal_sets_deal_their_cards(decks):
    rules = rules_of(decks)
    for seed in (0, 1):
        path = ROOT / default_deals_file(seed, rules)
        data = json.loads(path.read_text())
        assert data["decks"] == decks and data["seed"] == seed and len(data["deals"]) == 1000
        deals = load_deals(path, seed, 3, rules)
        assert deals == [make_deal(seed, i, rules) for i in range(3)]
        for deal in deals:
            check_deal(deal, deal_hand(deal, rules, deal.dealer))
    # The same recipe (seed, index) as the two-deck set, so the same hand seed, but other cards.
    two_deck = load_deals(ROOT / default_deals_file(0), 0, 1)[0]
    own = load_deals(ROOT / default_deals_file(0, rules), 0, 1, rules)[0]
    assert own.hand_seed == two_deck.hand_seed and own.deck_digest != two_deck.deck_digest


def test_a_deal_file_of_another_deck_count_is_refused(tmp_path):
    with pytest.raises(ValueError, match=r"holds deals for 3 deck\(s\), asked for 2 deck\(s\)"):
        load_deals(ROOT / default_deals_file(0, rules_of(3)), 0, 5)
    with pytest.raises(ValueError, match=r"holds deals for 2 deck\(s\), asked for 4 deck\(s\).*eval_deals_decks4"):
        load_deals(ROOT / default_deals_file(0), 0, 5, rules_of(4))
    path = tmp_path / "deals.json"
    made = load_deals(path, 5, 4, rules_of(1))
    assert json.loads(path.read_text())["decks"] == 1
    assert load_deals(path, 5, 4, rules_of(1)) == made
    with pytest.raises(ValueError, match="deck"):
        load_deals(path, 5, 4, rules_of(3))


def test_evaluate_cli_plays_three_decks_on_its_own_deals(tmp_path):
    out = tmp_path / "run"
    command = [sys.executable, "evaluate.py", "rules=three_decks", "participants=[expert,random]", "num_deals=2",
               "workers=1", "progress=false", f"hydra.run.dir={out}"]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    data = json.loads((out / "results.json").read_text())
    assert data["config"]["rules"]["decks"] == 3
    assert data["num_deals"] == 2
    refused = subprocess.run(command[:-1] + ["deals_file=data/eval_deals_seed0.json", f"hydra.run.dir={out}2"],
                             cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0 and "holds deals for 2 deck(s), asked for 3 deck(s)" in refused.stderr
