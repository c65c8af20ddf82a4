"""The standard game of RULES.md (升级 / Tractor) with its variant options, as a rule set.

:class:`env.standard.ruleset.StandardRules` answers the rule-set protocol
(:mod:`env.core.ruleset`) with this package's modules: cards' trump order
(:mod:`~env.standard.trump`), components and tractors (:mod:`~env.standard.combos`),
leads, follows, throws and the trick winner (:mod:`~env.standard.tricks`,
:mod:`~env.standard.moves`), bidding (:mod:`~env.standard.bidding`), scoring
(:mod:`~env.standard.scoring`), the hand and the match (:mod:`~env.standard.hand`,
:mod:`~env.standard.match`), a seat's view, the observation encoder, the
card-step decisions, rewards, rendering and the string referee. It imports only
:mod:`env.core`; it is registered as ``"standard"`` in :mod:`env.core.registry`.
"""
