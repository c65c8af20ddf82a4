"""SearchAgent: Perfect Information Monte Carlo over sampled worlds, with a rule bot or network as prior.

At each play decision with a real choice:

1. the prior agent (ExpertAgent by default, or a checkpoint) names its play;
   :func:`~agents.search.candidates.candidate_plays` adds a few other legal
   ideas (up to ``max_candidates``);
2. worlds are sampled (:class:`~agents.search.worlds.WorldSampler`): deals of
   the unseen cards consistent with what the seat knows;
3. each candidate is played in each world and the hand is played out to its
   end on the engine by the rollout policy on all four seats; the outcome is
   the level change for our team plus ``points_weight`` levels per 40 of our
   team's side of the defender points (a smoother tie-break);
4. successive halving: every candidate gets ``screen_worlds`` worlds, then the
   better half (the prior's play always kept) gets twice as many, until two
   remain and ``worlds`` worlds are spent, or the time budget ends; the search
   stops early when no candidate is ahead of the prior's play;
5. the best mean wins, but a play other than the prior's must beat it by
   ``min_advantage_se`` standard errors of the paired difference: the same
   worlds and rollout seeds serve every candidate (common random numbers), so
   the difference is measured, not guessed, and noise does not overturn the prior;
6. optionally (``recheck_worlds`` > 0) the re-check: a play other than the
   prior's that won is played again against the prior's on fresh worlds
   (shared by both, with shared rollout seeds) and kept only when the lower
   confidence bound of the paired difference, ``mean - recheck_z * se``, is
   above 0; else the prior's play is returned. The winner of a search is the
   best of several noisy means, so it is biased upwards; fresh worlds are not.

Bids are the prior's, and so is the kitty burial unless ``burial_worlds`` > 0:
then whole candidate burials (the prior's first, :mod:`agents.search.burials`)
are compared as plays are, each buried and the hand played out from the first
lead in worlds dealt at the burial, within ``burial_time``. A decision always
returns a legal play: the prior's when time runs out before the first world is
complete.
Results are reproducible from the seed when the worlds budget, not the time
budget, ends the search (the default budgets are set so).
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from agents.base import Agent
from agents.bots import BOTS
from agents.search.burials import burial_candidates
from agents.search.candidates import candidate_plays
from agents.search.inference import INFERENCE_POLICIES, InferenceSampler
from agents.search.rollouts import Rollouts
from agents.search.worlds import World, WorldSampler
from env.standard.bidding import Bid
from env.standard.view import PlayerView, first_lead_refusal

ROLLOUT_POLICIES = ("expert", "greedy", "random", "prior", "network")
CANDIDATE_ORDERS = ("ideas", "network")


@dataclass(frozen=True)
class SearchConfig:
    """Budgets and choices of a search (``conf/search/default.yaml`` documents each)."""

    time_budget: float = 0.5
    worlds: int = 24
    screen_worlds: int = 4
    max_candidates: int = 8
    rollout: str = "expert"
    points_weight: float = 1.0
    min_advantage_se: float = 1.0
    recheck_worlds: int = 0
    recheck_z: float = 1.645
    recheck_time: float = 0.5
    candidate_order: str = "ideas"
    inference: str = "locations"
    inference_oversample: int = 4
    inference_epsilon: float = 0.1
    inference_temperature: float = 0.1
    location_model: str = "checkpoints/locations/locations1.pt"
    location_strength: float = 1.0
    leaf_tricks: int = 0
    value_network: str = ""
    burial_worlds: int = 16
    burial_candidates: int = 6
    burial_time: float = 1.5

    def __post_init__(self) -> None:
        if not (isinstance(self.time_budget, int | float) and self.time_budget > 0):
            raise ValueError(f"search.time_budget must be a positive number of seconds, got {self.time_budget!r}")
        for name in ("worlds", "screen_worlds", "max_candidates", "burial_candidates"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValueError(f"search.{name} must be a positive integer, got {value!r}")
        if self.screen_worlds > self.worlds:
            raise ValueError(f"search.screen_worlds ({self.screen_worlds}) cannot exceed search.worlds ({self.worlds})")
        if self.rollout not in ROLLOUT_POLICIES:
            raise ValueError(f"search.rollout must be one of {', '.join(ROLLOUT_POLICIES)}, got {self.rollout!r}")
        if not isinstance(self.points_weight, int | float) or self.points_weight < 0:
            raise ValueError(f"search.points_weight must be a number >= 0, got {self.points_weight!r}")
        if not isinstance(self.min_advantage_se, int | float) or self.min_advantage_se < 0:
            raise ValueError(f"search.min_advantage_se must be a number >= 0, got {self.min_advantage_se!r}")
        if not isinstance(self.recheck_worlds, int) or isinstance(self.recheck_worlds, bool) or \
                self.recheck_worlds < 0:
            raise ValueError(f"search.recheck_worlds must be an integer >= 0, got {self.recheck_worlds!r}")
        if self.recheck_worlds == 1:
            raise ValueError("search.recheck_worlds must be 0 (off) or at least 2 (a bound needs a spread)")
        if not isinstance(self.recheck_z, int | float) or self.recheck_z < 0:
            raise ValueError(f"search.recheck_z must be a number >= 0, got {self.recheck_z!r}")
        if self.candidate_order not in CANDIDATE_ORDERS:
            raise ValueError(f"search.candidate_order must be one of {', '.join(CANDIDATE_ORDERS)}, "
                             f"got {self.candidate_order!r}")
        if self.inference not in (*INFERENCE_POLICIES, "locations"):
            raise ValueError(f"search.inference must be one of {', '.join(INFERENCE_POLICIES)}, locations, "
                             f"got {self.inference!r}")
        if not isinstance(self.inference_oversample, int) or isinstance(self.inference_oversample, bool) or \
                self.inference_oversample < 1:
            raise ValueError(f"search.inference_oversample must be a positive integer, "
                             f"got {self.inference_oversample!r}")
        if not (isinstance(self.inference_epsilon, int | float) and 0 < self.inference_epsilon <= 1):
            raise ValueError(f"search.inference_epsilon must be in (0, 1], got {self.inference_epsilon!r}")
        if not (isinstance(self.inference_temperature, int | float) and self.inference_temperature > 0):
            raise ValueError(f"search.inference_temperature must be positive, got {self.inference_temperature!r}")
        if self.inference == "locations" and not (isinstance(self.location_model, str) and self.location_model):
            raise ValueError("search.inference=locations needs search.location_model=<a location model file>")
        if not (isinstance(self.location_strength, int | float) and self.location_strength >= 0):
            raise ValueError(f"search.location_strength must be a number >= 0, got {self.location_strength!r}")
        if not isinstance(self.leaf_tricks, int) or isinstance(self.leaf_tricks, bool) or self.leaf_tricks < 0:
            raise ValueError(f"search.leaf_tricks must be an integer >= 0 (0: play every rollout to the end), "
                             f"got {self.leaf_tricks!r}")
        if not isinstance(self.value_network, str):
            raise ValueError(f"search.value_network must be a checkpoint path or empty, got {self.value_network!r}")
        if not isinstance(self.burial_worlds, int) or isinstance(self.burial_worlds, bool) or \
                self.burial_worlds < 0:
            raise ValueError(f"search.burial_worlds must be an integer >= 0 (0: the prior buries), "
                             f"got {self.burial_worlds!r}")
        if not (isinstance(self.burial_time, int | float) and self.burial_time > 0):
            raise ValueError(f"search.burial_time must be a positive number of seconds, got {self.burial_time!r}")
        if not (isinstance(self.recheck_time, int | float) and self.recheck_time > 0):
            raise ValueError(f"search.recheck_time must be a positive number of seconds, got {self.recheck_time!r}")

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> SearchConfig:
        """A config from ``{name: value}``; an unknown name is an error that lists the known ones."""
        options = dict(options or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise ValueError(f"unknown search option(s) {unknown}: choose from {sorted(known)}")
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        """The options as a plain dict."""
        return asdict(self)


@dataclass
class SearchStats:
    """What the last search did (for tests, benchmarks and curious users)."""

    candidates: list[tuple[int, ...]] = field(default_factory=list)
    means: list[float | None] = field(default_factory=list)
    worlds_of: list[int] = field(default_factory=list)
    worlds: int = 0
    rollouts: int = 0
    chosen: tuple[int, ...] = ()
    seconds: float = 0.0
    searched: bool = False
    recheck: tuple[int, float, float] | None = None
    """``(worlds, mean paired difference, lower bound)`` of the re-check, when one ran."""


class SearchAgent(Agent):
    """Chooses plays (and optionally burials) by playing candidates out in sampled worlds; the prior bids."""

    def __init__(self, prior: Agent, config: SearchConfig | None = None, seed: int | None = None,
                 rollout_agents: Sequence[Agent] | None = None, value_network: Agent | None = None):
        self.prior = prior
        self.config = config or SearchConfig()
        self.name = f"search:{prior.name}"
        self.rng = random.Random(seed)
        cfg = self.config
        needs_network = [option for option, on in (("search.inference=network", cfg.inference == "network"),
                                                    ("search.candidate_order=network",
                                                     cfg.candidate_order == "network"),
                                                    ("search.rollout=network", cfg.rollout == "network")) if on]
        if needs_network and not hasattr(prior, "play_values"):
            raise ValueError(f"{needs_network[0]} needs a play-mode checkpoint as the prior, got {prior.name!r}")
        if cfg.leaf_tricks:
            value_network = value_network or (prior if hasattr(prior, "state_values") else None)
            if value_network is None:
                raise ValueError(f"search.leaf_tricks={cfg.leaf_tricks} needs a value network: "
                                 "search.value_network=<checkpoint>, or a checkpoint as the prior")
            if not hasattr(value_network, "state_values"):
                raise ValueError(f"search.value_network must be a checkpoint of the play action mode, "
                                 f"got {value_network.name!r}")
            if not value_network.has_value_head:
                raise ValueError(f"search.leaf_tricks needs a network with a value head; {value_network.name!r} "
                                 "has none (model.value_head: false)")
        self.value_network = value_network if cfg.leaf_tricks else None
        self.rollout_agents = list(rollout_agents) if rollout_agents is not None else self._rollout_agents()
        self.rollouts = Rollouts(None if cfg.rollout == "network" else self.rollout_agents,
                                 network=prior if cfg.rollout == "network" else None,
                                 value_network=self.value_network, leaf_tricks=cfg.leaf_tricks,
                                 points_weight=cfg.points_weight)
        self.locations = None
        if cfg.inference == "locations":
            from agents.search.locations import LocationGuide, shared_model  # (torch: only when asked for)

            self.locations = LocationGuide(shared_model(cfg.location_model), strength=cfg.location_strength)
        self.last = SearchStats()

    def _rollout_agents(self) -> list[Agent]:
        if self.config.rollout in ("prior", "network"):
            return [self.prior] * 4
        return [BOTS[self.config.rollout](seat) for seat in range(4)]

    def table_mismatch(self, ruleset: Any) -> str | None:
        """Why a network of this search (its prior, its value network) cannot play a table of ``ruleset``
        (another rule set or number of decks, named), or ``None``."""
        for network in (self.prior, self.value_network):
            mismatch = getattr(network, "table_mismatch", None)
            found = mismatch(ruleset) if mismatch is not None else None
            if found is not None:
                return found
        return None

    def can_play(self, ruleset: Any) -> bool:
        """Whether the search, and every network it holds, can sit at a table of ``ruleset``."""
        return self.table_mismatch(ruleset) is None and super().can_play(ruleset)

    def policy(self, ruleset: Any) -> Any | None:
        """The standard game's decisions through this agent's methods; a network of the search trained on
        another table raises :class:`ValueError` naming the mismatch."""
        mismatch = self.table_mismatch(ruleset)
        if mismatch is not None:
            raise ValueError(f"{self.name}: {mismatch}")
        return super().policy(ruleset)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng.seed(seed)
        self.prior.reset(seed)

    def bid(self, view: PlayerView) -> Bid | None:
        return self.prior.bid(view)

    def play(self, view: PlayerView) -> tuple[int, ...]:
        legal = view.legal_plays(2)
        if len(legal.plays) == 1 and not legal.truncated:
            self.last = SearchStats(candidates=list(legal.plays), chosen=legal.plays[0])
            return legal.plays[0]
        return self.search(view)

    def search(self, view: PlayerView, worlds: Sequence[World] | None = None,
               extra: Sequence[tuple[int, ...]] = (),
               candidates: Sequence[tuple[int, ...]] | None = None) -> tuple[int, ...]:
        """The chosen play; over the given ``worlds`` (all of them, every candidate) instead of sampled ones.
        ``extra``: legal plays compared too (after the search's own candidates, when not among them), e.g. a
        learner's choice that its label must cover. ``candidates``: compare exactly these (the first standing
        for the prior's play) instead of the search's own."""
        start = time.perf_counter()
        deadline = start + self.config.time_budget
        cfg = self.config
        if candidates is not None:  # given plays are checked for legality below, as extra ones are
            if not candidates:
                raise ValueError("search: candidates, when given, must name at least one play")
            candidates, extra = [], [*candidates, *extra]
        elif cfg.candidate_order == "network":
            candidates = self._network_candidates(view)
        else:
            candidates = candidate_plays(view, tuple(sorted(self.prior.play(view))), cfg.max_candidates)
        for play in extra:
            play = tuple(sorted(play))
            if play not in candidates:
                if view.play_error(list(play)) is not None:
                    raise ValueError(f"search: the extra candidate {play} is not a legal play here")
                candidates.append(play)
        return self._compare(view, candidates, start, deadline, worlds, lambda: self.sampler(view), cfg.worlds)

    def bury(self, view: PlayerView) -> list[int]:
        """The prior's burial, or with ``burial_worlds`` > 0 the best of whole candidate burials
        (:mod:`agents.search.burials`) played out in worlds sampled at the burial, compared as plays are."""
        cfg = self.config
        prior = tuple(sorted(self.prior.bury(view)))
        if not cfg.burial_worlds or first_lead_refusal(view) is not None:
            return list(prior)
        start = time.perf_counter()
        candidates = burial_candidates(view, prior, cfg.burial_candidates)
        return list(self._compare(view, candidates, start, start + cfg.burial_time, None,
                                  lambda: WorldSampler(view), cfg.burial_worlds))

    def _compare(self, view: PlayerView, candidates: list[tuple[int, ...]], start: float, deadline: float,
                 worlds: Sequence[World] | None, sampler_of: Callable[[], WorldSampler | InferenceSampler],
                 budget: int) -> tuple[int, ...]:
        """The best of ``candidates`` (the first standing for the prior's) by successive halving over the
        given ``worlds``, or up to ``budget`` worlds drawn from the sampler ``sampler_of`` builds before
        ``deadline``; then the re-check. Records what it did in :attr:`last`."""
        cfg = self.config
        stats = SearchStats(candidates=candidates, chosen=candidates[0], searched=True)
        self.last = stats
        if len(candidates) == 1:
            stats.seconds = time.perf_counter() - start
            return candidates[0]
        sampler = None if worlds is not None else sampler_of()
        rng = random.Random(self.rng.getrandbits(64))
        budget = len(worlds) if worlds is not None else budget
        target = budget if worlds is not None else min(cfg.screen_worlds, budget)
        values: list[list[float]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        done = 0
        timed_out = False
        while True:
            if done < target and not timed_out:
                jobs = [(worlds[i] if worlds is not None else sampler.sample(rng), rng.getrandbits(32))
                        for i in range(done, target)]
                rows = self._rows(view, jobs, [candidates[c] for c in alive], deadline)
                for row in rows:
                    for c, value in zip(alive, row):
                        values[c].append(value)
                done += len(rows)
                stats.rollouts += len(rows) * len(alive)
                timed_out = len(rows) < len(jobs)
            if timed_out or done >= budget or len(alive) <= 1:
                break
            if all(_mean(values[c]) <= _mean(values[0]) for c in alive if c != 0):
                break  # nothing is ahead of the prior's play: more worlds would only confirm it
            ranked = sorted(alive, key=lambda c: (-_mean(values[c]), c))
            keep = max(2, math.ceil(len(alive) / 2))
            alive = sorted(set(ranked[:keep]) | {0})
            target = min(budget, 2 * done)
        stats.worlds = done
        stats.means = [_mean(v) if v else None for v in values]
        stats.worlds_of = [len(v) for v in values]
        if done:
            best = max(alive, key=lambda c: (_mean(values[c]), c == 0))
            if best != 0 and _confident(values[best], values[0], cfg.min_advantage_se):
                stats.chosen = candidates[best]
        if cfg.recheck_worlds and worlds is None and stats.chosen != candidates[0] and \
                not self.recheck(view, stats.chosen, candidates[0], sampler, rng):
            stats.chosen = candidates[0]
        stats.seconds = time.perf_counter() - start
        return stats.chosen

    def sampler(self, view: PlayerView) -> WorldSampler | InferenceSampler:
        """The world sampler of a decision: exact and uniform-ish, or with inference (``search.inference``)."""
        cfg = self.config
        if cfg.inference == "none":
            return WorldSampler(view)
        if self.locations is not None:
            if not self.locations.reads(view.ruleset):  # another table than the model's: the exact sampler
                return WorldSampler(view)
            return WorldSampler(view, place_weights=self.locations.place_weights(view))
        return InferenceSampler(view, cfg.inference, cfg.inference_oversample, cfg.inference_epsilon,
                                cfg.inference_temperature, self.prior)

    def _network_candidates(self, view: PlayerView) -> list[tuple[int, ...]]:
        """The prior network's best half of ``max_candidates`` whole plays by its Q (its own play first),
        then the search's ideas, then the network's next best, up to ``max_candidates`` (every legal play
        when there are few, as :func:`candidate_plays`)."""
        moves, q = self.prior.play_values(view)
        ranked = [tuple(sorted(moves[i])) for i in sorted(range(len(moves)), key=lambda i: (-float(q[i]), i))]
        ideas = candidate_plays(view, ranked[0], self.config.max_candidates)
        limit = max(len(ideas), self.config.max_candidates)
        half = math.ceil(self.config.max_candidates / 2)
        found: list[tuple[int, ...]] = []
        for play in [*ranked[:half], *ideas, *ranked[half:]]:
            if play not in found and view.play_error(list(play)) is None:
                found.append(play)
        return found[:limit]

    def recheck(self, view: PlayerView, challenger: tuple[int, ...], prior: tuple[int, ...],
                sampler: WorldSampler | InferenceSampler, rng: random.Random) -> bool:
        """Whether ``challenger`` beats ``prior`` on fresh shared worlds: the lower confidence bound of the
        paired difference above 0 (``recheck_worlds`` worlds, or fewer when ``recheck_time`` ends first;
        fewer than two never override). Records ``(worlds, mean, bound)`` in :attr:`last`."""
        cfg = self.config
        deadline = time.perf_counter() + cfg.recheck_time
        diffs: list[float] = []
        while len(diffs) < cfg.recheck_worlds and time.perf_counter() < deadline:
            world, seed = sampler.sample(rng), rng.getrandbits(32)
            for challenger_value, prior_value in self._rows(view, [(world, seed)], [challenger, prior], deadline):
                diffs.append(challenger_value - prior_value)
        bound = lower_confidence_bound(diffs, cfg.recheck_z)
        self.last.recheck = (len(diffs), sum(diffs) / len(diffs) if diffs else 0.0, bound)
        return bound > 0

    def _rows(self, view: PlayerView, jobs: Sequence[tuple[World, int]], plays: Sequence[tuple[int, ...]],
              deadline: float | None) -> list[list[float]]:
        """The outcomes of ``plays`` in each job's world (whole rows done before ``deadline``):
        :meth:`agents.search.rollouts.Rollouts.rows`."""
        return self.rollouts.rows(view, jobs, plays, deadline)

    def _play_out(self, view: PlayerView, world: World, play: tuple[int, ...], seed: int) -> float:
        """Our team's outcome of ``play`` in ``world``, the rest of the hand by the rollout policy (or to
        its leaf, :mod:`agents.search.rollouts`)."""
        return self.rollouts.rows(view, [(world, seed)], [play])[0][0]


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _confident(challenger: list[float], prior: list[float], min_se: float) -> bool:
    """The challenger's paired advantage over the prior is positive by ``min_se`` standard errors."""
    diffs = [a - b for a, b in zip(challenger, prior)]
    n = len(diffs)
    mean = sum(diffs) / n
    if mean <= 0:
        return False
    if n < 2:
        return True
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean >= min_se * math.sqrt(var / n)


def lower_confidence_bound(diffs: Sequence[float], z: float) -> float:
    """``mean - z * standard error`` of paired differences; ``-inf`` for fewer than two."""
    n = len(diffs)
    if n < 2:
        return -math.inf
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean - z * math.sqrt(var / n)
