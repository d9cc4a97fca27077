"""Tournaments as events and state: sections, players, rounds, pairings, results, byes,
the bye policy, play-offs, prizes, moved round starts and final standings. The FIDE
rules they count with (crosstables, tie-breaks, pairing engines, TRF) are `broadcast.fide`."""
