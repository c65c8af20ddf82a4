"""Exceptions of the rules engine."""


class IllegalActionError(ValueError):
    """An action the rules do not allow (wrong card, wrong count, follow duty, turn or phase).

    Raised before anything changes: the game state is left exactly as it was.
    """
