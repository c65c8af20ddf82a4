"""Self-play machinery any learner uses, apart from the algorithm: the samples actors ship
(:mod:`.samples`), actor backends running the learner's self-play tables in lockstep
(:mod:`.actor_pool` protocols and seeds, :mod:`.local_pool`, :mod:`.ray_pool`, chosen by
:mod:`.backends`), the run configuration (:mod:`.config`), checkpoints and their release
(:mod:`.checkpoint`, :mod:`.export`), snapshots kept during training (:mod:`.snapshots`) and the
evaluation of a checkpoint while training (:mod:`.evaluation`). What decides and learns (tables,
network, loss) is the algorithm's, e.g. :mod:`agents.dmc`, and is handed in (a tables factory).
"""
