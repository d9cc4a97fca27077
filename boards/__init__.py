"""E-boards: the DGT protocol codec, async drivers, port discovery and move reconstruction."""
