"""What the printed sheets show, from a tournament state. Pure (state -> values).

A round's sheet (its games by hall table, its byes, the players it leaves out), the
standings and the crosstable. The state is whichever the caller passes: the delayed public
one for `/print/...`, the live one for the desk's `/arbiter/print/...`; nothing here knows
which. Tables are the hall's (`broadcast.config.tables.table_of`); standings are the public
standings page's own (`web.json_views.standings_json`), never computed a second way.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

from markupsafe import Markup

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.config.tables import table_of
from broadcast.fide.crosstable import Crosstable, ResultCode, RoundEntry
from broadcast.tournament.tournament_state import SectionState, TournamentState
from web import json_views

__all__ = [
    "ByeLine",
    "CrossRow",
    "CrossSheet",
    "NameLine",
    "Progress",
    "RoundSheet",
    "Seat",
    "TableGame",
    "crosstable_sheet",
    "name_key",
    "points_text",
    "progress",
    "round_sheet",
    "standings_rows",
]

Colour = Literal["white", "black", ""]
# A table's QR code for the pairing sheet (`web.checkin.parts.table_qr`), by hall table.
QrOf = Callable[[int], Markup | None]

FORFEITS = frozenset({"+-", "-+", "--"})


def points_text(points: float) -> str:
    """Points as a sheet prints them: 0, ½, 1, 1½ (a 3-1-0 score as it is)."""
    whole, half = divmod(points, 1.0)
    if half == 0.5:
        return "½" if whole == 0 else f"{int(whole)}½"
    if half == 0:
        return str(int(whole))
    return f"{points:g}"


def name_key(name: str) -> tuple[str, str]:
    """How a list by name sorts: accents and case aside ("Álvarez" beside "Alvarez"),
    then as written, so equal keys keep one order."""
    plain = unicodedata.normalize("NFKD", name)
    folded = "".join(c for c in plain if not unicodedata.combining(c)).casefold()
    return folded, name


@dataclass(frozen=True, slots=True)
class Seat:
    """A player as a round's sheet names them: points before the round; `withdrawn` when
    the player is out of the event by this round (their game is a forfeit)."""

    start: int
    name: str
    title: str
    rating: int | None
    points: float
    withdrawn: bool = False


@dataclass(frozen=True, slots=True)
class TableGame:
    """One game of the round at its hall table (`board`: the section's pairing board)."""

    table: int
    board: int
    white: Seat
    black: Seat
    result: str  # the recorded result's code ("1-0", "+-", ...), "" while none
    qr: Markup | None = None

    @property
    def result_text(self) -> str:
        return json_views.RESULT_TEXT.get(self.result, self.result)

    @property
    def forfeit(self) -> bool:
        """A result known before play (a withdrawal's forfeit): the pairing sheet shows it."""
        return self.result in FORFEITS


@dataclass(frozen=True, slots=True)
class ByeLine:
    """A player of the round without a game: the bye's code (U: the pairing bye; F, H, Z:
    a bye worth 1, ½, 0)."""

    player: Seat
    code: str


@dataclass(frozen=True, slots=True)
class NameLine:
    """One line of the list by name: where the player sits, or their bye."""

    name: str
    start: int
    table: int | None
    colour: Colour
    opponent: str
    bye: str  # the bye's code, "" with a game
    absent: bool = False  # not paired in the round (withdrawn, not joined yet)


@dataclass(frozen=True, slots=True)
class RoundSheet:
    """A paired round of a section: games by table, byes, and who is not in it."""

    section: str
    round: int
    start: dt.datetime | None
    games: tuple[TableGame, ...]
    byes: tuple[ByeLine, ...]
    absent: tuple[Seat, ...]

    @property
    def with_qr(self) -> bool:
        """Some table has a QR code (the sheet prints the column)."""
        return any(g.qr is not None for g in self.games)

    def names(self) -> tuple[NameLine, ...]:
        """Every player of the round by name: their table and colour, or their bye."""
        lines: list[NameLine] = []
        for g in self.games:
            lines.append(NameLine(g.white.name, g.white.start, g.table, "white", g.black.name, ""))
            lines.append(NameLine(g.black.name, g.black.start, g.table, "black", g.white.name, ""))
        for b in self.byes:
            lines.append(NameLine(b.player.name, b.player.start, None, "", "", b.code))
        for p in self.absent:
            lines.append(NameLine(p.name, p.start, None, "", "", "", absent=True))
        return tuple(sorted(lines, key=lambda line: (*name_key(line.name), line.start)))


def _seat(state: SectionState, table: Crosstable, player: int, number: int) -> Seat:
    entry = state.players.get(player)
    withdrawn = state.withdrawn.get(player)
    return Seat(
        start=player,
        name=entry.name if entry is not None else f"Player {player}",
        title=entry.title if entry is not None else "",
        rating=(entry.rating or None) if entry is not None else None,
        points=table.score(player, upto=number - 1) if player in table else 0.0,
        withdrawn=withdrawn is not None and withdrawn <= number,
    )


def _start(section: SectionConfig, number: int) -> dt.datetime | None:
    try:
        return section.round_start(number).start
    except KeyError:
        return None


def round_sheet(
    config: EventConfig,
    tournament: TournamentState,
    section: SectionConfig,
    number: int,
    qr: QrOf | None = None,
) -> RoundSheet | None:
    """Round `number` of `section` as the sheets print it; None while it is not paired.
    `qr`: each table's QR code (the desk's pairing sheet), or None (no column)."""
    state = tournament.section(section.name)
    rnd = state.rounds.get(number)
    if rnd is None:
        return None
    table = state.to_crosstable()
    games: list[TableGame] = []
    for p in sorted(rnd.pairings, key=lambda p: p.board):
        if p.black is None:
            continue  # the pairing bye: with the other byes
        where = table_of(config, section.name, p.board)
        result = rnd.results.get(p.white)
        games.append(
            TableGame(
                table=where,
                board=p.board,
                white=_seat(state, table, p.white, number),
                black=_seat(state, table, p.black, number),
                result="" if result is None else result.result,
                qr=qr(where) if qr is not None else None,
            )
        )
    byes = tuple(
        ByeLine(_seat(state, table, player, number), code)
        for player, code in state.round_byes(number).items()
    )
    placed = {x for p in rnd.pairings for x in p.players()} | {b.player.start for b in byes}
    absent = tuple(
        _seat(state, table, player, number)
        for player in sorted(state.players)
        if player not in placed
    )
    return RoundSheet(section.name, number, _start(section, number), tuple(games), byes, absent)


@dataclass(frozen=True, slots=True)
class Progress:
    """How far the section's results reach: every result of rounds 1..`complete` is in;
    `partial`: some result of a later round is in too (standings mid-round)."""

    complete: int
    partial: bool


def progress(tournament: TournamentState, section: SectionConfig) -> Progress:
    state = tournament.section(section.name)
    complete = 0
    while complete + 1 in state.rounds and state.rounds[complete + 1].complete:
        complete += 1
    later = [r for n, r in state.rounds.items() if n > complete]
    partial = any(r.results for r in later)
    return Progress(complete, partial)


def standings_rows(
    config: EventConfig, tournament: TournamentState, section: SectionConfig
) -> list[dict[str, object]]:
    """The standings as the public standings page ranks them (the same function)."""
    return json_views.standings_json(config, tournament, section)


@dataclass(frozen=True, slots=True)
class CrossRow:
    rank: int
    start: int
    name: str
    title: str
    rating: int | None
    federation: str
    cells: tuple[str | None, ...]  # None: the player's own cell in a round robin's grid
    points: float
    note: str


@dataclass(frozen=True, slots=True)
class CrossSheet:
    """The crosstable: a round robin as a grid of opponents (by starting number), a Swiss
    by round (opponent, colour, result), ranked."""

    grid: bool
    columns: tuple[str, ...]
    rows: tuple[CrossRow, ...]


_SCORE = {
    ResultCode.WIN: "1",
    ResultCode.DRAW: "½",
    ResultCode.LOSS: "0",
    ResultCode.UNRATED_WIN: "1",
    ResultCode.UNRATED_DRAW: "½",
    ResultCode.UNRATED_LOSS: "0",
    ResultCode.FORFEIT_WIN: "+",
    ResultCode.FORFEIT_LOSS: "\u2212",  # a minus sign, as wide as the plus
}
_COLOUR = {"w": "○", "b": "●"}  # white and black, in every language


def _score(entry: RoundEntry) -> str:
    return "" if entry.result is None else _SCORE.get(entry.result, "")


def _round_cell(table: Crosstable, entry: RoundEntry, bye: Callable[[str], str]) -> str:
    if entry.opponent is None:
        if entry.result is None or entry.result in (ResultCode.ZERO_BYE, ResultCode.BLANK):
            return "–" if entry.result is not None else ""
        return bye(points_text(table.scoring.points(entry.result)))
    colour = _COLOUR.get(entry.colour or "", "")
    return f"{entry.opponent}{colour} {_score(entry)}".strip()


def crosstable_sheet(
    config: EventConfig,
    tournament: TournamentState,
    section: SectionConfig,
    bye: Callable[[str], str] = lambda points: f"bye {points}",
) -> CrossSheet:
    """The section's crosstable (`broadcast.fide.crosstable`, from the state), its points
    and ranks from the standings (`standings_rows`). `bye` words a bye worth some points
    in the sheet's language."""
    state = tournament.section(section.name)
    table = state.to_crosstable()
    ranked: Mapping[int, Mapping[str, object]] = {
        int(str(r["start"])): r for r in standings_rows(config, tournament, section)
    }
    grid = section.system != "swiss"
    starts = table.starts()
    rows: list[CrossRow] = []
    for player, entries in table:
        if grid:
            against: dict[int, list[str]] = {}
            for entry in entries:
                if entry.opponent is not None:
                    against.setdefault(entry.opponent, []).append(_score(entry))
            cells: tuple[str | None, ...] = tuple(
                None if other == player.start else " ".join(filter(None, against.get(other, [])))
                for other in starts
            )
        else:
            cells = tuple(_round_cell(table, e, bye) for e in entries)
        row = ranked.get(player.start, {})
        rank = row.get("rank", 0)
        points = row.get("points", table.score(player.start))
        rows.append(
            CrossRow(
                rank=rank if isinstance(rank, int) else 0,
                start=player.start,
                name=player.name,
                title=player.title,
                rating=player.rating,
                federation=player.federation,
                cells=cells,
                points=float(points) if isinstance(points, int | float) else 0.0,
                note=str(row.get("note") or ""),
            )
        )
    if not grid:  # a Swiss reads best first; a round robin by its Berger numbers
        rows.sort(key=lambda r: (r.rank or len(rows) + 1, r.start))
    columns = (
        tuple(str(s) for s in starts) if grid else tuple(str(n) for n in range(1, table.rounds + 1))
    )
    return CrossSheet(grid, columns, tuple(rows))
