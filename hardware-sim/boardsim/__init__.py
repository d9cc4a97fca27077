"""Emulated DGT e-boards and clocks on pseudo-terminals, with scripted players and faults."""
