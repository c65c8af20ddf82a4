"""The options of RULES.md 9: 炒地皮 (``chaodipi``) and 进贡 (``tribute``).

The spec's examples and decisions as cases, bad input, random complete hands and
matches with each option on (RULES.md 10 invariants, replay from the log), the
environment's masks against brute force at the new decision points, the
observation, and the bots.
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from agents.bots.expert import ExpertAgent
from agents.bots.greedy import GreedyAgent
from agents.bots.random_agent import RandomAgent, random_decision
from env.core.actions import FIRST_BID, NUM_ACTIONS, PASS
from env.core.cards import CARD_NAMES, NUM_KINDS, RANKS, counts_of, kinds_of, parse_cards, points_of
from env.core.errors import IllegalActionError
from env.shengji_env import env
from env.standard.actions import action_bid
from env.standard.bidding import Bid, StandingBid
from env.standard.encoding import ObservationEncoder, observation_size
from env.standard.hand import Hand, Phase
from env.standard.match import Match
from env.standard.ruleset import StandardRules
from env.standard.variants import RuleOptions
from env.standard.view import view_of
from tests.test_game import check_finished_hand, snapshot

CHAODIPI = RuleOptions(chaodipi=True)
TRIBUTE = RuleOptions(tribute=True)
BOTH = RuleOptions(chaodipi=True, tribute=True)
S, H, C, D = range(4)


def assert_refused(hand: Hand, request, reason: str) -> None:
    """The request raises IllegalActionError naming ``reason`` and changes nothing."""
    before = snapshot(hand)
    extra = (hand.rebids[:], hand.tribute_cards[:], hand.returned_cards[:], hand.buried_by, hand.rebid_passes)
    with pytest.raises(IllegalActionError, match=reason):
        request(hand)
    assert snapshot(hand) == before
    assert (hand.rebids, hand.tribute_cards, hand.returned_cards, hand.buried_by, hand.rebid_passes) == extra


# ---------------------------------------------------------------------------- options

def test_options_are_off_by_default_and_left_out_of_the_standard_dict():
    assert not RuleOptions().chaodipi and not RuleOptions().tribute
    assert "chaodipi" not in RuleOptions().to_dict() and "tribute" not in RuleOptions().to_dict()
    assert RuleOptions.from_dict(BOTH.to_dict()) == BOTH
    assert BOTH.to_dict()["chaodipi"] is True and BOTH.to_dict()["tribute"] is True


@pytest.mark.parametrize("name", ["chaodipi", "tribute"])
def test_a_bad_option_value_names_the_option(name):
    with pytest.raises(ValueError, match=name):
        RuleOptions(**{name: "yes"})


def test_a_tribute_hand_needs_the_option_and_a_dealer():
    with pytest.raises(ValueError, match="tribute"):
        Hand.new(1, level="7", dealer=0, tribute=True)
    with pytest.raises(ValueError, match="dealer"):
        Hand.new(1, TRIBUTE, tribute=True)


# ---------------------------------------------------------------------------- tribute order (RULES.md 9 examples)

@pytest.mark.parametrize(("cards", "expected"), [
    ("LJ S7 HA HA D2", {"LJ"}),
    ("S7 HA C7 D2", {"S7", "C7"}),
    ("HA SK D2", {"HA"}),
])
def test_the_tribute_is_the_highest_card_of_the_suit_blind_order(cards, expected):
    choices = StandardRules(TRIBUTE).tribute_choices(counts_of(parse_cards(cards)), RANKS.index("7"))
    assert choices == sorted(parse_cards(" ".join(expected)))


def test_constant_twos_rank_above_the_ace_in_the_tribute_order():
    rules = StandardRules(RuleOptions(tribute=True, constant_twos=True))
    assert rules.tribute_choices(counts_of(parse_cards("HA D2 SK")), RANKS.index("7")) == parse_cards("D2")
    plain = StandardRules(TRIBUTE)
    assert plain.tribute_choices(counts_of(parse_cards("HA D2 SK")), RANKS.index("7")) == parse_cards("HA")
    assert plain.tribute_choices(counts_of(parse_cards("BJ LJ S7")), RANKS.index("7")) == parse_cards("BJ")


# ---------------------------------------------------------------------------- tribute hand

def tribute_hand(seed: int = 4, options: RuleOptions = TRIBUTE, dealer: int = 2) -> Hand:
    """A tribute hand at level 7, bid at random, stopped at the first tribute card."""
    rng = random.Random(seed)
    hand = Hand.new(seed, options, level="7", dealer=dealer, tribute=True)
    while hand.phase.is_bidding:
        random_decision(hand, rng)
    return hand


def test_tribute_comes_after_the_bidding_and_before_the_kitty():
    hand = tribute_hand()
    assert hand.phase == Phase.TRIBUTE and hand.ctx is not None and len(hand.kitty) == 8
    dealer = hand.dealer
    givers = [(dealer + 1) % 4, (dealer + 3) % 4]
    standing, ctx = hand.standing, hand.ctx
    sizes = list(hand.hand_sizes)
    for giver in givers:
        assert hand.current_player == giver
        card = hand.tribute_options()[0]
        assert card in StandardRules(TRIBUTE).tribute_choices(hand.hands[giver], hand.level_rank)
        hand.give_tribute(giver, card)
    assert hand.phase == Phase.TRIBUTE_RETURN and hand.current_player == dealer
    assert [g for g, _ in hand.tribute_cards] == givers
    for giver in givers:
        assert hand.return_to() == giver
        hand.return_tribute(dealer, hand.return_options()[-1])
    assert hand.phase == Phase.KITTY and hand.current_player == dealer
    assert hand.hand_sizes[dealer] == sizes[dealer] + 8
    assert [hand.hand_sizes[g] for g in givers] == [sizes[g] for g in givers]
    assert (hand.standing, hand.ctx) == (standing, ctx)  # the bid and the trump stand
    assert hand.cards_accounted() == 108


def test_illegal_tribute_requests_are_refused_and_change_nothing():
    hand = tribute_hand()
    giver = hand.current_player
    held = kinds_of(hand.hands[giver])
    low = next(k for k in held if k not in hand.tribute_options())
    assert_refused(hand, lambda h: h.give_tribute(giver, low), "highest")
    missing = next(k for k in range(NUM_KINDS) if not hand.hands[giver][k])
    assert_refused(hand, lambda h: h.give_tribute(giver, missing), "not in hand")
    assert_refused(hand, lambda h: h.give_tribute((giver + 1) % 4, low), "turn")
    assert_refused(hand, lambda h: h.give_tribute(giver, held[:2]), "one card")
    assert_refused(hand, lambda h: h.return_tribute(hand.dealer, held[0]), "phase")
    assert_refused(hand, lambda h: h.bury(giver, held[:8]), "phase")


def test_the_dealer_cannot_return_a_tribute_card():
    hand = tribute_hand()
    while hand.phase == Phase.TRIBUTE:
        hand.give_tribute(hand.current_player, hand.tribute_options()[0])
    dealer = hand.dealer
    given = [k for _, k in hand.tribute_cards]
    for kind in set(given):
        own = hand.hands[dealer][kind] - given.count(kind)
        if own:  # the dealer's own copy of the same card may go back
            assert kind in hand.return_options()
        else:
            assert kind not in hand.return_options()
            assert_refused(hand, lambda h, k=kind: h.return_tribute(dealer, k), "tribute card")
    assert_refused(hand, lambda h: h.return_tribute((dealer + 1) % 4, hand.return_options()[0]), "turn")


def test_the_tribute_is_public_and_the_returned_card_private():
    hand = tribute_hand()
    while hand.phase == Phase.TRIBUTE:
        hand.give_tribute(hand.current_player, hand.tribute_options()[0])
    hand.return_tribute(hand.dealer, hand.return_options()[0])
    giver = hand.returned_cards[0][0]
    for seat in range(4):
        view = view_of(hand, seat)
        assert view.tribute_cards == tuple(hand.tribute_cards)
        knows = seat in (giver, hand.dealer)
        assert view.returned_cards == (tuple(hand.returned_cards) if knows else ())


def test_tribute_hand_replays_from_its_log():
    rng = random.Random(9)
    hand = tribute_hand(9, BOTH)
    while hand.phase != Phase.DONE:
        random_decision(hand, rng)
    check_finished_hand(hand)
    log = json.loads(json.dumps(hand.to_log()))
    assert log["setup"]["tribute"] is True
    replay = Hand.from_log(log)
    assert replay.to_log() == hand.to_log() and replay.result == hand.result


# ---------------------------------------------------------------------------- 炒地皮

def chaodipi_hand() -> Hand:
    """Level 2, trump S from a turned card (strength 0), dealer 0, a small deal ready for the burial."""
    return Hand.from_deal(["S3 S4 S5 S6 S7", "H2 H2 C3 C4 C5", "D2 D2 D3 D4 D5", "LJ LJ BJ BJ C6"],
                          "SK SK C8 C9 DT DJ DQ DK", level="2", dealer=0, trump="S", rules=CHAODIPI)


def test_chaodipi_round_strictly_stronger_reinforce_and_four_passes():
    hand = chaodipi_hand()
    kitty = parse_cards("SK SK C8 C9 DT DJ DQ DK")
    hand.bury(0, kitty)
    assert hand.phase == Phase.REBID and hand.buried_by == 0
    # The seat after the dealer begins; any bid beats the turned card's strength 0.
    assert hand.current_player == 1
    assert hand.rebid_options() == [Bid(1, H), Bid(2, H)]
    assert_refused(hand, lambda h: h.rebid(1, Bid(1, D)), "cannot re-bid")
    hand.rebid(1, Bid(1, H))
    # The bidder takes up the 8 kitty cards and buries 8; the trump is the new bid's.
    assert hand.phase == Phase.KITTY and hand.current_player == 1 and hand.hand_sizes[1] == 13
    assert hand.ctx.trump_suit == H and hand.dealer == 0
    hand.bury(1, parse_cards("C3 C4 C5 SK SK C8 C9 DT"))
    assert hand.phase == Phase.REBID and hand.buried_by == 1 and hand.rebid_passes == 0
    # Equal strength never overturns: seat 2 may only bid its pair.
    assert hand.current_player == 2 and hand.rebid_options() == [Bid(2, D)]
    assert_refused(hand, lambda h: h.rebid(2, Bid(1, D)), "strictly")
    hand.pass_rebid(2)
    assert hand.current_player == 3
    hand.pass_rebid(3)
    # Seat 0 holds no bid and passes on its own; seat 1 may only reinforce its single (加固).
    assert hand.current_player == 1 and hand.rebid_options() == [Bid(2, H)]
    hand.rebid(1, Bid(2, H))
    hand.bury(1, parse_cards("C3 C4 C5 SK SK C8 C9 DT"))
    # Pair D no longer beats pair H: seat 2 passes on its own; seat 3 bids BJ BJ.
    assert hand.current_player == 3 and hand.rebid_options() == [Bid(3, None), Bid(4, None)]
    hand.rebid(3, Bid(4, None))
    assert hand.ctx.trump_suit is None
    burial = parse_cards("BJ BJ SK SK C3 C4 DT C6")  # the cards shown for the bid may be buried
    hand.bury(3, burial)
    # After BJ BJ nobody can bid: four passes in a row end the phase; the dealer leads.
    assert hand.phase == Phase.PLAY and hand.current_player == 0 and hand.leader == 0
    assert hand.rebids[-4:] == [(0, None), (1, None), (2, None), (3, None)]
    assert [b for _, b in hand.rebids if b] == [Bid(1, H), Bid(2, H), Bid(4, None)]
    assert hand.kitty == sorted(burial) and hand.buried_by == 3
    assert view_of(hand, 3).kitty == tuple(sorted(burial)) and view_of(hand, 0).kitty is None
    assert view_of(hand, 2).buried_by == 3
    # The kitty that counts is the last one buried.
    rng = random.Random(0)
    while hand.phase != Phase.DONE:
        random_decision(hand, rng)
    assert hand.result.kitty_points == points_of(burial)
    replay = Hand.from_log(json.loads(json.dumps(hand.to_log())))
    assert replay.to_log() == hand.to_log() and replay.kitty == hand.kitty


def test_chaodipi_refuses_out_of_turn_and_out_of_phase():
    hand = chaodipi_hand()
    assert_refused(hand, lambda h: h.rebid(1, Bid(1, H)), "phase")
    hand.bury(0, parse_cards("SK SK C8 C9 DT DJ DQ DK"))
    assert_refused(hand, lambda h: h.rebid(2, Bid(2, D)), "turn")
    assert_refused(hand, lambda h: h.pass_rebid(3), "turn")
    assert_refused(hand, lambda h: h.rebid(1, "H2"), "cannot re-bid")
    assert_refused(hand, lambda h: h.play(1, parse_cards("C3")), "phase")


def test_chaodipi_standing_bid_from_the_deal_is_the_floor():
    rules = StandardRules(CHAODIPI)
    counts = counts_of(parse_cards("H2 H2 S2 LJ LJ"))
    standing = StandingBid(0, Bid(2, S))
    assert rules.available_bids(counts, 0, 1, standing) == [Bid(3, None)]
    assert rules.available_bids(counts, 0, 0, StandingBid(0, Bid(1, S))) == []  # own: reinforce only
    assert rules.available_bids(counts_of(parse_cards("S2 S2")), 0, 0, StandingBid(0, Bid(1, S))) == [Bid(2, S)]


# ---------------------------------------------------------------------------- random hands and matches

@pytest.mark.parametrize("options", [CHAODIPI, TRIBUTE, BOTH], ids=["chaodipi", "tribute", "both"])
def test_random_hands_keep_the_invariants_and_replay(options):
    rebids = 0
    for seed in range(60):
        rng = random.Random(seed)
        tribute = options.tribute and seed % 2 == 0
        hand = Hand.new(seed, options, level="7" if tribute else None, dealer=seed % 4 if tribute else None,
                        tribute=tribute)
        while hand.phase != Phase.DONE:
            assert hand.cards_accounted() == 108
            random_decision(hand, rng, max_plays=24)
        rebids += sum(1 for _, b in hand.rebids if b)
        check_finished_hand(hand)
        assert hand.result.kitty_points == points_of(hand.kitty)
        replay = Hand.from_log(json.loads(json.dumps(hand.to_log())))
        assert replay.to_log() == hand.to_log() and replay.result == hand.result
    if options.chaodipi:
        assert rebids > 0


def big_light_hand(match: Match) -> Hand:
    """A one-card scripted hand in which the dealers take every point: P = 0 (大光)."""
    hand = Hand.from_deal(["SA", "S3", "SK", "S4"], "S5 S6 S7 S8 S9 ST SJ SQ", level="2", dealer=0, trump="H",
                          rules=match.ruleset, buried=True, team_levels=tuple(match.team_levels))
    for seat, card in enumerate(["SA", "S3", "SK", "S4"]):
        hand.play(seat, card)
    return hand


def test_a_big_light_hand_makes_the_next_hand_a_tribute_hand():
    match = Match(3, TRIBUTE)
    hand = big_light_hand(match)
    assert hand.result.winner == "dealers" and hand.result.defender_points <= 0
    match.record(hand)
    assert match.tribute_next
    nxt = match.new_hand()
    assert nxt.tribute_hand and nxt.dealer == 2 and nxt.level == match.team_levels[0]
    rng = random.Random(1)
    while nxt.phase.is_bidding:
        random_decision(nxt, rng)
    # Its defenders, the team that scored P <= 0, give in seat order from the dealer.
    assert nxt.phase == Phase.TRIBUTE and nxt.current_player == 3
    plain = Match(3)
    plain.record(big_light_hand(plain))
    assert not plain.tribute_next and not plain.new_hand().tribute_hand


def test_random_matches_with_both_options():
    for seed in range(2):
        match = Match(seed, BOTH, max_hands=6)
        rng = random.Random(seed)
        while match.winner is None and match.hands_played < match.max_hands:
            expected = match.tribute_next
            hand = match.new_hand()
            assert hand.tribute_hand == expected
            while hand.phase != Phase.DONE:
                random_decision(hand, rng, max_plays=16)
            check_finished_hand(hand)
            match.record(hand)
            held = hand.result.winner == "dealers"
            assert match.tribute_next == (held and hand.result.defender_points <= 0)


# ---------------------------------------------------------------------------- environment

def brute_force_mask(hand: Hand) -> np.ndarray:
    """Every action the engine accepts at a RULES.md 9 decision point, tried on copies."""
    seat = hand.current_player
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for action in range(NUM_ACTIONS):
        trial = copy.deepcopy(hand)
        try:
            if hand.phase == Phase.REBID:
                if action != PASS and action < FIRST_BID:
                    continue  # a card is no bid
                trial.pass_rebid(seat) if action == PASS else trial.rebid(seat, action_bid(action))
            elif hand.phase == Phase.TRIBUTE:
                trial.give_tribute(seat, action)
            else:
                trial.return_tribute(seat, action)
        except (IllegalActionError, IndexError):
            continue
        mask[action] = 1
    return mask


def test_masks_match_brute_force_at_the_new_decision_points():
    environment = env(rules=BOTH.to_dict())
    checked = {Phase.REBID: 0, Phase.TRIBUTE: 0, Phase.TRIBUTE_RETURN: 0}
    for seed in range(40):
        environment.reset(seed=seed)
        raw = environment.unwrapped
        if seed % 2 == 0:  # a tribute hand
            raw.hand = Hand.new(seed, raw.ruleset, level="9", dealer=seed % 4, tribute=True)
            raw._begin_decision()
        rng = np.random.default_rng(seed)
        for _agent in environment.agent_iter():
            obs, _, term, trunc, _ = environment.last()
            if term or trunc:
                environment.step(None)
                continue
            hand = raw.hand
            if hand.phase in checked:
                checked[hand.phase] += 1
                assert np.array_equal(obs["action_mask"], brute_force_mask(hand)), hand.phase
            if hand.phase == Phase.KITTY and hand.current_player != hand.dealer and raw.decision.picked == []:
                # A 炒地皮 bidder's burial: any of its cards, as the dealer's.
                seat = hand.current_player
                assert hand.hand_sizes[seat] == 33
                assert np.array_equal(obs["action_mask"][:NUM_KINDS], np.array(hand.hands[seat]) > 0)
                checked["reburial"] = checked.get("reburial", 0) + 1
            if hand.phase == Phase.PLAY:
                break  # the play masks have their own tests
            environment.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert all(checked.values()) and checked.get("reburial"), checked


def test_an_illegal_action_at_a_tribute_raises_and_changes_nothing():
    environment = env(rules=TRIBUTE.to_dict())
    environment.reset(seed=1)
    raw = environment.unwrapped
    raw.hand = tribute_hand(4)
    raw._begin_decision()
    mask = raw.action_mask()
    bad = next(a for a in range(NUM_KINDS) if not mask[a])
    before = snapshot(raw.hand)
    with pytest.raises(IllegalActionError):
        environment.step(bad)
    assert snapshot(raw.hand) == before and np.array_equal(raw.action_mask(), mask)


def test_standard_observation_is_unchanged_and_the_variant_block_is_extra():
    assert observation_size("canonical") == 1871 and observation_size("raw") == 1415
    assert observation_size("canonical", StandardRules()) == 1871
    canonical = observation_size("canonical", StandardRules(BOTH))
    assert canonical == observation_size("canonical", StandardRules(CHAODIPI)) > 1871
    environment = env(rules={"tribute": True})
    assert environment.observation_space("player_0")["observation"].shape == (canonical,)


def test_observation_shows_the_tribute_cards_and_who_buried():
    hand = tribute_hand(4, BOTH)
    encoder = ObservationEncoder("canonical", None, StandardRules(BOTH))
    before = encoder.encode(hand, 0)
    giver = hand.current_player
    hand.give_tribute(giver, hand.tribute_options()[0])
    for seat in range(4):
        after = encoder.encode(hand, seat)
        assert np.array_equal(after, encoder.encode(view_of(hand, seat), seat))
    assert not np.array_equal(encoder.encode(hand, 0)[1871:], before[1871:])


# ---------------------------------------------------------------------------- bots

@pytest.mark.parametrize("make", [lambda s: RandomAgent(s), lambda s: GreedyAgent(s), lambda s: ExpertAgent(s)],
                         ids=["random", "greedy", "expert"])
def test_bots_take_the_new_decisions(make):
    for seed in range(4):
        agents = [make(seed * 4 + s) for s in range(4)]
        hand = Hand.new(seed, BOTH, level="8", dealer=seed % 4, tribute=True)
        while hand.phase != Phase.DONE:
            seat = hand.current_player
            hand.act(seat, agents[seat].act(view_of(hand, seat)))
        check_finished_hand(hand)
        assert len(hand.tribute_cards) == 2 and len(hand.returned_cards) == 2


def test_expert_returns_a_cheap_card_and_reinforces_its_own_bid():
    hand = tribute_hand(4)
    while hand.phase == Phase.TRIBUTE:
        hand.give_tribute(hand.current_player, hand.tribute_options()[0])
    expert = ExpertAgent()
    view = view_of(hand, hand.dealer)
    card = expert.act(view)
    given = [k for _, k in hand.tribute_cards]
    assert card in view.tribute_options
    assert hand.hands[hand.dealer][card] > given.count(card)
    hand = chaodipi_hand()
    hand.bury(0, parse_cards("SK SK C8 C9 DT DJ DQ DK"))
    hand.rebid(1, Bid(1, H))
    hand.bury(1, parse_cards("C3 C4 C5 SK SK C8 C9 DT"))
    hand.pass_rebid(2)
    hand.pass_rebid(3)
    assert expert.act(view_of(hand, 1)) == Bid(2, H)  # 加固


# ---------------------------------------------------------------------------- people: the session and the web page

def _session_to(session, phases) -> None:
    """Let agents act and take the hint for the person at seat 0 until the person decides in one of ``phases``."""
    while not (session.human_to_act and session.hand.phase in phases):
        assert not session.hand_over, "the hand ended first"
        if session.ai_to_act:
            session.step_ai()
        elif session.hand.phase.takes_bids:
            session.bid(0, session.hint(0))
        elif session.hand.phase in (Phase.TRIBUTE, Phase.TRIBUTE_RETURN):
            session.submit(0, [session.hint(0)])
        else:
            session.submit(0, session.hint(0))


def test_a_person_gives_and_returns_tribute_cards_in_the_session():
    from ui.session import GameSession

    for dealer, phase in ((0, Phase.TRIBUTE_RETURN), (1, Phase.TRIBUTE)):
        session = GameSession(["human", "greedy", "greedy", "greedy"], seed=2, rules=BOTH.to_dict())
        session.match.dealer, session.match.tribute_next = dealer, True  # as after a 大光 hand
        session.hand = session._deal()
        assert session.hand.tribute_hand
        _session_to(session, (phase,))
        options = session.card_options(0)
        assert set(session.selection(0, []).addable) == set(options)
        bad = next(k for k in range(NUM_KINDS) if k not in options)
        before = snapshot(session.hand)
        with pytest.raises(IllegalActionError):
            session.submit(0, [bad])
        with pytest.raises(IllegalActionError):
            session.selection(0, [bad])
        assert snapshot(session.hand) == before
        assert session.selection(0, [options[0]]).complete
        told = len(session.messages)
        session.submit(0, [options[0]])
        # the person's own card is told (not only the AI seats' tributes from before)
        assert any(("returned a card to" if dealer == 0 else f"gave {CARD_NAMES[options[0]]}") in m
                   for m in session.messages[told:])


def test_a_person_can_bid_in_a_chaodipi_round_in_the_session():
    from ui.session import GameSession

    for seed in range(40):
        session = GameSession(["human", "random", "random", "random"], seed=seed, rules=CHAODIPI.to_dict(),
                              episode="hand")
        try:
            _session_to(session, (Phase.REBID,))
        except AssertionError:
            continue
        options = session.bid_options(0)
        assert options == session.hand.rebid_options(0) and options
        session.bid(0, options[0])
        assert session.hand.phase == Phase.KITTY and session.hand.current_player == 0
        return
    pytest.fail("no 炒地皮 turn for the person in 40 hands")


def test_the_web_state_offers_the_new_decisions():
    from ui.session import GameSession
    from ui.web.state import state_json

    session = GameSession(["human", "greedy", "greedy", "greedy"], seed=2, rules=BOTH.to_dict())
    session.match.dealer, session.match.tribute_next = 1, True
    session.hand = session._deal()
    _session_to(session, (Phase.TRIBUTE,))
    state = state_json("g", session, 0, session.selection(0, []))
    assert state["phase"] == "tribute" and state["selection"]["action"] == "tribute"
    assert state["selection"]["addable"]
    session.submit(0, [session.card_options(0)[0]])
    while session.hand.phase == Phase.TRIBUTE:
        session.step_ai()
    state = state_json("g", session, 0, None)
    assert [t["seat"] for t in state["tribute_cards"]] == [2, 0]  # in seat order from the dealer (seat 1)
    assert state["return_to"] == 2


def test_a_tribute_hand_is_played_over_the_websocket():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # starlette warns about its httpx transport on import
        from fastapi.testclient import TestClient
    from tests.test_web import until_turn
    from ui.web.server import WebSettings, create_app

    app = create_app(WebSettings(seats=("human", "greedy", "greedy", "greedy"), ai_delay=0.0, rules=BOTH.to_dict()))
    client = TestClient(app)
    created = client.post("/api/games", json={"seed": 3}).json()
    game_id, token = created["id"], created["links"][0]["token"]
    session = app.state.games[game_id].session
    session.match.dealer, session.match.tribute_next = 0, True  # we deal a tribute hand: we return two cards
    session.hand = session._deal()
    actions = []
    with client.websocket_connect(f"/ws/{game_id}?token={token}") as ws:
        while True:
            state = until_turn(ws)
            if state["result"]:
                break
            if state["phase"] in ("deal", "final_bid", "rebid"):
                ws.send_json({"type": "pass"})
                actions.append("pass")
                continue
            selection = state["selection"]
            while not selection["complete"] or (selection["needed"] is None and not selection["cards"]):
                ws.send_json({"type": "select", "cards": [*selection["cards"], selection["addable"][0]]})
                selection = ws.receive_json()["selection"]
            ws.send_json({"type": selection["action"], "cards": selection["cards"]})
            actions.append(selection["action"])
    assert actions.count("return") == 2 and "bury" in actions
    assert len(session.hand.tribute_cards) == 2


@pytest.mark.parametrize(("dealer", "word"), [(0, "You return"), (1, "You give")])
def test_a_person_takes_the_tribute_decisions_in_the_terminal(dealer, word):
    import io

    from rich.console import Console

    from env.core.cards import CARD_NAMES
    from ui.session import GameSession
    from ui.terminal import TerminalGame

    session = GameSession(["human", "greedy", "greedy", "greedy"], seed=2, rules=BOTH.to_dict())
    session.match.dealer, session.match.tribute_next = dealer, True
    session.hand = session._deal()
    out = io.StringIO()

    def answer(prompt: str) -> str:
        if prompt.startswith("next"):
            return "q"
        if prompt.startswith("bid"):
            return "p"
        if prompt.startswith(("tribute", "return")):
            return CARD_NAMES[session.card_options(0)[0]]
        return " ".join(CARD_NAMES[k] for k in session.hint(0))

    TerminalGame(session, Console(file=out, width=140), input_fn=answer).run()
    text = out.getvalue()
    assert word in text and session.hand_over
