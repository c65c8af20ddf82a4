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

A 刮风 table (``run.rules`` the guafeng rule set) works the same way with the 刮风
candidates (:mod:`agents.dmc.guafeng_plays`): a fix, a 回牌 and the burial are
card steps (a fixing turn with nothing to fix is a forced PASS), leads and
follows whole plays; the teacher's whole fix, 回牌 or burial is replayed as its
card steps.
"""

from __future__ import annotations

import random

import numpy as np
import torch

from agents.dmc.inference import acting_q_values
from agents.dmc.plays import MAX_FOLLOWS, Candidates, decision_candidates, play_rows
from agents.registry import BOTS
from agents.selfplay.config import RunConfig
from agents.selfplay.samples import SampleBatch, as_half, collect_finished, hand_samples
from env.core.actions import PASS, STOP
from env.core.moves import MoveList
from env.guafeng.fixing import Fix
from env.shengji_env import AGENTS, raw_env
from env.standard.actions import bid_action
from env.standard.hand import Phase
from env.standard.view import PlayerView

Observed = tuple[np.ndarray, np.ndarray]
"""A decision's ``(observation, history)``, as :meth:`env.shengji_env.raw_env.encode` gives them."""


def guafeng_steps(decision: Fix | list[int] | None) -> list[int]:
    """A whole 刮风 fix, 回牌 or burial as its card steps (:class:`env.guafeng.actions.GuafengComposer`):
    PASS for no fix; a fix's shown jokers (the first one picked tells ``LJ LJ BJ BJ``'s two fixes apart),
    its base, then STOP; a 回牌 or burial its cards."""
    if decision is None:
        return [PASS]
    if isinstance(decision, Fix):
        return [*decision.jokers, *decision.base, STOP]
    return list(decision)


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
        self.envs = [raw_env(rules=run.rules, layout=run.layout, history_len=run.history_len, reward=run.reward,
                             start=run.start) for _ in range(num_tables)]
        self.rng = random.Random(seed)
        teacher = BOTS.get(run.train.teacher)  # None: teacher=none, no seat is ever the teacher's
        self.teachers = [teacher(seed * 1_000 + i) if teacher else None for i in range(num_tables)]
        self.teacher_seats: list[frozenset[int]] = [frozenset()] * num_tables
        self._burial_plans: list[list[int]] = [[] for _ in range(num_tables)]  # a teacher's card steps to come
        # The view and legal follows of the follow decision at hand, if it is one.
        self._follows: list[tuple[PlayerView, MoveList] | None] = [None] * num_tables
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
        self._follows[i] = None
        while True:
            hand = env.hand
            if env.guafeng:
                if not self._forced_guafeng(i):
                    return
            elif hand.phase.is_bidding and not hand.bid_options(hand.current_player):
                env.step(PASS)
            elif hand.phase == Phase.PLAY and hand.lead is not None:
                if not self._forced_follow(i, env.view(hand.current_player)):
                    return
            else:
                return
            self.frames += 1
            if any(env.terminations.values()):
                self._finish_episode(i)
                return

    def _forced_guafeng(self, i: int) -> bool:
        """Take a 刮风 decision or fix step with one choice (a fixing turn with no fix to make, a follow with
        one legal play) and say so; else keep a follow's legal plays for its candidates and say False."""
        env = self.envs[i]
        composer = env.decision.composer
        if composer.mode == "fix":  # a pass with no fix to make, or the STOP that ends a fix's picks
            allowed = np.flatnonzero(env.action_mask())
            if len(allowed) != 1:
                return False
            env.step(int(allowed[0]))
            plan = self._burial_plans[i]
            if plan and plan[0] == allowed[0]:  # a teacher's STOP, taken here
                plan.pop(0)
            return True
        if composer.mode == "follow":
            return self._forced_follow(i, composer.view)
        return False

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
        self._finished.append(hand_samples(
            trajectory, team_reward, env.hand,
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
            else:  # 刮风: the decision's view, built once by its composer
                view, moves = (env.decision.view if env.guafeng else env.view(seat)), None
            # whole plays need no card-step mask: only bids, the burial and 刮风's card steps read it
            mask = None if not env.guafeng and env.hand.phase == Phase.PLAY else env.action_mask()
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
        q = acting_q_values(model, obs, history, rows, index, phases, baseline=False)[0].numpy()
        self._spreads.extend(candidate_spreads(q, index.numpy(), counts))
        offset = 0
        for (i, observed, candidates), n in zip(pending, counts, strict=True):
            scores = q[offset:offset + n]
            offset += n
            choice = self.rng.randrange(n) if self.rng.random() < epsilon else int(np.argmax(scores))
            seat = AGENTS.index(self.envs[i].agent_selection)
            self._trajectories[i].append((*observed, candidates.rows[choice], candidates.phase, seat, None, None))
            self._apply(i, candidates.moves[choice])

    def _teacher_decision(self, i: int, seat: int, view: PlayerView, observed: Observed,
                          candidates: Candidates) -> None:
        teacher = self.teachers[i]
        moves, rows = list(candidates.moves), candidates.rows
        guafeng = self.envs[i].guafeng
        if candidates.phase == 2:  # a lead or follow (either rule set)
            chosen = tuple(sorted(teacher.act(view)))
            if chosen not in moves:  # a play outside the learner's candidates: scored for imitation too
                moves.append(chosen)
                rows = np.concatenate([rows, play_rows(view, [chosen], self.layout)])
            positive = np.array([m == chosen for m in moves])
        elif guafeng or view.phase == Phase.KITTY:  # a decision taken card step by card step: its plan
            if not self._burial_plans[i]:  # 刮风: a fix, a 回牌 or the burial; standard: the burial
                decision = teacher.act(view)
                self._burial_plans[i] = guafeng_steps(decision) if guafeng else sorted(decision)
            plan = self._burial_plans[i]
            chosen = plan.pop(0)
            positive = np.array([m == chosen or (m in plan and m != STOP) for m in moves])
        elif candidates.phase == 0:  # a bid of the deal or of 炒地皮 (act picks the teacher's logic for each)
            bid = teacher.act(view)
            chosen = PASS if bid is None else bid_action(bid)
            positive = np.array([m == chosen for m in moves])
        else:  # RULES.md 9: a tribute or returned card
            chosen = int(teacher.act(view))
            positive = np.array([m == chosen for m in moves])
        pick = moves.index(chosen)
        self._trajectories[i].append((*observed, rows[pick], candidates.phase, seat,
                                      rows if len(moves) > 1 else None, positive if len(moves) > 1 else None))
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
