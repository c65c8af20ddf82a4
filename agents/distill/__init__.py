"""Search distillation (expert iteration): the search labels positions, the network learns its values."""
