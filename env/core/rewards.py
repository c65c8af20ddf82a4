"""The reward schemes every rule set pays at the end of a hand: zero-sum between the two teams.

``level``: the team's signed level change; ``win_loss``: +1/-1; ``points``: the
defenders' margin over the rule set's line, as a fraction of it;
``level_points``: the level change plus :data:`POINTS_WEIGHT` times the points
margin. A rule set computes them (:meth:`~env.core.ruleset.RuleSet.hand_rewards`).
"""

from __future__ import annotations

REWARD_SCHEMES = ("level", "win_loss", "points", "level_points")
POINTS_WEIGHT = 0.5
"""Weight of the points margin in ``level_points``: a whole threshold of points is worth half a level."""
