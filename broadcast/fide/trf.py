"""FIDE TRF-16 (and the TRF-2026 numbered records we use): read into a crosstable, write back.

Reading is tolerant of real files: CRLF or bare CR line ends, a BOM, short lines (trailing
round slots left off), missing points or rank. What cannot be read raises :class:`TrfError`
naming the line and the 1-based column. Writing produces exact TRF-16 columns (points with
one decimal, ranks) that pairing programs (bbpPairings, JaVaFo, Vega) and the FIDE rating
server read.

Header records are kept in file order as :class:`TrfRecord` so a file round-trips; the
properties of :class:`TrfFile` interpret the ones we need (012..132, XXR/XXC, 142 rounds,
152 first colour, 192 type, 202/212 tie-breaks, 222 time control, 240 byes, ``###``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from broadcast.fide.crosstable import (
    EMPTY,
    OPPOSITE,
    Colour,
    Crosstable,
    CrosstableError,
    Player,
    ResultCode,
    RoundEntry,
    Scoring,
    System,
)
from broadcast.fide.teams.trf_records import (
    TEAM_RECORD,
    TeamRecordError,
    TrfTeam,
    check_team_players,
    parse_team_record,
)
from broadcast.text import clean_text
from clocks.errors import BoardwireError

__all__ = [
    "TrfError",
    "TrfFile",
    "TrfRecord",
    "load_trf",
    "read_trf",
    "write_trf",
]

# 1-based columns of the TRF-16 player line (the reference table), as 0-based slices.
_START = slice(4, 8)
_SEX = slice(9, 10)
_TITLE = slice(10, 13)
_NAME = slice(14, 47)
_RATING = slice(48, 52)
_FED = slice(53, 56)
_FIDE_ID = slice(57, 68)
_BIRTH = slice(69, 79)
_POINTS = slice(80, 84)
_RANK = slice(85, 89)
_ROUND1 = 91  # 0-based index of column 92, the first round's opponent number
_ROUND_WIDTH = 10
MAX_ROUNDS = 99  # beyond any real event; a larger count is a damaged or hostile file
MAX_PLAYERS = 9999  # the starting number has four columns


class TrfError(BoardwireError, ValueError):
    """A TRF line or field that cannot be read; ``line`` and ``column`` are 1-based."""

    def __init__(self, line: int, column: int | None, message: str) -> None:
        self.line = line
        self.column = column
        self.reason = message
        where = f"line {line}" if column is None else f"line {line}, column {column}"
        super().__init__(f"TRF {where}: {message}")


@dataclass(frozen=True)
class TrfRecord:
    """A non-player line: ``code`` is the first three characters, ``value`` the rest.

    For ``###`` comments ``value`` is everything after the ``###``; for the others it is
    the text from column 5 on, with trailing blanks removed.
    """

    code: str
    value: str

    def render(self) -> str:
        """The line as written in a file."""
        if self.code == "###":
            return f"###{self.value}"
        return f"{self.code} {self.value}".rstrip()


@dataclass(frozen=True)
class TrfFile:
    """A tournament report: the crosstable plus the header records around the players.

    ``records`` come before the player lines, ``trailer`` after them (bbpPairings' test
    files put ``XXR`` last); both keep file order, comments included.
    """

    crosstable: Crosstable
    records: tuple[TrfRecord, ...] = ()
    trailer: tuple[TrfRecord, ...] = ()

    def record(self, code: str) -> str | None:
        """The value of the first record with this code, or None."""
        for rec in (*self.records, *self.trailer):
            if rec.code == code:
                return rec.value
        return None

    def all_records(self, code: str) -> list[str]:
        """The values of every record with this code, in file order."""
        return [r.value for r in (*self.records, *self.trailer) if r.code == code]

    @property
    def name(self) -> str | None:
        """Record 012, tournament name."""
        return _strip(self.record("012"))

    @property
    def city(self) -> str | None:
        """Record 022."""
        return _strip(self.record("022"))

    @property
    def federation(self) -> str | None:
        """Record 032."""
        return _strip(self.record("032"))

    @property
    def start_date(self) -> str | None:
        """Record 042, as written."""
        return _strip(self.record("042"))

    @property
    def end_date(self) -> str | None:
        """Record 052, as written."""
        return _strip(self.record("052"))

    @property
    def tournament_type(self) -> str | None:
        """Record 192 (TRF-2026 encoded type) if present, else 092 (free text)."""
        return _strip(self.record("192")) or _strip(self.record("092"))

    @property
    def chief_arbiter(self) -> str | None:
        """Record 102."""
        return _strip(self.record("102"))

    @property
    def time_control(self) -> str | None:
        """Record 222 (TRF-2026 encoded) if present, else 122 (free text)."""
        return _strip(self.record("222")) or _strip(self.record("122"))

    @property
    def round_dates(self) -> list[str]:
        """Record 132: the date of each round (columns 92-99, +10 per round)."""
        line = self.record("132")
        if line is None:
            return []
        text = "132 " + line
        dates = []
        pos = _ROUND1
        while pos < len(text):
            dates.append(text[pos : pos + 8].strip())
            pos += _ROUND_WIDTH
        return dates

    @property
    def declared_rounds(self) -> int | None:
        """Planned rounds from record 142 (TRF-2026) or XXR, if given."""
        for code in ("142", "XXR"):
            value = self.record(code)
            if value is not None and value.strip().isascii() and value.strip().isdigit():
                return int(value.strip()[:9])
        return None

    @property
    def first_colour(self) -> Colour | None:
        """Colour of the top player in round 1: record 152 or ``XXC white1/black1``."""
        value = self.record("152")
        if value is None:
            value = self.record("XXC")
        if value is None:
            return None
        text = value.strip().lower()
        if text.startswith("w"):
            return "w"
        if text.startswith("b"):
            return "b"
        return None

    @property
    def tiebreaks(self) -> list[str]:
        """Tie-break codes from record 202 (or 212 without its leading points), as written."""
        for code in ("202", "212"):
            value = self.record(code)
            if value is not None:
                codes = [c for c in re.split(r"[,\s]+", value.strip()) if c]
                if code == "212" and codes and codes[0].upper() in {"PTS", "MPTS", "GPTS"}:
                    codes = codes[1:]
                return codes
        return []

    @property
    def byes(self) -> dict[int, list[tuple[str, int]]]:
        """Record 240 (TRF-2026): round -> [(kind H/F, start number), ...].

        Layout: column 5 the bye kind, columns 7-9 the round, then start numbers in
        4-character fields separated by one blank from column 11.
        """
        out: dict[int, list[tuple[str, int]]] = {}
        for value in self.all_records("240"):
            text = "240 " + value
            kind = text[4:5].upper()
            rnd = text[6:9].strip()
            if not rnd.isdigit():
                continue
            for pos in range(10, len(text), 5):
                num = text[pos : pos + 4].strip()
                if num.isdigit() and int(num) > 0:
                    out.setdefault(int(rnd), []).append((kind, int(num)))
        return out

    @property
    def teams(self) -> tuple[TrfTeam, ...]:
        """Record 013: the teams, numbered in file order (`broadcast.fide.teams.trf_records`)."""
        return tuple(
            parse_team_record(value, number)
            for number, value in enumerate(self.all_records(TEAM_RECORD), start=1)
        )

    @property
    def comments(self) -> list[str]:
        """``###`` lines, without the marker."""
        return self.all_records("###")

    @classmethod
    def from_crosstable(
        cls,
        crosstable: Crosstable,
        *,
        name: str = "",
        city: str = "",
        federation: str = "",
        start_date: str = "",
        end_date: str = "",
        chief_arbiter: str = "",
        time_control: str = "",
        tiebreaks: Sequence[str] = (),
    ) -> TrfFile:
        """A report for a crosstable built in memory, with the usual header records."""
        rated = sum(1 for p in crosstable.players if p.rating)
        kind = "Individual: Swiss-System" if crosstable.system == "swiss" else "Round Robin"
        pairs = [
            ("012", name),
            ("022", city),
            ("032", federation),
            ("042", start_date),
            ("052", end_date),
            ("062", str(len(crosstable.players))),
            ("072", str(rated)),
            ("092", kind),
            ("102", chief_arbiter),
            ("122", time_control),
        ]
        records = [TrfRecord(c, v) for c, v in pairs if v]
        records.append(TrfRecord("XXR", str(crosstable.rounds)))
        if tiebreaks:
            records.append(TrfRecord("202", ",".join(tiebreaks)))
        return cls(crosstable=crosstable, records=tuple(records))


_LINE_END = re.compile(r"\r\n|\r|\n")


def _lines(text: str) -> list[str]:
    """The file's lines, split at CR LF, CR or LF only: `str.splitlines` would also split
    at a Latin-1 file's 0x85 (NEL) or a form feed inside a name."""
    lines = _LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def _strip(value: str | None) -> str | None:
    if value is None:
        return None
    return value.strip() or None


# -- reading ----------------------------------------------------------------------------------


@dataclass
class _RawPlayer:
    line_no: int
    player: Player
    slots: list[tuple[int, RoundEntry | None]] = field(default_factory=list)  # None: blank


def _int_field(text: str, line_no: int, sl: slice, what: str) -> int | None:
    raw = text[sl].strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        raise TrfError(
            line_no, sl.start + 1, f"{what} must be a whole number, got {raw!r}"
        ) from None


def _parse_player(text: str, line_no: int) -> _RawPlayer:
    start = _int_field(text, line_no, _START, "starting number (columns 5-8)")
    if start is None or start < 1:
        raise TrfError(line_no, 5, "player line without a starting number in columns 5-8")
    name = clean_text(text[_NAME])
    rating = _int_field(text, line_no, _RATING, "rating (columns 49-52)")
    fide_id = _int_field(text, line_no, _FIDE_ID, "FIDE id (columns 58-68)")
    raw_points = text[_POINTS].strip().replace(",", ".")
    points: float | None = None
    if raw_points:
        try:
            points = float(raw_points)
        except ValueError:
            raise TrfError(
                line_no, 81, f"points (columns 81-84) must be a number like 4.5, got {raw_points!r}"
            ) from None
    rank = _int_field(text, line_no, _RANK, "rank (columns 86-89)")
    player = Player(
        start=start,
        name=name,
        rating=rating or None,  # 0 means unrated in TRF
        fide_id=fide_id or None,
        federation=text[_FED].strip(),
        title=text[_TITLE].strip(),
        sex=text[_SEX].strip(),
        birth=text[_BIRTH].strip(),
        points=points,
        rank=rank,
    )
    raw = _RawPlayer(line_no, player)
    rnd = 0
    pos = _ROUND1
    while pos < len(text):
        rnd += 1
        if rnd > MAX_ROUNDS and text[pos:].strip():
            raise TrfError(line_no, pos + 1, f"more than {MAX_ROUNDS} round slots on one line")
        raw.slots.append((rnd, _parse_slot(text[pos : pos + 8], line_no, pos + 1, rnd)))
        pos += _ROUND_WIDTH
    # Trailing blank slots are "nothing written": drop them so rounds_played is right.
    while raw.slots and raw.slots[-1][1] is None:
        raw.slots.pop()
    return raw


def _parse_slot(slot: str, line_no: int, column: int, rnd: int) -> RoundEntry | None:
    """One round field (8 characters from the opponent number); None if all blank."""
    if not slot.strip():
        return None
    opp_text = slot[0:4].strip()
    colour_text = slot[5:6].strip().lower() if len(slot) > 5 else ""
    result_text = slot[7:8] if len(slot) > 7 else " "
    opponent: int | None = None
    if opp_text:
        if not opp_text.isdigit():
            raise TrfError(
                line_no,
                column,
                f"round {rnd}: opponent number must be digits (0000 for none), got {opp_text!r}",
            )
        opponent = int(opp_text) or None
    colour: Colour | None
    if colour_text in ("", "-"):
        colour = None
    elif colour_text in ("w", "b"):
        colour = "w" if colour_text == "w" else "b"
    else:
        raise TrfError(
            line_no, column + 5, f"round {rnd}: colour must be w, b or -, got {colour_text!r}"
        )
    result: ResultCode | None
    if result_text == " ":
        # A paired game without result is still to be played; blank without opponent is
        # TRF's zero-point bye.
        result = None if opponent is not None else ResultCode.BLANK
    else:
        try:
            result = ResultCode.parse(result_text.upper())
        except CrosstableError as exc:
            raise TrfError(line_no, column + 7, f"round {rnd}: {exc}") from None
    if opponent is None and result is not None and not result.is_bye:
        if result in (ResultCode.FORFEIT_LOSS, ResultCode.FORFEIT_WIN):
            # Some programs write an absence as "0000 - -" or a bye as "0000 - +".
            result = (
                ResultCode.ZERO_BYE if result is ResultCode.FORFEIT_LOSS else ResultCode.FULL_BYE
            )
        else:
            raise TrfError(
                line_no,
                column + 7,
                f"round {rnd}: result {result.value!r} needs an opponent (columns "
                f"{column}-{column + 3} say 0000)",
            )
    if opponent is not None and result is not None and result.is_bye:
        raise TrfError(
            line_no, column + 7, f"round {rnd}: bye code {result.value!r} with opponent {opponent}"
        )
    return RoundEntry(opponent, colour, result)


def _system_from(type_text: str | None) -> System:
    text = (type_text or "").upper()
    if "ROBIN" in text or "BERGER" in text or "RR" in text.replace("_", " ").split():
        return "round-robin"
    return "swiss"


def read_trf(
    text: str,
    *,
    system: System | None = None,
    scoring: Scoring | None = None,
) -> TrfFile:
    """Parse TRF text. ``system`` overrides what records 192/092 say (default Swiss)."""
    if text.startswith("\ufeff"):
        text = text[1:]
    records: list[TrfRecord] = []
    trailer: list[TrfRecord] = []
    raws: list[_RawPlayer] = []
    team_lines: list[int] = []  # the line of each 013 record, in order
    for line_no, line in enumerate(_lines(text), start=1):
        if not line.strip():
            continue
        code = line[:3]
        if code == "001":
            if len(raws) >= MAX_PLAYERS:
                raise TrfError(line_no, 1, f"more than {MAX_PLAYERS} player lines")
            raws.append(_parse_player(line.rstrip("\r\n"), line_no))
            continue
        if code == "###":
            rec = TrfRecord("###", line[3:].rstrip())
        elif len(code) == 3 and (code.isdigit() or code.isalpha()):
            rec = TrfRecord(code, line[4:].rstrip())
            if code == TEAM_RECORD:
                team_lines.append(line_no)
                try:
                    parse_team_record(rec.value, len(team_lines))
                except TeamRecordError as exc:
                    raise TrfError(line_no, exc.column, exc.reason) from None
        else:
            raise TrfError(
                line_no,
                1,
                f"unknown record {line[:20]!r}: lines must start with a 3-character code",
            )
        (trailer if raws else records).append(rec)
    if not raws:
        raise TrfError(1, None, "no player lines (records starting with 001)")
    _check_not_truncated(text, raws)
    seen: dict[int, int] = {}
    for raw in raws:
        if raw.player.start in seen:
            raise TrfError(
                raw.line_no,
                5,
                f"starting number {raw.player.start} already used on line {seen[raw.player.start]}",
            )
        seen[raw.player.start] = raw.line_no
    if team_lines:
        teams = [
            parse_team_record(r.value, n)
            for n, r in enumerate((r for r in (*records, *trailer) if r.code == TEAM_RECORD), 1)
        ]
        for number, problem in check_team_players(teams, seen):
            raise TrfError(team_lines[number - 1], None, problem)

    probe = TrfFile(Crosstable((), (), 0), tuple(records), tuple(trailer))
    written = max((len(r.slots) for r in raws), default=0)
    declared = probe.declared_rounds or 0
    if declared > MAX_ROUNDS:
        code = "142" if probe.record("142") is not None else "XXR"
        raise TrfError(
            _line_of_record(text, code),
            5,
            f"record {code} declares {declared} rounds; at most {MAX_ROUNDS} are supported",
        )
    rounds = max(written, declared)
    # Rounds in which anything is written: blank slots there are absences (zero-point).
    active = {rnd for r in raws for rnd, e in r.slots if e is not None}
    table: dict[int, list[RoundEntry | None]] = {}
    for raw in raws:
        row: list[RoundEntry | None] = [None] * rounds
        for rnd, slot in raw.slots:
            row[rnd - 1] = slot
        table[raw.player.start] = row
    # A short line may leave out a round its opponent's line records: mirror that game.
    for start, row in table.items():
        for i, slot in enumerate(row):
            if slot is None or slot.opponent is None or slot.opponent not in table:
                continue
            other = table[slot.opponent]
            if other[i] is None:
                colour: Colour | None = {"w": "b", "b": "w"}.get(slot.colour or "")  # type: ignore[assignment]
                result = None if slot.result is None else OPPOSITE.get(slot.result, slot.result)
                other[i] = RoundEntry(start, colour, result)
    rows: list[tuple[RoundEntry, ...]] = []
    for raw in raws:
        # A blank slot between written ones is an absence (TRF: blank = zero-point bye);
        # nothing after the last written slot means the round is not played yet.
        written_upto = len(raw.slots)
        filled = [
            e
            if e is not None
            else (
                RoundEntry(None, None, ResultCode.BLANK)
                if r <= written_upto and r in active
                else EMPTY
            )
            for r, e in enumerate(table[raw.player.start], start=1)
        ]
        rows.append(tuple(filled))
    for raw in raws:
        for rnd, slot in raw.slots:
            if slot is not None and slot.opponent is not None and slot.opponent not in seen:
                raise TrfError(
                    raw.line_no,
                    _ROUND1 + 1 + (rnd - 1) * _ROUND_WIDTH,
                    f"round {rnd}: opponent {slot.opponent} has no player line",
                )
    crosstable = Crosstable(
        players=tuple(r.player for r in raws),
        entries=tuple(rows),
        rounds=rounds,
        system=system or _system_from(probe.tournament_type),
        scoring=scoring or Scoring(),
    )
    return TrfFile(crosstable=crosstable, records=tuple(records), trailer=tuple(trailer))


def _line_of_record(text: str, code: str) -> int:
    for number, line in enumerate(_lines(text), start=1):
        if line.startswith(code):
            return number
    return 1


def _check_not_truncated(text: str, raws: list[_RawPlayer]) -> None:
    """A file cut off in the middle of its last player line (a copy that stopped, a
    download that failed) must not yield a player with half a name and no results."""
    if text.endswith(("\n", "\r")) or len(raws) < 2:
        return
    lines = _lines(text)
    last = raws[-1]
    if last.line_no != len(lines):
        return
    others = min(len(lines[r.line_no - 1].rstrip()) for r in raws[:-1])
    if len(lines[-1].rstrip()) < others:
        raise TrfError(
            last.line_no,
            len(lines[-1]) + 1,
            "the last player line is shorter than every other one and the file does not end "
            "with a line break: the file looks cut off; export it again",
        )


def load_trf(
    path: str | Path, *, system: System | None = None, scoring: Scoring | None = None
) -> TrfFile:
    """Read a TRF file (UTF-8, falling back to Latin-1 as many pairing programs write)."""
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return read_trf(text, system=system, scoring=scoring)


# -- writing ----------------------------------------------------------------------------------


def _fit(value: str, width: int, where: str) -> str:
    if len(value) > width:
        raise ValueError(f"{where}: {value!r} does not fit in {width} columns")
    return value


def _player_line(
    player: Player, row: Sequence[RoundEntry], points: float, rank: int | None, upto: int
) -> str:
    where = f"player {player.start}"
    parts = [
        "001 ",
        _fit(f"{player.start:>4}", 4, where),
        " ",
        (player.sex or " ")[:1],
        f"{player.title[:3]:>3}",
        " ",
        f"{player.name[:33]:<33}",
        " ",
        # TRF: an unrated player's rating field is left blank (not 0).
        _fit(f"{player.rating or '':>4}", 4, where),
        " ",
        f"{player.federation[:3]:<3}",
        " ",
        _fit(f"{player.fide_id or '':>11}", 11, where),
        " ",
        f"{player.birth[:10]:<10}",
        " ",
        _fit(f"{points:>4.1f}", 4, where),
        " ",
        f"{rank if rank is not None else '':>4}",
    ]
    for entry in row[:upto]:
        parts.append("  " + _slot_text(entry))
    return "".join(parts).rstrip()


def _slot_text(entry: RoundEntry) -> str:
    if entry is EMPTY or entry.is_empty:
        return "        "
    opp = f"{entry.opponent:>4}" if entry.opponent is not None else "0000"
    colour = entry.colour or "-"
    result = " " if entry.result is None else entry.result.value
    return f"{opp} {colour} {result}"


def write_trf(
    report: TrfFile | Crosstable,
    *,
    ranks: Mapping[int, int] | None = None,
    line_ending: Literal["\n", "\r\n"] = "\n",
) -> str:
    """TRF-16 text for a report (or a bare crosstable, with generated header records).

    Points are recomputed from the crosstable. Ranks come from ``ranks`` (e.g. the
    standings), else from the ranks the players carried in, else by points then start.
    """
    trf = report if isinstance(report, TrfFile) else TrfFile.from_crosstable(report)
    ct = trf.crosstable
    scores = ct.scores()
    if ranks is None:
        if all(p.rank is not None for p in ct.players):
            ranks = {p.start: p.rank for p in ct.players if p.rank is not None}
        else:
            order = sorted(ct.players, key=lambda p: (-scores[p.start], p.start))
            ranks = {p.start: i for i, p in enumerate(order, start=1)}
    # Round slots are written up to the last one with anything in it (no blank tails).
    upto = 0
    for row in ct.entries:
        for r, entry in enumerate(row, start=1):
            if not entry.is_empty:
                upto = max(upto, r)
    lines = [rec.render() for rec in trf.records]
    if trf.declared_rounds is None and ct.rounds:
        lines.append(f"XXR {ct.rounds}")
    for player, row in ct:
        lines.append(_player_line(player, row, scores[player.start], ranks.get(player.start), upto))
    lines.extend(rec.render() for rec in trf.trailer)
    return line_ending.join(lines) + line_ending
