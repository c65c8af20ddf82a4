"""Self-play tables in the ``play`` action mode: whole plays, and a rule-bot teacher on some seats.

Like :class:`agents.dmc.tables.SelfPlayTables`, ``M`` environments advance in
lockstep and the learner's decisions of all tables are scored in one forward
pass. The differences:

* A play decision scores whole plays (:func:`agents.dmc.plays.decision_candidates`)
  and applies the chosen one with the environment's whole-play view
  (``env.play``); bids and kitty picks stay card-step actions.
* Forced decisions (a bid turn with nothing to bid, a follow with one legal
  play) are taken at once: they teach nothing and cost a forward pass.
* A rule-bot **teacher** may hold seats. At each hand's start a table gives it
  all four seats with probability 1 during the warm start, and afterwards one
  team with probability ``teacher_share`` (see
  :meth:`agents.selfplay.config.TrainSettings.teacher_share_at`). The teacher's
  decisions are samples too: their Monte Carlo return trains Q and V (values
  of the teacher's play to start from), and their candidates with the
  teacher's choice marked feed the imitation loss.

Every rule set's tables work the same way with its learner's candidates
(:mod:`agents.dmc.learner_rules`): the forced steps it names are taken at once
(a standard bid turn with nothing to bid, a 刮风 fixing turn with nothing to
fix), a decision taken card step by card step (the burial; 刮风's fix and 回牌)
replays the teacher's whole decision as its steps, and leads and follows are
whole plays.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import torch

from agents.dmc.candidates import MAX_FOLLOWS, Candidates
from agents.dmc.inference import acting_q_values
from agents.dmc.learner_rules import decision_candidates, learner_rules, play_rows
from agents.registry import BOTS
from agents.selfplay.config import RunConfig
from agents.selfplay.samples import SampleBatch, as_half, collect_finished, hand_samples, lambda_returns
from env.core.actions import STOP
from env.core.moves import MoveList
from env.shengji_env import AGENTS, raw_env

Observed = tuple[np.ndarray, np.ndarray]
"""A decision's ``(observation, history)``, as :meth:`env.shengji_env.raw_env.encode` gives them."""


def candidate_spreads(q: np.ndarray, index: np.ndarray, counts: list[int]) -> list[float]:
    """Standard deviation of the scores of each decision with more than one candidate (one pass, no loop).

    ``q`` holds the scores of every decision's candidates back to back and
    ``index`` the decision each belongs to.
    """
    n = np.asarray(counts, dtype=np.float64)
    q = q.astype(np.float64)
    mean = np.bincount(index, weights=q, minlength=len(counts)) / n
    square = np.bincount(index, weights=q * q, minlength=len(counts)) / n
    spread = np.sqrt(np.maximum(square - mean * mean, 0.0))
    return spread[n > 1].tolist()


class PlayTables:
    """``M`` tables of whole-play self-play stepped in lockstep, some seats held by a teacher."""

    def __init__(self, num_tables: int, seed: int, run: RunConfig):
        self.layout = run.layout
        self.td_lambda = run.train.td_lambda
        self.envs = [raw_env(rules=run.rules, layout=run.layout, history_len=run.history_len, reward=run.reward,
                             start=run.start) for _ in range(num_tables)]
        self.rng = random.Random(seed)
        teacher = BOTS.get(run.train.teacher)  # None: teacher=none, no seat is ever the teacher's
        self.teachers = [teacher(seed * 1_000 + i) if teacher else None for i in range(num_tables)]
        self.teacher_seats: list[frozenset[int]] = [frozenset()] * num_tables
        self._burial_plans: list[list[int]] = [[] for _ in range(num_tables)]  # a teacher's card steps to come
        # The view and legal follows of the follow decision at hand, if it is one.
        self._follows: list[tuple[Any, MoveList] | None] = [None] * num_tables
        self._seed_base = seed
        self._episodes_started = 0
        self._trajectories: list[list[tuple]] = [[] for _ in range(num_tables)]
        self._finished: list[SampleBatch] = []
        self._spreads: list[float] = []
        self.frames = 0
        self.teacher_share = run.train.teacher_share_at(0)  # the first hands already follow the schedule
        for i in range(num_tables):
            self._reset(i)

    # ------------------------------------------------------------------ episodes
    def _reset(self, i: int) -> None:
        env = self.envs[i]
        env.reset(seed=self._seed_base * 1_000_003 + self._episodes_started)
        self._episodes_started += 1
        self.teacher_seats[i] = frozenset()
        if self.teachers[i] is None:
            pass
        elif self.teacher_share >= 1.0:
            self.teacher_seats[i] = frozenset(range(4))
        elif self.rng.random() < self.teacher_share:
            team = self.rng.randrange(2)
            self.teacher_seats[i] = frozenset((team, team + 2))
        self._burial_plans[i] = []
        self._skip_forced(i)

    def _skip_forced(self, i: int) -> None:
        """Take the decisions that have one choice, until a real one (or a new hand after the end).

        A follow's view and legal plays are kept for the decision's candidates (:attr:`_follows`).
        """
        env = self.envs[i]
        learner = learner_rules(env.ruleset)
        self._follows[i] = None
        while True:
            action = learner.forced_step(env)
            if action is not None:
                env.step(action)
                plan = self._burial_plans[i]
                if plan and plan[0] == action:  # a teacher's step (the STOP ending a fix), taken here
                    plan.pop(0)
            elif not (env.hand.in_play and env.hand.lead is not None and self._forced_follow(i, env.decision.view)):
                return
            self.frames += 1
            if any(env.terminations.values()):
                self._finish_episode(i)
                return

    def _forced_follow(self, i: int, view) -> bool:
        """Play a follow that has one legal play and say so; else keep its view and plays for the
        decision's candidates and say False."""
        moves = view.legal_plays(MAX_FOLLOWS + 1)
        if len(moves.plays) != 1 or moves.truncated:
            self._follows[i] = (view, moves)
            return False
        self.envs[i].play(moves.plays[0])
        return True

    def _finish_episode(self, i: int) -> None:
        env = self.envs[i]
        trajectory = self._trajectories[i]
        team_reward = (env.rewards["player_0"], env.rewards["player_1"])
        labelled = [t for t in trajectory if t[5] is not None]
        # The learner's team against the teacher's (hands where the teacher holds one team): a live strength gauge.
        held = self.teacher_seats[i]
        versus = [team_reward[1 - min(held) % 2]] if len(held) == 2 else []
        width = trajectory[0][2].shape[0] if trajectory else 0
        target = None if self.td_lambda == 1.0 else \
            lambda_returns([t[4] for t in trajectory], [t[7] for t in trajectory], team_reward, self.td_lambda)
        self._finished.append(hand_samples(
            trajectory, team_reward, env.hand, target,
            cand_count=np.array([0 if t[5] is None else len(t[5]) for t in trajectory], dtype=np.int32),
            cand_rows=(as_half(np.concatenate([t[5] for t in labelled])) if labelled
                       else np.zeros((0, width), dtype=np.float16)),
            cand_positive=(np.concatenate([t[6] for t in labelled]) if labelled else np.zeros(0, dtype=bool)),
            returns_vs_teacher=versus))
        self._trajectories[i] = []
        self._reset(i)

    # ------------------------------------------------------------------ stepping
    @torch.inference_mode()
    def step(self, model: torch.nn.Module, epsilon: float, teacher_share: float = 0.0) -> None:
        """Every table takes one decision: the teacher's at once, the learner's in one batched forward pass."""
        self.teacher_share = teacher_share
        pending: list[tuple[int, Observed, Candidates]] = []
        for i, env in enumerate(self.envs):
            agent = env.agent_selection
            seat = AGENTS.index(agent)
            observed = env.encode(agent)
            follow = self._follows[i]
            if follow is not None:  # a follow: its view and legal plays are known already
                view, moves = follow
            else:
                view, moves = env.decision.view, None
            # whole plays need no card-step mask: only card-step decisions (bids, the burial) read it
            mask = None if env.hand.in_play else env.action_mask()
            candidates = decision_candidates(view, self.layout, mask, moves)
            if seat in self.teacher_seats[i]:
                self._teacher_decision(i, seat, view, observed, candidates)
            else:
                pending.append((i, observed, candidates))
        if pending:
            self._learner_decisions(model, epsilon, pending)

    def _learner_decisions(self, model: torch.nn.Module, epsilon: float,
                           pending: list[tuple[int, Observed, Candidates]]) -> None:
        obs = torch.from_numpy(np.stack([o[0] for _, o, _ in pending]))
        history = torch.from_numpy(np.stack([o[1] for _, o, _ in pending]))
        counts = [len(c.moves) for _, _, c in pending]
        index = torch.repeat_interleave(torch.arange(len(pending)), torch.tensor(counts))
        rows = torch.from_numpy(np.concatenate([c.rows for _, _, c in pending]))
        phases = torch.tensor([c.phase for _, _, c in pending])
        bootstrap = self.td_lambda < 1.0  # the values the TD(lambda) targets bootstrap from
        q, values = acting_q_values(model, obs, history, rows, index, phases, baseline=bootstrap)
        q, values = q.numpy(), values.numpy()
        self._spreads.extend(candidate_spreads(q, index.numpy(), counts))
        offset = 0
        for d, ((i, observed, candidates), n) in enumerate(zip(pending, counts, strict=True)):
            scores = q[offset:offset + n]
            offset += n
            choice = self.rng.randrange(n) if self.rng.random() < epsilon else int(np.argmax(scores))
            seat = AGENTS.index(self.envs[i].agent_selection)
            value = float(values[d]) if bootstrap else None
            self._trajectories[i].append((*observed, candidates.rows[choice], candidates.phase, seat, None, None,
                                          value))
            self._apply(i, candidates.moves[choice])

    def _teacher_decision(self, i: int, seat: int, view: Any, observed: Observed, candidates: Candidates) -> None:
        teacher, env = self.teachers[i], self.envs[i]
        moves, rows = list(candidates.moves), candidates.rows
        plan = self._burial_plans[i]
        if candidates.phase == 2:  # a lead or follow
            chosen = tuple(sorted(teacher.act(view)))
            if chosen not in moves:  # a play outside the learner's candidates: scored for imitation too
                moves.append(chosen)
                rows = np.concatenate([rows, play_rows(view, [chosen], self.layout)])
            positive = np.array([m == chosen for m in moves])
        else:
            action = None
            if not plan:  # a new decision: one action (a bid, a tribute card) or a plan of card steps
                decision = teacher.act(view)
                action = env.decision.single_action(decision)
                if action is None:
                    plan.extend(learner_rules(env.ruleset).step_plan(decision))
            if action is None:
                chosen = plan.pop(0)
                positive = np.array([m == chosen or (m in plan and m != STOP) for m in moves])
            else:
                chosen = action
                positive = np.array([m == chosen for m in moves])
        pick = moves.index(chosen)
        self._trajectories[i].append((*observed, rows[pick], candidates.phase, seat,
                                      rows if len(moves) > 1 else None, positive if len(moves) > 1 else None, None))
        self._apply(i, chosen)

    def _apply(self, i: int, move) -> None:
        env = self.envs[i]
        if isinstance(move, tuple):
            env.play(move)
        else:
            env.step(move)
        self.frames += 1
        if any(env.terminations.values()):
            self._finish_episode(i)
        else:
            self._skip_forced(i)

    def collect(self, min_samples: int) -> SampleBatch | None:
        """Finished samples, once at least ``min_samples`` are ready (frames counted since last collect)."""
        batch = collect_finished(self._finished, self.frames, min_samples)
        if batch is not None:
            batch.spreads = self._spreads
            self.frames = 0
            self._finished = []
            self._spreads = []
        return batch
