"""The rule bots' policies for the 刮风 (guafeng) rule set (RULES-guafeng.md).

A guafeng hand asks other questions than the standard game (fix or pass, 回牌,
a burial without knowing the trump, the single-card first lead, leads of one
combination), so each bot of :data:`agents.bots.BOTS` holds a guafeng policy
(:class:`~agents.bots.guafeng.base.GuafengPolicy`) and :meth:`agents.base.Agent.act`
hands it every decision of a guafeng view: ``BOTS["expert"]`` seats at either table.
"""
