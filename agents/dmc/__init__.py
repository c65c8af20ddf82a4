"""Deep Monte Carlo: what is specific to the algorithm. Action and whole-play features
(:mod:`.features`, :mod:`.plays`), the Q-network (:mod:`.models`), the self-play tables that
decide with it (:mod:`.tables` for card steps, :mod:`.play_tables` for whole plays), the learner's
losses and steps (:mod:`.learner`) and a trained checkpoint as an agent (:mod:`.agent`). The
learner-independent machinery (actors, checkpoints, run config) is :mod:`agents.selfplay`.
"""
