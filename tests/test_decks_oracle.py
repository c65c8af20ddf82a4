"""Brute-force oracle for one, three and four decks: RULES.md 11 read literally, checked against the engine.

The oracle works on card names and ``Counter`` multisets and tries every choice
by plain enumeration: tuples and tractors of shape (m, k), the decomposition of
a lead, the follow profile with its degrading requirements, format matching,
the throw check and the trick winner. It shares only the order table of
RULES.md 2 with the two-deck oracle (``test_oracle``) and nothing with
``env/standard/tuples.py``. The engine is called at the bottom on random small
positions drawn by hypothesis: its legality answers, its lazy move lists and
its card-by-card masks must agree with the oracle exactly.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from test_oracle import RANKS, TRUMP, Oracle

from env.core.cards import card_list, counts_of, parse_cards
from env.rules import resolve_throw, trick_winner
from env.standard import tricks
from env.standard.actions import PlayComposer
from env.standard.moves import legal_follows
from env.standard.tricks import Lead, follow_error
from env.standard.trump import trump_context
from env.standard.variants import RuleOptions

Unit = tuple[int, int, tuple[str, ...]]
"""(m, k, the k cards: one name per index, lowest first)."""


class DeckOracle(Oracle):
    """RULES.md 11 for one hand (level, trump) with ``decks`` decks, on card-name multisets.

    The card order and the n-or-fewer rule of following are the two-deck oracle's; the
    shapes, the profile, throws and the winner are read here again.
    """

    def __init__(self, level: str, trump: str | None, decks: int):
        super().__init__(level, trump)
        self.decks = decks

    # -------------------------------------------------------------- units and shapes
    def units_in(self, held: Counter, m: int, k: int) -> list[tuple[str, ...]]:
        """Every choice of k cards, one per consecutive index, each held at least m times."""
        by_index: dict[int, list[str]] = {}
        for card, n in held.items():
            if n >= m:
                by_index.setdefault(self.index(card), []).append(card)
        found: list[tuple[str, ...]] = [()]
        out = []
        for start in by_index:
            found = [()]
            for j in range(k):
                found = [f + (c,) for f in found for c in by_index.get(start + j, [])]
            out.extend(found)
        return out

    @staticmethod
    def important(shape: tuple[int, int]) -> tuple[bool, int, int]:
        """Tractors before plain tuples, then the larger m, then the longer k."""
        return shape[1] >= 2, shape[0], shape[1]

    def decompose(self, cards: list[str]) -> list[Unit]:
        """Each kind one tuple of all its copies; per m >= 2 the longest runs become tractors."""
        counts = Counter(cards)
        units: list[Unit] = []
        for m in sorted(set(counts.values())):
            kinds = Counter({c: 1 for c, n in counts.items() if n == m})
            while m >= 2:
                runs = [u for k in range(len(kinds), 1, -1) for u in self.units_in(kinds, 1, k)]
                if not runs:
                    break
                longest = max(runs, key=lambda u: (len(u), self.index(u[-1])))
                units.append((m, len(longest), longest))
                kinds -= Counter(longest)
            units += [(m, 1, (c,)) for c in kinds]
        return units

    def requirements(self, lead: list[str]) -> list[tuple[int, int]]:
        shapes = [(m, k) for m, k, _ in self.decompose(lead) if m >= 2]
        return sorted(shapes, key=self.important, reverse=True)

    # -------------------------------------------------------------- the follow profile
    def profile(self, cards: list[str], reqs: list[tuple[int, int]]) -> tuple[int, ...]:
        """The record of RULES.md 11's walk, the largest over every choice of what is taken."""

        def take(held: Counter, picks: tuple[str, ...], m: int) -> Counter:
            left = held.copy()
            for c in picks:
                left[c] -= m
            return +left

        def walk(held: Counter, todo: list[tuple[int, int]]) -> tuple[int, ...]:
            if not todo:
                return ()
            (m, k), rest = todo[0], todo[1:]

            def smaller(times: int) -> list[tuple[int, int]]:
                added = [(m - 1, 1)] * times if m - 1 >= 2 else []
                return sorted(rest + added, key=self.important, reverse=True)

            if k >= 2:
                tractors = self.units_in(held, m, k)
                if tractors:
                    return max((1, k) + walk(take(held, t, m), rest) for t in tractors)
                tuples_held = [c for c, n in held.items() for _ in range(n // m)]
                t = min(k, len(tuples_held))
                return max((0, t) + walk(take(held, chosen, m), smaller(k - t))
                           for chosen in set(combinations(sorted(tuples_held), t)))
            singles = self.units_in(held, m, 1)
            if singles:
                return max((1,) + walk(take(held, u, m), rest) for u in singles)
            return (0,) + walk(held, smaller(1))

        return walk(+Counter(cards), reqs)

    def meets_shape(self, played: list[str], held: list[str], lead: list[str]) -> bool:
        reqs = self.requirements(lead)
        return self.profile(played, reqs) == self.profile(held, reqs)

    # -------------------------------------------------------------- throws and tricks
    def throw_forced(self, lead: list[str], others: list[list[str]]) -> list[list[str]]:
        """[] if the throw stands, else every component it may be cut to (equal rank and size)."""
        units = self.decompose(lead)
        if len(units) == 1:
            return []
        suit = self.suit(lead[0])
        beatable = []
        for m, k, cards in units:
            top = self.index(cards[-1])
            for hand in others:
                mine = Counter(c for c in hand if self.suit(c) == suit)
                if m == 1:
                    beaten = any(self.index(c) > top for c in mine)
                else:
                    beaten = any(self.index(u[-1]) > top for u in self.units_in(mine, m, k))
                if beaten:
                    beatable.append(((top, m * k), sorted(c for c in cards for _ in range(m))))
                    break
        if not beatable:
            return []
        low = min(key for key, _ in beatable)
        return [cards for key, cards in beatable if key == low]

    def ruff_key(self, play: list[str], reqs: list[tuple[int, int]]) -> int | None:
        """None if the trump play does not match the format, else its key on the first requirement."""
        held = Counter(play)
        full = tuple(x for m, k in reqs for x in ((1, k) if k >= 2 else (1,)))
        if self.profile(play, reqs) != full:
            return None
        if not reqs:
            return max(self.index(c) for c in play)
        (m, k), rest = reqs[0], reqs[1:]
        best = None
        for unit in self.units_in(held, m, k):
            left = held.copy()
            for c in unit:
                left[c] -= m
            left_cards = [c for c, n in left.items() for _ in range(n)]
            rest_full = tuple(x for mm, kk in rest for x in ((1, kk) if kk >= 2 else (1,)))
            if self.profile(left_cards, rest) == rest_full:
                top = self.index(unit[-1])
                best = top if best is None else max(best, top)
        return best

    def trick_winner(self, plays: list[list[str]]) -> int:
        lead = plays[0]
        suit = self.suit(lead[0])
        units = self.decompose(lead)
        throw = len(units) > 1
        reqs = self.requirements(lead)
        best, ruffed, best_key = 0, False, None if throw else self.index(units[0][2][-1])
        for i, play in enumerate(plays[1:], start=1):
            suits = {self.suit(c) for c in play}
            if suits == {suit}:
                if throw or ruffed:
                    continue
                mine = self.decompose(play)
                if len(mine) == 1 and mine[0][:2] == units[0][:2] and self.index(mine[0][2][-1]) > best_key:
                    best, best_key = i, self.index(mine[0][2][-1])
                continue
            if suit == TRUMP or suits != {TRUMP}:
                continue
            key = self.ruff_key(play, reqs)
            if key is not None and (not ruffed or key > best_key):
                best, ruffed, best_key = i, True, key
        return best


# ---------------------------------------------------------------------------
# Random small positions and the checks against the engine.
# ---------------------------------------------------------------------------

TRUMPS = [None, "S", "H", "C", "D"]


@st.composite
def deck_position(draw, decks_from=(1, 3, 4), lead_max=6, hand_max=11):
    """(decks, level, trump, hand, lead): a lead of one effective suit and a follower's hand, copies <= d."""
    decks = draw(st.sampled_from(decks_from))
    level = draw(st.sampled_from(RANKS))
    trump = draw(st.sampled_from(TRUMPS))
    oracle = DeckOracle(level, trump, decks)
    low = draw(st.integers(0, len(RANKS) - 4))
    ranks = set(RANKS[low:low + 4]) | {level}
    suits = draw(st.lists(st.sampled_from("SHCD"), min_size=1, max_size=2, unique=True))
    universe = sorted({s + r for s in suits for r in ranks} | {"LJ", "BJ"})
    lead_suit = draw(st.sampled_from(sorted({oracle.suit(c) for c in universe})))
    lead_cards = [c for c in universe if oracle.suit(c) == lead_suit]
    lead = sorted(c for c in lead_cards for _ in range(draw(st.integers(0, decks))))
    if len(lead) > lead_max:
        lead = sorted(draw(st.permutations(lead))[:lead_max])
    assume(lead)
    used = Counter(lead)
    hand = [c for c in universe for _ in range(draw(st.integers(0, decks - used[c])))]
    if len(hand) > hand_max:
        hand = draw(st.permutations(hand))[:hand_max]
    filler = [s + r for s in "SHCD" for r in RANKS if s + r not in universe]
    while len(hand) < len(lead) + 1:
        hand.append(filler.pop(draw(st.integers(0, len(filler) - 1))))
    return decks, level, trump, sorted(hand), lead


def _sub_multisets(cards: list[str], n: int) -> set[tuple[str, ...]]:
    return {tuple(sorted(c)) for c in combinations(sorted(cards), n)}


def _context(decks: int, level: str, trump: str | None):
    return trump_context(level, trump, RuleOptions(decks=decks))


@settings(max_examples=400, deadline=None)
@given(deck_position())
def test_follow_legality_and_move_lists_match_the_oracle(position):
    decks, level, trump, hand, lead = position
    oracle = DeckOracle(level, trump, decks)
    ctx = _context(decks, level, trump)
    engine_lead = Lead(ctx, parse_cards(lead))
    counts = counts_of(parse_cards(hand))
    expected = {p for p in _sub_multisets(hand, len(lead)) if oracle.is_legal_follow(hand, list(p), lead)}
    assert expected, "a holding always has a legal follow"
    for play in _sub_multisets(hand, len(lead)):
        error = follow_error(ctx, counts, parse_cards(play), engine_lead)
        assert (error is None) == (play in expected), (play, error)
    generated = legal_follows(ctx, counts, engine_lead)
    names = [tuple(sorted(card_list(p))) for p in generated.plays]
    assert not generated.truncated
    assert len(names) == len(set(names)), "a follow listed twice"
    assert set(names) == expected


@settings(max_examples=250, deadline=None)
@given(deck_position(), st.randoms(use_true_random=False))
def test_card_by_card_masks_are_exact(position, rnd):
    decks, level, trump, hand, lead = position
    oracle = DeckOracle(level, trump, decks)
    ctx = _context(decks, level, trump)
    legal = [Counter(p) for p in _sub_multisets(hand, len(lead)) if oracle.is_legal_follow(hand, list(p), lead)]
    counts = counts_of(parse_cards(hand))
    composer = PlayComposer("follow", ctx, counts, Lead(ctx, parse_cards(lead)))
    picked: Counter = Counter()
    while not composer.complete:
        mask = composer.mask()
        allowed = {card_list([k])[0] for k in range(54) if mask[k]}
        expected = {c for c in set(hand) if any(not (picked + Counter([c])) - p for p in legal)}
        assert allowed == expected, (sorted(picked.elements()), allowed, expected)
        card = rnd.choice(sorted(allowed))
        picked[card] += 1
        composer.add(parse_cards([card])[0])
    assert any(picked == p for p in legal)


@settings(max_examples=250, deadline=None)
@given(deck_position(), st.data())
def test_throw_check_matches_the_oracle(position, data):
    decks, level, trump, hand, lead = position
    oracle = DeckOracle(level, trump, decks)
    used = Counter(hand) + Counter(lead)
    rest = data.draw(st.permutations([c for c in oracle.table for _ in range(decks - used[c])]))
    size = min(10, len(rest) // 2)
    others = [hand, sorted(rest[:size]), sorted(rest[size:2 * size])]
    candidates = oracle.throw_forced(lead, others)
    got = resolve_throw(lead, others, level=level, trump=trump, decks=decks)
    if not candidates:
        assert sorted(got) == sorted(lead)
    else:  # which of two equal-index kinds joins a unit is arbitrary: compare by indices and size
        assert not Counter(got) - Counter(lead)
        shape = sorted(oracle.index(c) for c in got)
        assert shape in [sorted(oracle.index(c) for c in cards) for cards in candidates]


@st.composite
def deck_trick(draw):
    """A lead and three plays of its length (legal or not: the winner rule must hold for any)."""
    decks, level, trump, hand, lead = draw(deck_position(lead_max=5))
    oracle = DeckOracle(level, trump, decks)
    trumps = [c for c in oracle.table if oracle.suit(c) == TRUMP and (c[-1] in RANKS[6:] or c in ("LJ", "BJ"))]
    pool = sorted(set(hand) | set(lead) | set(trumps))
    used = Counter(lead)
    plays = [lead]
    for _ in range(3):
        cards = [c for c in pool for _ in range(decks - used[c])]
        assume(len(cards) >= len(lead))
        if draw(st.booleans()):  # favour ruffs: trump cards only, grouped
            trump_cards = sorted(c for c in cards if oracle.suit(c) == TRUMP)
            if len(trump_cards) >= len(lead):
                cards = trump_cards
        choice = sorted(draw(st.permutations(cards))[:len(lead)])
        used.update(choice)
        plays.append(choice)
    return decks, level, trump, plays


@settings(max_examples=400, deadline=None)
@given(deck_trick())
def test_trick_winner_matches_the_oracle(position):
    decks, level, trump, plays = position
    expected = DeckOracle(level, trump, decks).trick_winner(plays)
    assert trick_winner(plays, level=level, trump=trump, decks=decks) == expected


@settings(max_examples=200, deadline=None)
@given(deck_position(decks_from=(2,), lead_max=6, hand_max=10), st.randoms(use_true_random=False))
def test_the_general_reading_agrees_with_the_two_deck_engine(position, rnd):
    """With two decks the engine keeps its pair-count code; RULES.md 11's reading must give the same answers."""
    _, level, trump, hand, lead = position
    two = _context(2, level, trump)
    engine_lead = Lead(two, parse_cards(lead))
    counts = counts_of(parse_cards(hand))
    oracle = DeckOracle(level, trump, 2)
    for play in _sub_multisets(hand, len(lead)):
        legal = oracle.is_legal_follow(hand, list(play), lead)
        assert (follow_error(two, counts, parse_cards(play), engine_lead) is None) == legal
        if len([c for c in hand if oracle.suit(c) == oracle.suit(lead[0])]) > len(lead) and engine_lead.pairs + len(
                engine_lead.tractor_lengths) and all(oracle.suit(c) == oracle.suit(lead[0]) for c in play):
            assert (tricks._tuple_follow_error(two, counts, parse_cards(play), engine_lead) is None) == legal
