"""A broadcast folder: the layout existing uploaders (e.g. the Lichess Broadcaster app) read.

::

    ROOT/round-1/game-1.pgn     one file per board
    ROOT/round-1/games.pgn      every game of the round in one file
    ROOT/round-1/index.json     the round's pairings, results and live games (LiveChess's)
    ROOT/round-2/...
    ROOT/tournament.json        the rounds: games and whether live (LiveChess's)
    ROOT/team-crosstable.txt    a team section's crosstable after its complete rounds

An event with several sections gets one folder per section first
(``ROOT/<section-slug>/round-N/...``), since every section numbers its boards from 1
and is usually a broadcast of its own. The two JSON files are LiveChess's export shapes
(`broadcast.export.livechess`), so that what reads a LiveChess folder reads this one.

Call `export_round_folder` after every change of the (delayed) book: files are written
atomically (a reader never sees half a file) and only when their text changed, so an
uploader watching modification times sees real changes only. A ``game-M.pgn`` whose
board no longer exists in the round (a pairing edit) is removed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from broadcast.config.model import EventConfig
from broadcast.export.livechess import json_text, round_index, tournament_json
from broadcast.export.pgn import game_pgn, round_pgn
from broadcast.export.team_crosstable import section_team_crosstable_text
from broadcast.games.book import GameBook
from broadcast.games.ids import slug
from broadcast.publish.files import write_atomically
from broadcast.tournament.tournament_state import TournamentState

__all__ = [
    "ROUND_FILE",
    "ROUND_INDEX_FILE",
    "TEAM_CROSSTABLE_FILE",
    "TOURNAMENT_FILE",
    "FolderUpdate",
    "export_event_folder",
    "export_round_folder",
    "round_folder",
    "write_if_changed",
]

ROUND_FILE = "games.pgn"
ROUND_INDEX_FILE = "index.json"
TOURNAMENT_FILE = "tournament.json"
TEAM_CROSSTABLE_FILE = "team-crosstable.txt"
_GAME_FILE = re.compile(r"game-(\d+)\.pgn")


@dataclass(frozen=True, slots=True)
class FolderUpdate:
    """What one export did: files (re)written, left alone because equal, and removed."""

    written: tuple[Path, ...] = ()
    unchanged: tuple[Path, ...] = ()
    removed: tuple[Path, ...] = ()

    def __add__(self, other: FolderUpdate) -> FolderUpdate:
        return FolderUpdate(
            self.written + other.written,
            self.unchanged + other.unchanged,
            self.removed + other.removed,
        )


def round_folder(root: str | Path, event: EventConfig, section: str, round_number: int) -> Path:
    """Where a round's files go: ``root/round-N``, or ``root/<section>/round-N`` when the
    event has several sections."""
    event.section(section)  # KeyError naming the sections for a typo
    base = Path(root)
    if len(event.sections) > 1:
        base = base / slug(section)
    return base / f"round-{round_number}"


def write_if_changed(path: Path, text: str) -> bool:
    """Write `text` to `path` atomically unless the file already holds exactly it."""
    try:
        if path.read_text(encoding="utf-8") == text:
            return False
    except (FileNotFoundError, UnicodeDecodeError):
        pass  # new, or not ours to trust: write it
    write_atomically(path, text)
    return True


def export_round_folder(
    root: str | Path,
    book: GameBook,
    event: EventConfig,
    section: str,
    round_number: int,
    *,
    tournament: TournamentState | None = None,
    pairings: TournamentState | None = None,
) -> FolderUpdate:
    """Bring one round's folder up to date with `book` (see `pgn.round_pgn` for `tournament`,
    `pgn.game_pgn` for `pairings`: the public delayed state's, for play-off games)."""
    folder = round_folder(root, event, section, round_number)
    folder.mkdir(parents=True, exist_ok=True)
    full = book.synced(tournament) if tournament is not None else book
    games = full.round_games(section, round_number)
    texts = {
        folder / f"game-{g.key.board}.pgn": game_pgn(
            g, event, tournament=tournament, pairings=pairings
        )
        for g in games
    }
    texts[folder / ROUND_FILE] = round_pgn(
        full, event, section, round_number, tournament=tournament, pairings=pairings
    )
    config = event.section(section)
    texts[folder / ROUND_INDEX_FILE] = json_text(round_index(full, config, round_number))
    texts[folder.parent / TOURNAMENT_FILE] = json_text(tournament_json(full, event, section))
    if config.is_team and tournament is not None:
        # Beside the section's rounds: the crosstable as the public state has it now.
        texts[folder.parent / TEAM_CROSSTABLE_FILE] = section_team_crosstable_text(
            config, tournament.section(section), edition=event.tiebreak_edition
        )
    written: list[Path] = []
    unchanged: list[Path] = []
    for path, text in texts.items():
        (written if write_if_changed(path, text) else unchanged).append(path)
    removed: list[Path] = []
    for path in sorted(folder.iterdir()):
        if _GAME_FILE.fullmatch(path.name) and path not in texts:
            path.unlink(missing_ok=True)
            removed.append(path)
    return FolderUpdate(tuple(written), tuple(unchanged), tuple(removed))


def export_event_folder(
    root: str | Path,
    book: GameBook,
    event: EventConfig,
    *,
    tournament: TournamentState | None = None,
    pairings: TournamentState | None = None,
) -> FolderUpdate:
    """Every round of every section that has games: the whole event's folder."""
    full = book.synced(tournament) if tournament is not None else book
    update = FolderUpdate()
    for section in event.sections:
        rounds = sorted({g.key.round for g in full.games.values() if g.key.section == section.name})
        for number in rounds:
            update += export_round_folder(
                root, full, event, section.name, number, tournament=tournament, pairings=pairings
            )
    return update
