"""The 刮风 (guafeng, 双扣) rule set of RULES-guafeng.md.

Rules side, one job per module:

* :mod:`env.guafeng.order`: the level cycle and the trump set and card order of a
  hand (:func:`~env.guafeng.order.guafeng_context`).
* :mod:`env.guafeng.combos`: what a play is (:func:`~env.guafeng.combos.classify`),
  lead and follow legality, the trick winner.
* :mod:`env.guafeng.moves`: legal leads and follows, and whether a partly picked
  play can still become one (for card-by-card action masks).
* :mod:`env.guafeng.scoring`: kitty value and multiplier, hand score, level cycle.
* :mod:`env.guafeng.referee`: the string-level referee answers behind
  ``env.rules``'s public functions with ``ruleset="guafeng"``.

The hand and match state machines live beside them (``hand.py``, ``match.py``).
The package imports nothing itself, so any module can be imported alone.
"""
