"""ShengjiZero's game: cards, rules, the hand state machine and the PettingZoo environment.

Importing the package registers the environment with PettingZoo's registry as
``shengji_v0``: ``pettingzoo.make("aec", "shengji_v0")``, and the single-agent view
(:class:`env.gym_env.ShengjiGymEnv`) with Gymnasium's as ``ShengjiZero/Shengji-v0``:
``gymnasium.make("ShengjiZero/Shengji-v0", opponents=[a, b, c])``.
"""

import gymnasium as _gymnasium

GYM_ID = "ShengjiZero/Shengji-v0"
if GYM_ID not in _gymnasium.registry:
    _gymnasium.register(id=GYM_ID, entry_point="env.gym_env:ShengjiGymEnv")

try:
    from pettingzoo import register as _register
except ImportError:  # pettingzoo too old for a registry: the engine still works
    _register = None

if _register is not None:
    from pettingzoo import aec_registry as _aec_registry

    if "shengji_v0" not in _aec_registry:
        _register("aec", "shengji_v0", entry_point="env.shengji_env:env")
