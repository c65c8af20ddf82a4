"""Deep Monte Carlo self-play: action features, actors, learner, checkpoints."""
