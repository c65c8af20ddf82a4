"""A checkpoint trained on 刮风 at a 刮风 table: its policy (:meth:`agents.base.Agent.policy`)."""

from __future__ import annotations

from typing import Any

from agents.bots.guafeng.base import GuafengPolicy
from env.guafeng.actions import GuafengComposer
from env.guafeng.fixing import Fix
from env.guafeng.view import GuafengView


class GuafengQPolicy(GuafengPolicy):
    """A checkpoint's 刮风 decisions: fixes, 回牌 and the burial card by card over the composer's masks
    (as the environment builds them), leads and follows as whole plays (``play`` mode) or card steps."""

    def __init__(self, agent: Any):
        self.agent = agent

    def _compose(self, view: GuafengView) -> Fix | list[int] | None:
        agent = self.agent
        composer = GuafengComposer(view)
        while not composer.complete:
            if agent.run.action_mode == "play":
                action = agent._choose_move(view, composer.mask(), composer.picked)
            else:
                action = agent._choose(view, composer.mask(), composer.picked)
            composer.step(int(action))
        return composer.decision()

    def fix(self, view: GuafengView) -> Fix | None:
        return self._compose(view)

    def give_back(self, view: GuafengView) -> list[int]:
        return self._compose(view)

    def bury(self, view: GuafengView) -> list[int]:
        return self._compose(view)

    def play(self, view: GuafengView) -> tuple[int, ...]:
        if self.agent.run.action_mode == "play":
            return tuple(self.agent._choose_move(view, None, []))
        return tuple(self._compose(view))
