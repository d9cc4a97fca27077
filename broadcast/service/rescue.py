"""The games and results as the service holds them, written beside a journal that another
program overwrote: what boardwire cannot put back into the journal, the organiser gets as
PGN and TRF (the export's own formats), to check the restored journal against.

It is the live state, not the delayed one: the files go beside the journal, which holds
everything anyway, never to the public.
"""

from __future__ import annotations

import datetime as dt
import os
import tempfile
from pathlib import Path

from broadcast.config.model import EventConfig
from broadcast.export.pgn import event_pgn
from broadcast.export.trf import section_trf
from broadcast.games.ids import slug
from broadcast.service.event_state import EventState


def save_state(journal: str, state: EventState, config: EventConfig) -> tuple[str, ...]:
    """Write `state`'s games (PGN) and each section's results (TRF) as
    JOURNAL.overwritten-STAMP.pgn / .trf beside the journal (or in the temp folder when
    that folder cannot take them); the files written. OSError when neither can."""
    stamp = dt.datetime.now().strftime("%Y%m%dT%H%M%S")
    texts = {".pgn": event_pgn(state.book, config, tournament=state.tournament)}
    for section in config.sections:
        suffix = ".trf" if len(config.sections) == 1 else f"-{slug(section.name)}.trf"
        texts[suffix] = section_trf(state.tournament, config, section.name)
    name = f"{Path(journal).name}.overwritten-{stamp}"
    for folder in (Path(journal).resolve().parent, Path(tempfile.gettempdir())):
        try:
            return tuple(
                _write_new(folder / f"{name}{suffix}", text) for suffix, text in texts.items()
            )
        except OSError:
            continue
    raise OSError(f"neither {Path(journal).parent} nor {tempfile.gettempdir()} can be written")


def _write_new(path: Path, text: str) -> str:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    return str(path)


__all__ = ["save_state"]
