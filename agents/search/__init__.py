"""Decision-time search: sampled worlds (:mod:`.worlds`), candidate plays (:mod:`.candidates`)
and the Perfect Information Monte Carlo agent (:mod:`.agent`)."""

from agents.search.agent import SearchAgent, SearchConfig
from agents.search.worlds import InconsistentViewError, World, WorldSampler, world_hand

__all__ = ["InconsistentViewError", "SearchAgent", "SearchConfig", "World", "WorldSampler", "world_hand"]
