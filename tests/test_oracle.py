"""Brute-force oracle: an independent reading of RULES.md checked against the engine.

Nothing here imports the engine's combination or rules code: card strength,
decomposition, the follow profile, format matching, the throw check and the
trick winner are rebuilt from the prose of RULES.md sections 2, 3 and 6 on
card names, by plain enumeration. It is slow and only meant for small hands;
its value is that it is written differently from ``env/``, so a shared
misreading is unlikely. The engine is only called in the tests at the bottom,
on thousands of random small positions drawn by hypothesis.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations, product

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from env.core.cards import card_list, counts_of, parse_cards
from env.rules import is_legal_play, resolve_throw, trick_winner
from env.standard.hand import Hand, Phase
from env.standard.moves import legal_follows, legal_leads
from env.standard.tricks import Lead, follow_error
from env.standard.trump import trump_context

RANKS = "23456789TJQKA"
TRUMP = "trump"


def order_table(level: str, trump: str | None) -> dict[str, tuple[str, int]]:
    """card name -> (effective suit, order index), written from RULES.md section 2.

    Trump, weakest first: the trump suit's other ranks, then the off-suit level
    cards (one equal group), then the trump suit's level card, LJ, BJ. Plain
    suits: their ranks skipping the level rank.
    """
    plain = [r for r in RANKS if r != level]
    table: dict[str, tuple[str, int]] = {}
    for suit in "SHCD":
        if suit != trump:
            for i, rank in enumerate(plain):
                table[suit + rank] = (suit, i)
    groups: list[list[str]] = [[trump + r] for r in plain] if trump else []
    groups.append([s + level for s in "SHCD" if s != trump])
    if trump:
        groups.append([trump + level])
    groups += [["LJ"], ["BJ"]]
    for i, group in enumerate(groups):
        for card in group:
            table[card] = (TRUMP, i)
    return table


class Oracle:
    """Rules of one hand (level, trump; default variants) on card-name multisets."""

    def __init__(self, level: str, trump: str | None):
        self.table = order_table(level, trump)

    def suit(self, card: str) -> str:
        return self.table[card][0]

    def index(self, card: str) -> int:
        return self.table[card][1]

    # -------------------------------------------------------------- combinations
    def tractors_in(self, pair_kinds: list[str], k: int) -> list[tuple[str, ...]]:
        """Every choice of k pairs (by kind) with consecutive indices, one pair per index."""
        by_index: dict[int, list[str]] = {}
        for card in pair_kinds:
            by_index.setdefault(self.index(card), []).append(card)
        found = []
        for start in by_index:
            if all(start + j in by_index for j in range(k)):
                found.extend(product(*(by_index[start + j] for j in range(k))))
        return found

    def decompose(self, cards: list[str]) -> list[tuple[str, tuple[str, ...]]]:
        """Canonical components as (shape, pair kinds or single card); shapes 'T<k>', 'P', 'S'."""
        counts = Counter(cards)
        pairs = [c for c, n in counts.items() if n == 2]
        comps = []
        while True:
            best = None
            for k in range(len(pairs), 1, -1):
                found = self.tractors_in(pairs, k)
                if found:
                    best = found[0]
                    break
            if best is None:
                break
            comps.append((f"T{len(best)}", best))
            for card in best:
                pairs.remove(card)
        comps += [("P", (c,)) for c in pairs]
        singles = [c for c, n in counts.items() if n == 1]
        comps += [("S", (c,)) for c in singles]
        return comps

    def format_of(self, cards: list[str]) -> tuple[tuple[int, ...], int]:
        """(tractor lengths longest first, standalone pairs) of a lead."""
        comps = self.decompose(cards)
        tractors = sorted((len(p) for s, p in comps if s.startswith("T")), reverse=True)
        return tuple(tractors), sum(1 for s, _ in comps if s == "P")

    def profile(self, cards: list[str], tractors: tuple[int, ...], pairs: int) -> tuple[int, ...]:
        """The follow profile of RULES.md 6, by trying every choice of tractor and pairs."""
        held_pairs = tuple(sorted(c for c, n in Counter(cards).items() if n == 2))

        def walk(avail: tuple[str, ...], lengths: tuple[int, ...]) -> tuple[int, ...]:
            if not lengths:
                return (min(pairs, len(avail)),)
            k, rest = lengths[0], lengths[1:]
            options = self.tractors_in(list(avail), k)
            if options:
                return max((1, k) + walk(tuple(c for c in avail if c not in t), rest) for t in options)
            m = min(k, len(avail))
            return max((0, m) + walk(tuple(c for c in avail if c not in chosen), rest)
                       for chosen in combinations(avail, m))

        return walk(held_pairs, tractors)

    def is_legal_follow(self, hand: list[str], play: list[str], lead: list[str]) -> bool:
        """RULES.md 6, following, read literally."""
        if len(play) != len(lead) or Counter(play) - Counter(hand):
            return False
        suit = self.suit(lead[0])
        held = [c for c in hand if self.suit(c) == suit]
        played = [c for c in play if self.suit(c) == suit]
        if len(held) <= len(lead):
            return len(played) == len(held)
        if len(played) != len(lead):
            return False
        return self.meets_shape(played, held, lead)

    def meets_shape(self, played: list[str], held: list[str], lead: list[str]) -> bool:
        """The shape duty: the played cards of the lead suit do as well as the whole holding of it."""
        tractors, pairs = self.format_of(lead)
        return self.profile(played, tractors, pairs) == self.profile(held, tractors, pairs)

    def is_legal_lead(self, hand: list[str], play: list[str]) -> bool:
        """A lead attempt: held cards, at least one, all of one effective suit."""
        return bool(play) and not Counter(play) - Counter(hand) and len({self.suit(c) for c in play}) == 1

    # -------------------------------------------------------------- throws and tricks
    def throw_forced(self, lead: list[str], others: list[list[str]]) -> list[list[str]]:
        """The components the throw may be cut to: [] if it stands, else the candidates (ties)."""
        comps = self.decompose(lead)
        if len(comps) == 1:
            return []
        suit = self.suit(lead[0])
        beatable = []
        for shape, cards in comps:
            top = max(self.index(c) for c in cards)
            for hand in others:
                mine = [c for c in hand if self.suit(c) == suit]
                pair_kinds = [c for c, n in Counter(mine).items() if n == 2]
                if shape == "S":
                    beaten = any(self.index(c) > top for c in mine)
                elif shape == "P":
                    beaten = any(self.index(c) > top for c in pair_kinds)
                else:
                    k = len(cards)
                    beaten = any(max(self.index(c) for c in t) > top for t in self.tractors_in(pair_kinds, k))
                if beaten:
                    size = 1 if shape == "S" else 2 * len(cards)
                    expanded = list(cards) if shape == "S" else [c for c in cards for _ in range(2)]
                    beatable.append(((top, size), sorted(expanded)))
                    break
        if not beatable:
            return []
        low = min(key for key, _ in beatable)
        return [cards for key, cards in beatable if key == low]

    def _assignments(self, play: list[str], tractors: tuple[int, ...], pairs: int):
        """Every way to give each lead tractor a distinct tractor and each lead pair a pair from ``play``.

        Yields the list of (slot shape, top index) given to the tractors and pairs.
        """
        pair_kinds = tuple(sorted(c for c, n in Counter(play).items() if n == 2))

        def walk(avail, lengths, pairs_left):
            if lengths:
                k = lengths[0]
                for t in self.tractors_in(list(avail), k):
                    top = max(self.index(c) for c in t)
                    for rest in walk(tuple(c for c in avail if c not in t), lengths[1:], pairs_left):
                        yield [(f"T{k}", top), *rest]
                return
            if pairs_left > len(avail):
                return
            for chosen in combinations(avail, pairs_left):
                yield [("P", self.index(c)) for c in chosen]

        yield from walk(pair_kinds, tractors, pairs)

    def trick_winner(self, plays: list[list[str]]) -> int:
        """RULES.md 6, who wins the trick, read literally."""
        lead = plays[0]
        suit = self.suit(lead[0])
        comps = self.decompose(lead)
        throw = len(comps) > 1
        tractors, pairs = self.format_of(lead)
        best, best_kind, best_key = 0, "lead", None if throw else max(self.index(c) for c in lead)
        for i, play in enumerate(plays[1:], start=1):
            suits = {self.suit(c) for c in play}
            if suits == {suit}:
                if throw or best_kind == "ruff":
                    continue
                mine = self.decompose(play)
                if len(mine) == 1 and mine[0][0] == comps[0][0] and len(mine[0][1]) == len(comps[0][1]):
                    key = max(self.index(c) for c in play)
                    if key > best_key:
                        best, best_key = i, key
                continue
            if suit == TRUMP or suits != {TRUMP}:
                continue
            options = list(self._assignments(play, tractors, pairs))
            if not options:
                continue
            if tractors:
                key = max(top for a in options for shape, top in a if shape == f"T{tractors[0]}")
            elif pairs:
                key = max(top for a in options for shape, top in a if shape == "P")
            else:
                key = max(self.index(c) for c in play)
            if best_kind != "ruff" or key > best_key:
                best, best_kind, best_key = i, "ruff", key
        return best


# ---------------------------------------------------------------------------
# Random small positions (hypothesis) and the checks against the engine.
# ---------------------------------------------------------------------------

TRUMPS = [None, "S", "H", "C", "D"]


@st.composite
def small_table(draw):
    """Level, trump and a small universe of card names that makes pairs and tractors likely."""
    level = draw(st.sampled_from(RANKS))
    trump = draw(st.sampled_from(TRUMPS))
    suits = draw(st.lists(st.sampled_from("SHCD"), min_size=1, max_size=2, unique=True))
    if trump and draw(st.booleans()):
        suits = sorted(set(suits) | {trump})
    low = draw(st.integers(0, len(RANKS) - 5))
    ranks = set(RANKS[low:low + 5]) | {level}
    universe = sorted({s + r for s in suits for r in ranks} | {s + level for s in "SHCD"} | {"LJ", "BJ"})
    return level, trump, universe


def _draw_counts(draw, universe, limit, size_range):
    counts = {c: draw(st.integers(0, limit[c])) for c in universe}
    cards = [c for c in universe for _ in range(counts[c])]
    lo, hi = size_range
    if len(cards) > hi:
        cards = sorted(draw(st.permutations(cards))[:hi])
    return cards if len(cards) >= lo else None


@st.composite
def follow_position(draw):
    """(level, trump, hand of 4-12 cards, lead of 1-6 cards of one effective suit)."""
    level, trump, universe = draw(small_table())
    oracle = Oracle(level, trump)
    suits = sorted({oracle.suit(c) for c in universe})
    lead_suit = draw(st.sampled_from(suits))
    lead_universe = [c for c in universe if oracle.suit(c) == lead_suit]
    lead = _draw_counts(draw, lead_universe, dict.fromkeys(lead_universe, 2), (1, 6))
    assume(lead is not None)
    used = Counter(lead)
    hand = _draw_counts(draw, universe, {c: 2 - used[c] for c in universe}, (0, 12))
    filler = [s + r for s in "SHCD" for r in RANKS if s + r not in universe]
    while len(hand) < max(4, len(lead)):
        hand.append(filler.pop(draw(st.integers(0, len(filler) - 1))))
    return level, trump, sorted(hand), lead


def _kinds(cards):
    return parse_cards(cards)


def _sub_multisets(cards: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(sorted(c)) for c in combinations(sorted(cards), n)}


@settings(max_examples=1000, deadline=None)
@given(follow_position())
def test_follow_legality_matches_oracle(position):
    level, trump, hand, lead = position
    oracle = Oracle(level, trump)
    ctx = trump_context(level, trump)
    engine_lead = Lead(ctx, _kinds(lead))
    counts = counts_of(_kinds(hand))
    expected = {p for p in _sub_multisets(hand, len(lead)) if oracle.is_legal_follow(hand, list(p), lead)}
    generated = legal_follows(ctx, counts, engine_lead)
    assert not generated.truncated
    assert {tuple(sorted(card_list(p))) for p in generated.plays} == expected
    assert len(generated.plays) == len(set(generated.plays)), "duplicate plays generated"
    for play in _sub_multisets(hand, len(lead)):
        ok = follow_error(ctx, counts, _kinds(play), engine_lead) is None
        assert ok == (play in expected), (play, follow_error(ctx, counts, _kinds(play), engine_lead))


@settings(max_examples=300, deadline=None)
@given(follow_position(), st.data())
def test_referee_is_legal_play_matches_oracle(position, data):
    level, trump, hand, lead = position
    oracle = Oracle(level, trump)
    plays = sorted(_sub_multisets(hand, len(lead)))
    play = list(data.draw(st.sampled_from(plays)))
    level_arg = "10" if level == "T" and data.draw(st.booleans()) else level
    got = is_legal_play(" ".join(hand), play, level=level_arg, trump=trump, lead=lead)
    assert got == oracle.is_legal_follow(hand, play, lead)
    lead_play = list(data.draw(st.sampled_from(sorted(_sub_multisets(hand, data.draw(st.integers(1, 3))))))) \
        if len(hand) >= 3 else hand[:1]
    assert is_legal_play(hand, lead_play, level=level, trump=trump) == oracle.is_legal_lead(hand, lead_play)


@settings(max_examples=400, deadline=None)
@given(follow_position())
def test_legal_leads_are_every_one_suit_subset(position):
    level, trump, hand, _ = position
    hand = hand[:9]
    oracle = Oracle(level, trump)
    ctx = trump_context(level, trump)
    subsets = [p for n in range(1, len(hand) + 1) for p in _sub_multisets(hand, n)]
    expected = {p for p in subsets if oracle.is_legal_lead(hand, list(p))}
    generated = legal_leads(ctx, counts_of(_kinds(hand)))
    assert not generated.truncated
    names = [tuple(sorted(card_list(p))) for p in generated.plays]
    assert set(names) == expected
    assert len(names) == len(set(names))
    # Singles, pairs and tractors come first, before any throw attempt.
    shapes = [len(Oracle(level, trump).decompose(list(p))) for p in names]
    assert shapes == sorted(shapes, key=lambda s: s > 1)


@settings(max_examples=200, deadline=None)
@given(follow_position(), st.integers(1, 20))
def test_bounded_generation_is_a_prefix(position, bound):
    level, trump, hand, lead = position
    ctx = trump_context(level, trump)
    counts = counts_of(_kinds(hand))
    engine_lead = Lead(ctx, _kinds(lead))
    for full, cut in ((legal_follows(ctx, counts, engine_lead), legal_follows(ctx, counts, engine_lead, bound)),
                      (legal_leads(ctx, counts), legal_leads(ctx, counts, bound))):
        assert cut.plays == full.plays[:bound]
        assert cut.truncated == (len(full.plays) > bound)


@st.composite
def trick(draw):
    """A lead and three follows of the same length (not necessarily legal: the winner rule must still hold)."""
    level, trump, hand, lead = draw(follow_position())
    oracle = Oracle(level, trump)
    universe = sorted({c for c in oracle.table})
    pool = sorted(set(hand) | set(lead) | {c for c in universe if oracle.suit(c) == TRUMP and c[-1] in RANKS[4:]})
    used = Counter(lead)
    plays = [lead]
    for _ in range(3):
        limit = {c: 2 - used[c] for c in pool}
        cards = [c for c in pool for _ in range(limit[c])]
        assume(len(cards) >= len(lead))
        choice = sorted(draw(st.permutations(cards))[:len(lead)])
        used.update(choice)
        plays.append(choice)
    return level, trump, plays


@settings(max_examples=700, deadline=None)
@given(trick())
def test_trick_winner_matches_oracle(position):
    level, trump, plays = position
    expected = Oracle(level, trump).trick_winner(plays)
    assert trick_winner(plays, level=level, trump=trump) == expected


@settings(max_examples=400, deadline=None)
@given(follow_position(), st.data())
def test_throw_check_matches_oracle(position, data):
    level, trump, hand, lead = position
    oracle = Oracle(level, trump)
    used = Counter(hand) + Counter(lead)
    rest = [c for c in oracle.table for _ in range(2 - used[c])]
    rest = data.draw(st.permutations(rest))
    others = [hand, sorted(rest[:8]), sorted(rest[8:16])]
    candidates = oracle.throw_forced(lead, others)
    got = resolve_throw(lead, others, level=level, trump=trump)
    if not candidates:
        assert sorted(got) == sorted(lead)
    else:
        # Which of two equal pairs (off-suit level cards) joins a tractor is arbitrary
        # (docs/rules.md, decomposition ties), so the forced play is compared by its ranks.
        assert not Counter(got) - Counter(lead)
        ranks = sorted(oracle.index(c) for c in got)
        assert ranks in [sorted(oracle.index(c) for c in cards) for cards in candidates]


@pytest.mark.parametrize("level", list(RANKS))
@pytest.mark.parametrize("trump", TRUMPS)
def test_order_table_matches_engine(level, trump):
    ctx = trump_context(level, trump)
    names = {"S": 0, "H": 1, "C": 2, "D": 3, TRUMP: 4}
    for card, (suit, index) in order_table(level, trump).items():
        kind = parse_cards(card)[0]
        assert (ctx.suit[kind], ctx.order[kind]) == (names[suit], index), card


def test_plays_accepted_in_real_hands_are_legal_by_the_oracle():
    """Every follow the engine accepts in random complete hands is legal by the oracle."""
    checked = 0
    for seed in range(200):
        rng = random.Random(seed)
        hand = Hand.new(seed)
        while hand.phase != Phase.DONE:
            seat = hand.current_player
            if hand.phase.is_bidding:
                choice = rng.choice([None, *hand.bid_options(seat)])
                hand.pass_bid(seat) if choice is None else hand.bid(seat, choice)
                continue
            if hand.phase == Phase.KITTY:
                hand.bury(seat, rng.sample([k for k in range(54) for _ in range(hand.hands[seat][k])], 8))
                continue
            held = card_list(k for k in range(54) for _ in range(hand.hands[seat][k]))
            if hand.lead is None:
                play = list(rng.choice(legal_leads(hand.ctx, hand.hands[seat], 32).plays))
            else:
                play = list(rng.choice(legal_follows(hand.ctx, hand.hands[seat], hand.lead, 32).plays))
                ctx = hand.ctx
                oracle = Oracle(RANKS[ctx.level], None if ctx.trump_suit is None else "SHCD"[ctx.trump_suit])
                assert oracle.is_legal_follow(held, card_list(play), card_list(hand.lead.cards))
                checked += 1
            hand.play(seat, play)
    assert checked > 10000
