"""Kitty multiplier, the level table, level advance and next dealer (RULES.md 7 and 8)."""

from __future__ import annotations

import pytest

from env.rules import kitty_multiplier, score_hand
from env.standard.scoring import advance_level, next_dealer, score_with
from env.standard.variants import RuleOptions


@pytest.mark.parametrize(("lead", "exponential", "linear"), [
    ("S5", 2, 2),
    ("S5 S5", 4, 4),
    ("S5 S5 S6 S6", 16, 8),
    ("S5 S5 S6 S6 S7 S7", 64, 8),
    ("S5 S5 S6 S6 S7 S7 S8 S8", 256, 8),
    ("SA SK", 2, 2),              # a throw of singles: largest component is a single
    ("SA SK SK", 4, 4),           # pair + single
    ("S3 S3 S4 S4 SA", 16, 8),    # tractor + single
    ("ST ST HT HT", 16, 8),       # trump tractor at level T, trump H
    ("ST ST CT CT", 4, 4),        # equal pairs are not a tractor
])
def test_kitty_multiplier(lead, exponential, linear):
    assert kitty_multiplier(lead, level="T", trump="H") == exponential
    assert kitty_multiplier(lead, level="T", trump="H", variant="exponential") == exponential
    assert kitty_multiplier(lead, level="T", trump="H", variant="linear") == linear


def test_kitty_multiplier_rejects_unknown_variant():
    with pytest.raises(ValueError):
        kitty_multiplier("S5", level="T", trump="H", variant="square")


@pytest.mark.parametrize(("points", "plain", "plus_one"), [
    (-30, ("dealers", 3), ("dealers", 3)),
    (0, ("dealers", 3), ("dealers", 3)),
    (5, ("dealers", 2), ("dealers", 2)),
    (35, ("dealers", 2), ("dealers", 2)),
    (40, ("dealers", 1), ("dealers", 1)),
    (75, ("dealers", 1), ("dealers", 1)),
    (80, ("defenders", 0), ("defenders", 1)),
    (115, ("defenders", 0), ("defenders", 1)),
    (120, ("defenders", 1), ("defenders", 2)),
    (155, ("defenders", 1), ("defenders", 2)),
    (160, ("defenders", 2), ("defenders", 3)),
    (195, ("defenders", 2), ("defenders", 3)),
    (200, ("defenders", 3), ("defenders", 4)),
    (235, ("defenders", 3), ("defenders", 4)),
    (240, ("defenders", 4), ("defenders", 5)),
    (280, ("defenders", 5), ("defenders", 6)),
    (675, ("defenders", 14), ("defenders", 15)),
])
def test_level_table(points, plain, plus_one):
    assert score_hand(points) == plain
    assert score_hand(points, takeover="plain") == plain
    assert score_hand(points, takeover="plus_one") == plus_one


@pytest.mark.parametrize(("points", "expected"), [
    (0, ("dealers", 3)), (60, ("dealers", 2)), (69, ("dealers", 2)), (70, ("dealers", 1)),
    (99, ("dealers", 1)), (100, ("defenders", 0)), (129, ("defenders", 0)), (130, ("defenders", 1)),
])
def test_threshold_and_step(points, expected):
    assert score_hand(points, threshold=100, step=30) == expected
    assert score_with(points, RuleOptions(threshold=100, step=30)) == expected


def test_score_hand_rejects_bad_options():
    with pytest.raises(ValueError):
        score_hand(50, takeover="minus_one")
    with pytest.raises(ValueError):
        score_hand(50, threshold=0)
    with pytest.raises(ValueError):
        score_hand(50, step=-40)


@pytest.mark.parametrize(("dealer", "held", "expected"), [
    (0, True, 2), (1, True, 3), (2, True, 0), (3, True, 1),
    (0, False, 1), (1, False, 2), (2, False, 3), (3, False, 0),
])
def test_next_dealer(dealer, held, expected):
    assert next_dealer(dealer, held) == expected


@pytest.mark.parametrize(("level", "steps", "expected"), [
    ("2", 0, "2"), ("2", 1, "3"), ("2", 3, "5"), ("9", 1, "T"), ("Q", 1, "K"),
    ("Q", 3, "A"), ("K", 2, "A"), ("A", 1, "A"), ("2", 14, "A"),
])
def test_advance_level_capped_at_a(level, steps, expected):
    assert advance_level(level, steps, RuleOptions()) == expected


@pytest.mark.parametrize(("level", "steps", "expected"), [
    ("5", 1, "T"), ("5", 2, "K"), ("5", 3, "K"), ("T", 1, "K"), ("K", 4, "K"), ("5", 0, "5"),
])
def test_advance_level_in_5_t_k_room(level, steps, expected):
    assert advance_level(level, steps, RuleOptions(level_sequence=("5", "T", "K"))) == expected


def test_advance_level_with_constant_twos_starts_at_three():
    options = RuleOptions(constant_twos=True)
    assert options.levels[0] == "3"
    assert advance_level("3", 2, options) == "5"
