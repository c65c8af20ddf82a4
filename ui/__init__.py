"""People playing against the agents: a terminal game and a web page."""
