"""Brute-force oracle for 刮风: an independent reading of RULES-guafeng.md checked against the engine.

The oracle (top half) is rebuilt from the prose of sections 3, 4 and 7 on card
names, by plain enumeration: the trump order as a list of equal groups, the five
combinations by their definitions, "holds a tractor" by trying every subset,
"the m highest cards" as "nothing left out is higher than something played",
the trick winner by standings. It imports nothing from ``env.guafeng``; the
engine is only called in the comparison tests at the bottom, on random small
positions drawn by hypothesis, and for legal plays and the card-by-card
completion questions against subset enumeration.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from env.core.cards import parse_cards

SUITS = "SHCD"
RANK_LETTERS = "23456789TJQKA"
CYCLE = "A23456789TJQK"  # printed ranks with A next to 2, for drawing stretches that wrap
TRUMP = "trump"
HIGH_VALUE = {r: i + 2 for i, r in enumerate(RANK_LETTERS)}
LOW_VALUE = {**HIGH_VALUE, "A": 1}


class Oracle:
    """Rules of one 刮风 hand on card names; ``trump`` is a suit letter, None or "constants"."""

    def __init__(self, level: str, trump: str | None):
        self.x = trump if trump in tuple(SUITS) else None
        if trump == "constants":
            self.specials = ["5", "3", "2"]
        else:
            self.specials = [level] + [r for r in "532" if r != level]
        groups = [["BJ"], ["LJ"]]  # high to low
        for r in self.specials:
            if self.x:
                groups.append([self.x + r])
                groups.append([s + r for s in SUITS if s != self.x])
            else:
                groups.append([s + r for s in SUITS])
        plain_high_to_low = [r for r in "AKQJT98764" if r not in self.specials]
        if self.x:
            groups += [[self.x + r] for r in plain_high_to_low]
        self.table: dict[str, tuple[str, int]] = {}
        for i, group in enumerate(groups):
            for card in group:
                self.table[card] = (TRUMP, len(groups) - 1 - i)
        for s in SUITS:
            if s != self.x:
                for i, r in enumerate(plain_high_to_low):
                    self.table[s + r] = (s, len(plain_high_to_low) - 1 - i)

    def eff(self, card: str) -> str:
        return self.table[card][0]

    def index(self, card: str) -> int:
        return self.table[card][1]

    # ------------------------------------------------------------ section 4
    def combination(self, cards: list[str]) -> tuple[str, str, int] | None:
        """(type, suit, size) of a play, or None when it is no combination."""
        n = len(cards)
        if n == 0:
            return None
        if n == 1:
            return "single", self.eff(cards[0]), self.index(cards[0])
        if n == 2:
            if cards[0] == cards[1]:
                return "pair", self.eff(cards[0]), self.index(cards[0])
            return None
        if n == 4:
            if sorted(cards) == ["BJ", "BJ", "LJ", "LJ"]:
                return "bomb", TRUMP, 100
            ranks = {c[1] for c in cards if c not in ("BJ", "LJ")}
            if (len(ranks) == 1 and "BJ" not in cards and "LJ" not in cards
                    and sorted(c[0] for c in cards) == sorted(SUITS) and ranks <= set(self.specials)):
                rank = ranks.pop()
                return "bomb", TRUMP, len(self.specials) - self.specials.index(rank)
        if "BJ" in cards or "LJ" in cards or len({c[0] for c in cards}) != 1:
            return None
        ranks = [c[1] for c in cards]
        counts = Counter(cards)
        if n >= 5 and len(counts) == n:
            kind = "run"
        elif n >= 4 and n % 2 == 0 and set(counts.values()) == {2}:
            kind = "tractor"
        else:
            return None
        distinct = set(ranks)
        consecutive = False
        for values in (HIGH_VALUE, LOW_VALUE):
            vs = sorted(values[r] for r in distinct)
            if vs == list(range(vs[0], vs[0] + len(vs))):
                consecutive = True
        if not consecutive:
            return None
        ace = 14 if "K" in distinct else (1 if "2" in distinct else 14)
        size = max(ace if r == "A" else HIGH_VALUE[r] for r in distinct)
        suit = TRUMP if all(self.eff(c) == TRUMP for c in cards) else cards[0][0]
        return kind, suit, size

    # ------------------------------------------------------------ section 7
    def highest(self, chosen: list[str], cards: list[str]) -> bool:
        """``chosen`` are as many highest cards of ``cards``: nothing left out is higher than a chosen card."""
        left = Counter(cards) - Counter(chosen)
        low = min(self.index(c) for c in chosen)
        return all(self.index(c) <= low for c in left.elements())

    def holds_tractor(self, cards: list[str], pairs: int) -> bool:
        return any((self.combination(list(sub)) or ("",))[0] == "tractor"
                   for sub in set(combinations(sorted(cards), 2 * pairs)))

    def follow_ok(self, hand: list[str], play: list[str], lead: list[str]) -> bool:
        n = len(lead)
        kind, suit, _ = self.combination(lead)
        if len(play) != n or Counter(play) - Counter(hand):
            return False
        h_l = [c for c in hand if self.eff(c) == suit]
        if len(h_l) <= n:
            return not Counter(h_l) - Counter(play)
        if any(self.eff(c) != suit for c in play):
            return False
        if kind in ("single", "run"):
            return True
        held_pairs = [c for c, m in Counter(h_l).items() if m >= 2]
        if kind == "pair":
            return play[0] == play[1] if held_pairs else self.highest(play, h_l)
        if kind == "bomb":
            got = self.combination(play)
            return (got is not None and got[0] == "bomb") or self.highest(play, h_l)
        k = n // 2
        if self.holds_tractor(h_l, k):
            got = self.combination(play)
            return got is not None and got[0] == "tractor"
        played = Counter(play)
        if len(held_pairs) >= k:
            return all(m == 2 for m in played.values())
        if any(played[c] != 2 for c in held_pairs):
            return False
        rest_hand = [c for c in h_l if c not in held_pairs]
        rest_play = [c for c in play if c not in held_pairs]
        return self.highest(rest_play, rest_hand)

    def winner(self, plays: list[list[str]]) -> int:
        kind, suit, size = self.combination(plays[0])
        best, best_standing = 0, (1, size)
        for i, play in enumerate(plays[1:], start=1):
            got = self.combination(play)
            if got is None or got[0] != kind or len(play) != len(plays[0]):
                continue
            if got[1] == suit:
                standing = (1, got[2])
            elif suit != TRUMP and got[1] == TRUMP:
                standing = (2, got[2])
            else:
                continue
            if standing > best_standing:
                best, best_standing = i, standing
        return best


def sub_multisets(cards: list[str], size: int | None = None) -> set[tuple[str, ...]]:
    """Every sub-multiset of ``cards`` (of one size, or all), as sorted tuples."""
    cards = sorted(cards)
    sizes = range(len(cards) + 1) if size is None else [size]
    return {sub for m in sizes for sub in combinations(cards, m)}


# ---------------------------------------------------------------- positions

@st.composite
def positions(draw):
    """A level, a trump mode and a pool of cards rich in pairs, stretches and specials."""
    level = draw(st.sampled_from(RANK_LETTERS))
    trump = draw(st.sampled_from(["S", "H", "C", "D", None, "constants"]))
    start = draw(st.integers(0, 12))
    width = draw(st.integers(3, 7))
    ranks = {CYCLE[(start + i) % 13] for i in range(width)}
    ranks |= set(draw(st.lists(st.sampled_from(RANK_LETTERS), max_size=2)))
    suits = draw(st.lists(st.sampled_from(SUITS), min_size=1, max_size=draw(st.sampled_from([1, 2, 2, 3, 4])),
                          unique=True))
    pool = [s + r for s in suits for r in sorted(ranks)]
    if draw(st.booleans()):
        pool += ["LJ", "BJ"]
    return level, trump, pool * 2


def draw_hand(draw, pool: list[str], low: int, high: int) -> list[str]:
    if not pool:
        return []
    picks = draw(st.lists(st.integers(0, len(pool) - 1), min_size=min(low, len(pool)),
                          max_size=min(high, len(pool)), unique=True))
    return sorted(pool[i] for i in picks)


def kinds(cards) -> list[int]:
    return parse_cards(list(cards))


def counts(cards) -> list[int]:
    out = [0] * 54
    for k in kinds(cards):
        out[k] += 1
    return out


FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
THOROUGH = settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- comparisons with the engine

@FAST
@given(positions(), st.data())
def test_classify_agrees(position, data):
    from env.guafeng.combos import classify
    from env.guafeng.order import guafeng_context

    level, trump, pool = position
    oracle, ctx = Oracle(level, trump), guafeng_context(level, trump)
    for _ in range(10):
        cards = draw_hand(data.draw, pool, 1, 8)
        got = classify(ctx, kinds(cards))
        expected = oracle.combination(cards)
        if expected is None:
            assert got is None, cards
        else:
            suit = TRUMP if got.suit == 4 else SUITS[got.suit]
            assert (got.kind, suit) == expected[:2], cards
            assert got.length == len(cards)


@FAST
@given(positions(), st.data())
def test_combination_sizes_order_as_the_oracle(position, data):
    """Sizes are on different scales (bombs), so compare their order on pairs of combinations."""
    from env.guafeng.combos import classify
    from env.guafeng.order import guafeng_context

    level, trump, pool = position
    oracle, ctx = Oracle(level, trump), guafeng_context(level, trump)
    hand = draw_hand(data.draw, pool, 4, 10)
    found = [list(c) for c in sub_multisets(hand) if oracle.combination(list(c))]
    for a, b in combinations(found, 2):
        oa, ob = oracle.combination(a), oracle.combination(b)
        if oa[0] == ob[0] and len(a) == len(b):
            ea, eb = classify(ctx, kinds(a)), classify(ctx, kinds(b))
            assert (oa[2] > ob[2]) == (ea.size > eb.size) and (oa[2] == ob[2]) == (ea.size == eb.size), (a, b)


def draw_lead(data, pool: list[str], oracle: Oracle) -> list[str]:
    """A lead of a type drawn first, built on the pool's suits (any cards: a lead need not be held)."""
    kind = data.draw(st.sampled_from(["single", "pair", "tractor", "run", "bomb"]))
    suit = data.draw(st.sampled_from(sorted({c[0] for c in pool if c not in ("LJ", "BJ")})))
    if kind == "single":
        return [data.draw(st.sampled_from(pool))]
    if kind == "pair":
        return [data.draw(st.sampled_from(pool))] * 2
    if kind == "bomb":
        rank = data.draw(st.sampled_from([*oracle.specials, "jokers"]))
        return ["BJ", "BJ", "LJ", "LJ"] if rank == "jokers" else [s + rank for s in SUITS]
    length = data.draw(st.integers(2, 3) if kind == "tractor" else st.integers(5, 6))
    start = data.draw(st.integers(0, 14 - length))
    cards = [suit + CYCLE[(start + i) % 13] if start + i < 13 else suit + "A" for i in range(length)]
    lead = cards * 2 if kind == "tractor" else cards
    return sorted(lead) if oracle.combination(lead) else [cards[0]]


def _lead_and_hand(data, pool, oracle):
    """A lead and a follower's hand, often long in the lead suit (where the duties bite)."""
    lead = draw_lead(data, pool, oracle)
    suit = oracle.combination(lead)[1]
    in_suit = [c for c in pool if oracle.eff(c) == suit]
    long = data.draw(st.booleans())
    hand = draw_hand(data.draw, in_suit, len(lead) + 1 if long else 0, len(lead) + 5) if in_suit else []
    rest = Counter(pool) - Counter(hand)
    need = max(0, len(lead) - len(hand))
    hand += draw_hand(data.draw, sorted(rest.elements()), need, need + 4)
    return lead, sorted(hand)


def _follow_case(position, data):
    """A lead and a follower's hand that can follow it, with the oracle, the engine's context and the
    engine's reading of the lead; ``None`` when the hand drawn is too short."""
    from env.guafeng.combos import classify
    from env.guafeng.order import guafeng_context

    level, trump, pool = position
    oracle, ctx = Oracle(level, trump), guafeng_context(level, trump)
    lead, hand = _lead_and_hand(data, pool, oracle)
    if len(hand) < len(lead):
        return None
    return oracle, ctx, lead, hand, classify(ctx, kinds(lead))


@THOROUGH
@given(positions(), st.data())
def test_follows_agree_with_brute_force(position, data):
    from env.guafeng.combos import follow_error
    from env.guafeng.moves import legal_follows

    case = _follow_case(position, data)
    if case is None:
        return
    oracle, ctx, lead, hand, combo = case
    held = sum(1 for c in hand if oracle.eff(c) == oracle.combination(lead)[1])
    event(f"{combo.kind} lead, {'long' if held > len(lead) else 'short'} in its suit")
    hand_counts = counts(hand)
    legal = set()
    for play in sub_multisets(hand, len(lead)):
        ok = oracle.follow_ok(hand, list(play), lead)
        assert (follow_error(ctx, hand_counts, kinds(play), combo) is None) == ok, (lead, hand, play)
        if ok:
            legal.add(tuple(sorted(kinds(play))))
    got = legal_follows(ctx, hand_counts, combo)
    assert len(got.plays) == len(set(got.plays)) and not got.truncated
    assert set(got.plays) == legal
    assert legal  # a follower always has a legal play


@FAST
@given(positions(), st.data())
def test_trick_winner_agrees(position, data):
    from env.guafeng.combos import classify, trick_winner
    from env.guafeng.order import guafeng_context

    level, trump, pool = position
    oracle, ctx = Oracle(level, trump), guafeng_context(level, trump)
    lead, _ = _lead_and_hand(data, pool, oracle)
    plays = [lead]
    for _ in range(3):
        hand = draw_hand(data.draw, pool, len(lead), len(lead) + 4)
        if len(hand) < len(lead):
            return
        options = sorted(sub_multisets(hand, len(lead)))
        combos_first = [p for p in options if oracle.combination(list(p))]
        pick = combos_first if combos_first and data.draw(st.booleans()) else options
        plays.append(list(data.draw(st.sampled_from(pick))))
    got = trick_winner(ctx, classify(ctx, kinds(lead)), [kinds(p) for p in plays[1:]])
    assert got == oracle.winner(plays), plays


@FAST
@given(positions(), st.data())
def test_leads_and_lead_completion_agree_with_brute_force(position, data):
    from env.guafeng.combos import lead_error
    from env.guafeng.moves import can_complete_lead, legal_leads
    from env.guafeng.order import guafeng_context

    level, trump, pool = position
    oracle, ctx = Oracle(level, trump), guafeng_context(level, trump)
    hand = draw_hand(data.draw, pool, 1, 11)
    hand_counts = counts(hand)
    subsets = sub_multisets(hand)
    legal = {c for c in subsets if c and oracle.combination(list(c))}
    assert {tuple(sorted(kinds(c))) for c in legal} == set(legal_leads(ctx, hand_counts).plays)
    reachable = {sub for play in legal for sub in sub_multisets(list(play))}
    for picked in subsets:
        assert can_complete_lead(ctx, hand_counts, kinds(picked)) == (picked in reachable), (hand, picked)
        assert (lead_error(ctx, hand_counts, kinds(picked)) is None) == (picked in legal)


@THOROUGH
@given(positions(), st.data())
def test_follow_completion_agrees_with_brute_force(position, data):
    from env.guafeng.moves import can_complete_follow

    case = _follow_case(position, data)
    if case is None:
        return
    oracle, ctx, lead, hand, combo = case
    legal = [play for play in sub_multisets(hand, len(lead)) if oracle.follow_ok(hand, list(play), lead)]
    reachable = {sub for play in legal for sub in sub_multisets(list(play))}
    hand_counts = counts(hand)
    for picked in sub_multisets(hand):
        if len(picked) <= len(lead):
            got = can_complete_follow(ctx, hand_counts, combo, kinds(picked))
            assert got == (picked in reachable), (lead, hand, picked)
