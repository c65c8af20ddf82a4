"""The neutral core every rule set builds on, and which imports none of them.

Cards (:mod:`env.core.cards`), the deal layout, the hand and view bases, move
lists, the action table and a decision over it, the slot layouts of the
encodings, the reward schemes, the rule-set protocol
(:class:`env.core.ruleset.RuleSet`) and the registry of rule sets by name,
imported on first use (:mod:`env.core.registry`). See docs/adding_a_rule_set.md.
"""
