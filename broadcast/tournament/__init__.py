"""Tournaments: players, rounds, pairings, results, byes, standings and tie-breaks, TRF."""
