"""Duplicate evaluation of agents: fixed deals, swapped teams, intervals over deals, tournaments.

Modules: :mod:`~agents.evaluation.deals` (the saved deal set),
:mod:`~agents.evaluation.duplicate` (playing a deal twice),
:mod:`~agents.evaluation.workers` and :mod:`~agents.evaluation.ray_runner` (where deals are played),
:mod:`~agents.evaluation.metrics` and :mod:`~agents.evaluation.stats` (what is
measured and its 95% interval), :mod:`~agents.evaluation.tournament`
(round robin and OpenSkill ratings), :mod:`~agents.evaluation.run` (the
entry point used by ``evaluate.py``) and :mod:`~agents.evaluation.report`
(table, JSON, CSV, chart).
"""

from agents.evaluation.duplicate import Settings
from agents.evaluation.run import Evaluation, evaluate

__all__ = ["Evaluation", "Settings", "evaluate"]
