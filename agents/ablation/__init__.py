"""Ablation studies: a training sweep in, a comparison over seeds and deals out (``python report.py``).

Modules, in the order ``report.py`` calls them: :mod:`~agents.ablation.runs`
(find the runs of a sweep, read their snapshots, group them by overrides minus
the seed), :mod:`~agents.ablation.evaluation` (every snapshot against the
opponents on the same duplicate deals, cached on disk),
:mod:`~agents.ablation.intervals` (95% intervals over seeds and deals),
:mod:`~agents.ablation.summary` (final table, differences to a baseline,
learning curves), :mod:`~agents.ablation.output` (terminal, Markdown, CSV,
JSON), :mod:`~agents.ablation.figures` (PNG/SVG curves) and
:mod:`~agents.ablation.hparams` (TensorBoard HParams). The snapshots
themselves are taken during training by :mod:`agents.selfplay.snapshots`.
"""
