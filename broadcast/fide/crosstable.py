"""The crosstable: players, and per player per round who they met, with which colour, and the result.

This is the exchange type between the tournament state (pairings, results, byes), TRF-16
import/export and the standings/tie-break code. It is immutable; build it with
:func:`build_crosstable` from games and byes, or with :meth:`Crosstable.with_entry` /
:meth:`Crosstable.with_game` for small edits, or read it from a TRF file (``trf.py``).

Result codes are those of TRF-16 (one character per player per round); points are derived
from a configurable :class:`Scoring` so that events with 3-1-0 scoring or a half-point
pairing-allocated bye work unchanged.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from broadcast.fide.results import Result
from clocks.errors import BoardwireError

Colour = Literal["w", "b"]
System = Literal["swiss", "round-robin"]


class CrosstableError(BoardwireError, ValueError):
    """A crosstable cannot be built as asked (unknown player, clash in a round, bad result)."""


class ResultCode(enum.Enum):
    """A TRF-16 result character, seen from one player in one round."""

    WIN = "1"
    DRAW = "="
    LOSS = "0"
    FORFEIT_WIN = "+"
    FORFEIT_LOSS = "-"
    UNRATED_WIN = "W"  # played but fewer than one move each: counts, not rated
    UNRATED_DRAW = "D"
    UNRATED_LOSS = "L"
    HALF_BYE = "H"  # requested half-point bye
    FULL_BYE = "F"  # full-point bye (requested / awarded)
    PAIRING_BYE = "U"  # pairing-allocated bye (odd number of players)
    ZERO_BYE = "Z"  # zero-point bye (absent, not paired)
    BLANK = " "  # TRF blank result: not paired, zero points (same as Z)

    @classmethod
    def parse(cls, text: str) -> ResultCode:
        """The code for one TRF character; raises ``CrosstableError`` naming the valid ones."""
        try:
            return cls(text)
        except ValueError:
            valid = " ".join(repr(c.value) for c in cls)
            raise CrosstableError(f"unknown result code {text!r}; valid codes: {valid}") from None

    @property
    def is_played(self) -> bool:
        """A game against an opponent over the board (rated or not): 1 = 0 W D L."""
        return self in _PLAYED

    @property
    def is_rated(self) -> bool:
        """A played game that counts for rating: 1 = 0."""
        return self in (ResultCode.WIN, ResultCode.DRAW, ResultCode.LOSS)

    @property
    def is_forfeit(self) -> bool:
        """A game scheduled against an opponent but not played: + or -."""
        return self in (ResultCode.FORFEIT_WIN, ResultCode.FORFEIT_LOSS)

    @property
    def is_bye(self) -> bool:
        """No opponent at all: H F U Z or blank."""
        return self in _BYES

    @property
    def is_voluntary_unplayed(self) -> bool:
        """Voluntary unplayed round (C.07): a requested bye (H Z blank) or a forfeit loss.

        Pairing-allocated (U) and full-point (F) byes are not voluntary; nor is a forfeit win.
        """
        return self in _VOLUNTARY

    @property
    def outcome(self) -> Literal["win", "draw", "loss"]:
        """Win, draw or loss in the sense of points scored: byes map to what they are worth."""
        return _OUTCOME[self]

    def points(self, scoring: Scoring) -> float:
        """The points this code is worth under ``scoring``."""
        return scoring.points(self)


_PLAYED = frozenset(
    {
        ResultCode.WIN,
        ResultCode.DRAW,
        ResultCode.LOSS,
        ResultCode.UNRATED_WIN,
        ResultCode.UNRATED_DRAW,
        ResultCode.UNRATED_LOSS,
    }
)
_BYES = frozenset(
    {
        ResultCode.HALF_BYE,
        ResultCode.FULL_BYE,
        ResultCode.PAIRING_BYE,
        ResultCode.ZERO_BYE,
        ResultCode.BLANK,
    }
)
_VOLUNTARY = frozenset(
    {
        ResultCode.HALF_BYE,
        ResultCode.ZERO_BYE,
        ResultCode.BLANK,
        ResultCode.FORFEIT_LOSS,
    }
)
_OUTCOME: dict[ResultCode, Literal["win", "draw", "loss"]] = {
    ResultCode.WIN: "win",
    ResultCode.DRAW: "draw",
    ResultCode.LOSS: "loss",
    ResultCode.FORFEIT_WIN: "win",
    ResultCode.FORFEIT_LOSS: "loss",
    ResultCode.UNRATED_WIN: "win",
    ResultCode.UNRATED_DRAW: "draw",
    ResultCode.UNRATED_LOSS: "loss",
    ResultCode.HALF_BYE: "draw",
    ResultCode.FULL_BYE: "win",
    ResultCode.PAIRING_BYE: "win",
    ResultCode.ZERO_BYE: "loss",
    ResultCode.BLANK: "loss",
}

# The code the opponent gets for each code (for games only).
OPPOSITE: Mapping[ResultCode, ResultCode] = {
    ResultCode.WIN: ResultCode.LOSS,
    ResultCode.LOSS: ResultCode.WIN,
    ResultCode.DRAW: ResultCode.DRAW,
    ResultCode.FORFEIT_WIN: ResultCode.FORFEIT_LOSS,
    ResultCode.FORFEIT_LOSS: ResultCode.FORFEIT_WIN,
    ResultCode.UNRATED_WIN: ResultCode.UNRATED_LOSS,
    ResultCode.UNRATED_LOSS: ResultCode.UNRATED_WIN,
    ResultCode.UNRATED_DRAW: ResultCode.UNRATED_DRAW,
}


@dataclass(frozen=True)
class Scoring:
    """Points per result kind. Defaults: FIDE 1 / 1/2 / 0, pairing bye = a win.

    ``pairing_bye`` is configurable because some events give a half point for the PAB.
    Forfeit wins and full-point byes are worth ``win``, half-point byes ``draw``.
    """

    win: float = 1.0
    draw: float = 0.5
    loss: float = 0.0
    pairing_bye: float | None = None  # None: same as win
    forfeit_win: float | None = None  # None: same as win
    forfeit_loss: float | None = None  # None: same as loss
    full_bye: float | None = None  # None: same as win
    half_bye: float | None = None  # None: same as draw
    zero_bye: float | None = None  # None: same as loss

    def points(self, code: ResultCode) -> float:
        """Points for one result code."""
        match code:
            case ResultCode.WIN | ResultCode.UNRATED_WIN:
                return self.win
            case ResultCode.DRAW | ResultCode.UNRATED_DRAW:
                return self.draw
            case ResultCode.LOSS | ResultCode.UNRATED_LOSS:
                return self.loss
            case ResultCode.FORFEIT_WIN:
                return self.win if self.forfeit_win is None else self.forfeit_win
            case ResultCode.FORFEIT_LOSS:
                return self.loss if self.forfeit_loss is None else self.forfeit_loss
            case ResultCode.PAIRING_BYE:
                return self.win if self.pairing_bye is None else self.pairing_bye
            case ResultCode.FULL_BYE:
                return self.win if self.full_bye is None else self.full_bye
            case ResultCode.HALF_BYE:
                return self.draw if self.half_bye is None else self.half_bye
            case ResultCode.ZERO_BYE | ResultCode.BLANK:
                return self.loss if self.zero_bye is None else self.zero_bye
        raise AssertionError(code)  # pragma: no cover - the match is exhaustive


@dataclass(frozen=True)
class Player:
    """One TRF-16 line 001 worth of player data (without the rounds)."""

    start: int
    name: str
    rating: int | None = None
    fide_id: int | None = None
    federation: str = ""
    title: str = ""  # TRF short form: g m f c wg wm wf wc (or as given)
    sex: str = ""  # "m", "w"/"f" or ""
    birth: str = ""  # as written: "1978", "1978/05/01", ...
    points: float | None = None  # as recorded in a TRF file, if any (informational)
    rank: int | None = None  # as recorded in a TRF file, if any (informational)

    def __post_init__(self) -> None:
        if self.start < 1:
            raise CrosstableError(
                f"player {self.name!r}: start number must be >= 1, got {self.start}"
            )


@dataclass(frozen=True)
class RoundEntry:
    """One player's round: opponent start number (None for a bye), colour, result.

    ``result`` None means not yet played or still in progress: it counts for nothing.
    """

    opponent: int | None = None
    colour: Colour | None = None
    result: ResultCode | None = None

    @property
    def is_empty(self) -> bool:
        """Nothing known for this round yet (no pairing, no result)."""
        return self.opponent is None and self.result is None and self.colour is None

    @property
    def is_played(self) -> bool:
        """A game over the board with a result."""
        return self.result is not None and self.result.is_played


EMPTY = RoundEntry()


@dataclass(frozen=True)
class Crosstable:
    """Players and their round entries.

    ``entries[i][r]`` is the entry of ``players[i]`` in round ``r + 1``; every row has
    ``rounds`` entries (``EMPTY`` where nothing is known). Start numbers are unique.
    """

    players: tuple[Player, ...]
    entries: tuple[tuple[RoundEntry, ...], ...]
    rounds: int
    system: System = "swiss"
    scoring: Scoring = field(default_factory=Scoring)
    _index: Mapping[int, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if len(self.players) != len(self.entries):
            raise CrosstableError(
                f"{len(self.players)} players but {len(self.entries)} rows of round entries"
            )
        index: dict[int, int] = {}
        for i, player in enumerate(self.players):
            if player.start in index:
                raise CrosstableError(f"start number {player.start} is used twice")
            index[player.start] = i
        for player, row in zip(self.players, self.entries, strict=True):
            if len(row) != self.rounds:
                raise CrosstableError(
                    f"player {player.start}: {len(row)} round entries, expected {self.rounds}"
                )
        object.__setattr__(self, "_index", index)

    # -- lookups ---------------------------------------------------------------------------

    def player(self, start: int) -> Player:
        """The player with this start number."""
        return self.players[self._position(start)]

    def row(self, start: int) -> tuple[RoundEntry, ...]:
        """All round entries of a player, round 1 first."""
        return self.entries[self._position(start)]

    def entry(self, start: int, round_no: int) -> RoundEntry:
        """The entry of a player in round ``round_no`` (1-based)."""
        self._check_round(round_no)
        return self.row(start)[round_no - 1]

    def starts(self) -> list[int]:
        """Start numbers in crosstable order."""
        return [p.start for p in self.players]

    def __contains__(self, start: object) -> bool:
        return start in self._index

    def __iter__(self) -> Iterator[tuple[Player, tuple[RoundEntry, ...]]]:
        return iter(zip(self.players, self.entries, strict=True))

    @property
    def rounds_played(self) -> int:
        """The last round in which any result is known (0 before the first result)."""
        last = 0
        for row in self.entries:
            for r, entry in enumerate(row, start=1):
                if entry.result is not None and r > last:
                    last = r
        return last

    def score(self, start: int, upto: int | None = None) -> float:
        """Points of a player from known results (rounds 1..``upto``, default all)."""
        row = self.row(start)
        if upto is not None:
            row = row[:upto]
        return sum((self.scoring.points(e.result) for e in row if e.result is not None), 0.0)

    def scores(self) -> dict[int, float]:
        """Points of every player, by start number."""
        return {p.start: self.score(p.start) for p in self.players}

    # -- edits (return new crosstables) ------------------------------------------------------

    def with_entry(self, start: int, round_no: int, entry: RoundEntry) -> Crosstable:
        """A copy with one player's entry in one round replaced."""
        self._check_round(round_no)
        pos = self._position(start)
        row = list(self.entries[pos])
        row[round_no - 1] = entry
        rows = list(self.entries)
        rows[pos] = tuple(row)
        return replace(self, entries=tuple(rows))

    def with_game(self, game: Game) -> Crosstable:
        """A copy with a game (pairing and optional result) entered for both players."""
        white, black = _game_entries(game)
        return self.with_entry(game.white, game.round, white).with_entry(
            game.black, game.round, black
        )

    def without(self, starts: Iterable[int]) -> Crosstable:
        """A copy without these players: their rows are gone, and each game against them
        becomes a round with no opponent worth nothing (``Z``; still ``EMPTY`` where it had
        no result yet). FIDE C.06's annulled results of a round robin's early withdrawal:
        for the others it is as if the player had never been in the event."""
        gone = set(starts)
        for start in gone:
            self._position(start)  # an unknown player is a mistake, not a no-op

        def kept(entry: RoundEntry) -> RoundEntry:
            if entry.opponent not in gone:
                return entry
            return EMPTY if entry.result is None else RoundEntry(result=ResultCode.ZERO_BYE)

        rows = [
            (player, tuple(kept(e) for e in row))
            for player, row in self
            if player.start not in gone
        ]
        return replace(
            self,
            players=tuple(p for p, _ in rows),
            entries=tuple(r for _, r in rows),
        )

    def with_rounds(self, rounds: int) -> Crosstable:
        """A copy with the planned number of rounds changed (rows padded or cut)."""
        if rounds < 0:
            raise CrosstableError(f"number of rounds must be >= 0, got {rounds}")
        rows = tuple((row + (EMPTY,) * rounds)[:rounds] for row in self.entries)
        return replace(self, rounds=rounds, entries=rows)

    def validate(self) -> list[str]:
        """Inconsistencies between the two sides of each game (empty list: consistent)."""
        problems: list[str] = []
        for player, row in self:
            for r, entry in enumerate(row, start=1):
                opp = entry.opponent
                if opp is None:
                    if entry.result is not None and not entry.result.is_bye:
                        problems.append(
                            f"round {r}: player {player.start} has result "
                            f"{entry.result.value!r} but no opponent"
                        )
                    continue
                if opp not in self:
                    problems.append(f"round {r}: player {player.start} meets unknown player {opp}")
                    continue
                other = self.entry(opp, r)
                if other.opponent != player.start:
                    problems.append(
                        f"round {r}: player {player.start} meets {opp}, "
                        f"but {opp} meets {other.opponent}"
                    )
                    continue
                if entry.result is not None and entry.result.is_bye:
                    problems.append(
                        f"round {r}: player {player.start} has bye code "
                        f"{entry.result.value!r} against opponent {opp}"
                    )
                elif (
                    entry.result is not None
                    and other.result is not None
                    and OPPOSITE.get(entry.result) != other.result
                    # a double forfeit is '-' on both sides
                    and not (entry.result is other.result is ResultCode.FORFEIT_LOSS)
                ):
                    problems.append(
                        f"round {r}: results of {player.start} ({entry.result.value}) and "
                        f"{opp} ({other.result.value}) do not match"
                    )
        return problems

    # -- internals ---------------------------------------------------------------------------

    def _position(self, start: int) -> int:
        try:
            return self._index[start]
        except KeyError:
            raise CrosstableError(f"no player with start number {start}") from None

    def _check_round(self, round_no: int) -> None:
        if not 1 <= round_no <= self.rounds:
            raise CrosstableError(f"round {round_no} is outside 1..{self.rounds}")


# -- building from games and byes ---------------------------------------------------------------


def _codes(result: Result) -> tuple[ResultCode, ResultCode]:
    """White's and Black's codes for a game's result (a forfeit's by who scores)."""

    def code(points: float) -> ResultCode:
        if result.is_forfeit:
            return ResultCode.FORFEIT_WIN if points else ResultCode.FORFEIT_LOSS
        return {1.0: ResultCode.WIN, 0.5: ResultCode.DRAW}.get(points, ResultCode.LOSS)

    return code(result.white_points), code(result.black_points)


# The tournament codes, with the spellings a hand-made file may use ("½-½", "0-0").
_GAME_CODES: dict[str, tuple[ResultCode | None, ResultCode | None]] = {
    **{r.tournament_code: _codes(r) for r in Result if not r.is_forfeit},
    "½-½": _codes(Result.DRAW),
    **{r.tournament_code: _codes(r) for r in Result if r.is_forfeit},
    "0-0": _codes(Result.DOUBLE_FORFEIT),
    "*": (None, None),
}
_UNRATED = {
    ResultCode.WIN: ResultCode.UNRATED_WIN,
    ResultCode.DRAW: ResultCode.UNRATED_DRAW,
    ResultCode.LOSS: ResultCode.UNRATED_LOSS,
}


@dataclass(frozen=True)
class Game:
    """A pairing in a round, with its result once known.

    ``result``: "1-0", "0-1", "1/2-1/2", "+-" / "-+" (forfeit), "--" or "0-0" (double
    forfeit), "*" or None (not finished). ``rated=False`` marks a game that ended before
    each side made a move (TRF W/D/L).
    """

    round: int
    white: int
    black: int
    result: str | None = None
    rated: bool = True


@dataclass(frozen=True)
class Bye:
    """A round without opponent: ``kind`` is one of H F U Z (TRF codes)."""

    round: int
    player: int
    kind: ResultCode = ResultCode.PAIRING_BYE

    def __post_init__(self) -> None:
        if not self.kind.is_bye:
            raise CrosstableError(
                f"bye for player {self.player} in round {self.round}: {self.kind.value!r} is "
                "not a bye code (use H, F, U or Z)"
            )


def _game_entries(game: Game) -> tuple[RoundEntry, RoundEntry]:
    if game.white == game.black:
        raise CrosstableError(f"round {game.round}: player {game.white} cannot play themselves")
    key = None if game.result is None else game.result.strip()
    if key is None:
        codes: tuple[ResultCode | None, ResultCode | None] = (None, None)
    elif key in _GAME_CODES:
        codes = _GAME_CODES[key]
    else:
        valid = ", ".join(repr(k) for k in _GAME_CODES)
        raise CrosstableError(
            f"round {game.round}, {game.white}-{game.black}: unknown result {game.result!r}; "
            f"use one of {valid} or None"
        )
    w, b = codes
    if not game.rated:
        w = _UNRATED.get(w, w) if w is not None else None
        b = _UNRATED.get(b, b) if b is not None else None
    return RoundEntry(game.black, "w", w), RoundEntry(game.white, "b", b)


def build_crosstable(
    players: Sequence[Player],
    rounds: int,
    games: Iterable[Game] = (),
    byes: Iterable[Bye] = (),
    *,
    system: System = "swiss",
    scoring: Scoring | None = None,
) -> Crosstable:
    """A crosstable from players, games and byes; each player appears at most once per round."""
    index = {p.start: i for i, p in enumerate(players)}
    rows: list[list[RoundEntry]] = [[EMPTY] * rounds for _ in players]
    seen: dict[tuple[int, int], str] = {}

    def put(start: int, round_no: int, entry: RoundEntry, what: str) -> None:
        if start not in index:
            raise CrosstableError(f"{what}: no player with start number {start}")
        if not 1 <= round_no <= rounds:
            raise CrosstableError(f"{what}: round {round_no} is outside 1..{rounds}")
        if (start, round_no) in seen:
            raise CrosstableError(
                f"{what}: player {start} already has {seen[(start, round_no)]} in round {round_no}"
            )
        seen[(start, round_no)] = what
        rows[index[start]][round_no - 1] = entry

    for game in games:
        w, b = _game_entries(game)
        what = f"game {game.white}-{game.black}"
        put(game.white, game.round, w, what)
        put(game.black, game.round, b, what)
    for bye in byes:
        put(bye.player, bye.round, RoundEntry(None, None, bye.kind), f"bye {bye.kind.value}")
    return Crosstable(
        players=tuple(players),
        entries=tuple(tuple(r) for r in rows),
        rounds=rounds,
        system=system,
        scoring=scoring or Scoring(),
    )


__all__ = [
    "EMPTY",
    "OPPOSITE",
    "Bye",
    "Colour",
    "Crosstable",
    "CrosstableError",
    "Game",
    "Player",
    "ResultCode",
    "RoundEntry",
    "Scoring",
    "System",
    "build_crosstable",
]
