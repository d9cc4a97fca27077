"""Move reconstruction: board positions (and clock readings) in, a legal game out.

`Reconstructor` is the entry point; it is pure (no I/O, no asyncio, time passed in).
Feed it `feed_position`, `feed_clock` and `tick`; it returns events (see `events`).
`GameLine` folds those events back into the current game, e.g. for PGN export.
"""

from boards.reconstruction.config import ReconstructionConfig
from boards.reconstruction.line import GameLine
from boards.reconstruction.reconstruction_events import (
    BackInSync,
    MoveClocked,
    MovePlayed,
    MoveRetracted,
    NewGame,
    OutOfSync,
    ReconstructionEvent,
    ResultSignalled,
)
from boards.reconstruction.reconstructor import Reconstructor
from boards.reconstruction.result_signal import result_of_kings

__all__ = [
    "BackInSync",
    "GameLine",
    "MoveClocked",
    "MovePlayed",
    "MoveRetracted",
    "NewGame",
    "OutOfSync",
    "ReconstructionConfig",
    "ReconstructionEvent",
    "Reconstructor",
    "ResultSignalled",
    "result_of_kings",
]
