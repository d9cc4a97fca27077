"""Games: what is played on each board of each round, folded from events.

A game is one pairing of one round; a physical board follows it. Its moves, clock times,
sync state and result come from reconstruction events and arbiter decisions, all of them
journaled events; `GameState` is their fold.
"""
