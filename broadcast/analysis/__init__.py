"""Engine evaluation for spectators (`--eval`): a bounded cache, a bounded queue, one
low-priority Stockfish process, and the supervised task that feeds it the public
(delayed) positions. See docs/web.md, "Engine evaluation"."""
