"""What an action changed in the games, part by part, and how to put it back; with the
tournament's parts (`broadcast.tournament.changes`), what an action changed in the event.

A game's fields fall in groups: who plays it (`players`), its line (`line`), its result
and the proposal waiting for the arbiter (`result`), the board it is played on (`board`),
and what the e-board alone says (`said`: its clock readings, the board's serial, the
flag, when somebody was first seen). An action changes some groups of some games;
`book_changes` lists them with their values before and after, per slot of the book
(`games`, the games paired; `removed`, those an edit took off the pairings). A game an
action made, took away or gave to other players is one part (`whole`). What the board
said is put back only where it has said nothing since: a clock that ticked on stands.

A part `holds` while the fields that say what the game is (`CHECKED`) are still as the
action left them; a clock that ticked since does not stand in the way, a move made since
does. Pure.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from broadcast.games.book import GameBook
from broadcast.games.fold import synced
from broadcast.games.game_state import GameError, GameState
from broadcast.tournament.changes import (
    TournamentChange,
    put_back_tournament,
    tournament_changes,
)
from broadcast.tournament.section import StateError
from broadcast.tournament.tournament_state import TournamentState

__all__ = [
    "CHECKED",
    "GROUPS",
    "Change",
    "GamePart",
    "book_changes",
    "event_changes",
    "game_holds",
    "put_back",
    "uncovered_game_fields",
]

GROUPS: Mapping[str, tuple[str, ...]] = {
    "players": ("white", "black"),
    "line": ("start_fen", "moves"),
    "result": ("result", "result_reason", "proposal", "running"),
    "board": (
        "hall_board",
        "board_changes",
        "awaiting_board",
        "awaiting_correction",
        "in_sync",
        "out_since",
        "board_fen",
    ),
    "said": ("board", "white_clock", "black_clock", "clock_t", "flag", "first_activity"),
}
"""The groups of a game's fields an action can change, each put back whole; `said` is
what the e-board says, put back only where the board has said nothing since."""

CHECKED: Mapping[str, tuple[str, ...]] = {
    "players": ("white", "black"),
    "line": ("start_fen", "moves"),
    "result": ("result", "result_reason", "proposal"),
    "board": ("hall_board", "board_changes"),
    "said": (),
}
"""The fields that must still be as the action left them for its undo (the rest of a
group follows the board: whether it is in sync, whether its clock runs)."""

_IDENTITY = ("key",)

SLOTS = ("games", "removed")

Opt = tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class GamePart:
    """Group `group` of game `game` in the book's slot `slot` ("games" or "removed"),
    before and after: the group's field values, or `(GameState,)` for `whole`; `()` for
    a game that was not there."""

    game: str
    slot: str
    group: str
    before: Opt
    after: Opt


Change = TournamentChange | GamePart
"""One part an action changed: the tournament's or a game's."""


def _starts(game: GameState) -> tuple[int | None, int | None]:
    return tuple(p.start if p is not None else None for p in (game.white, game.black))  # type: ignore[return-value]


def _values(game: GameState, names: Sequence[str]) -> tuple[Any, ...]:
    return tuple(getattr(game, n) for n in names)


def book_changes(before: GameBook, after: GameBook) -> Iterator[GamePart]:
    """Every group of every game in which `after` differs from `before`."""
    for slot in SLOTS:
        old: Mapping[str, GameState] = getattr(before, slot)
        new: Mapping[str, GameState] = getattr(after, slot)
        if old is new:
            continue
        for game_id in sorted(set(old) | set(new)):
            a, b = old.get(game_id), new.get(game_id)
            if a is b:
                continue
            if a is None or b is None or _starts(a) != _starts(b):
                # Made, taken away, or given to other players (a new game on that board):
                # the whole game, so that putting it back is the game it was.
                yield GamePart(game_id, slot, "whole", (a,) if a else (), (b,) if b else ())
                continue
            for group, names in GROUPS.items():
                was, now = _values(a, names), _values(b, names)
                if was != now:
                    yield GamePart(game_id, slot, group, was, now)


def event_changes(
    tournament: TournamentState,
    book: GameBook,
    after_tournament: TournamentState,
    after_book: GameBook,
) -> tuple[Change, ...]:
    """Everything an action changed: the tournament's parts, then the games'."""
    return (*tournament_changes(tournament, after_tournament), *book_changes(book, after_book))


def _plain(name: str, value: Any) -> Any:
    # A line is its moves: the clock times a board adds to a move later change nothing.
    return tuple(m.uci for m in value) if name == "moves" else value


def _checked(game: GameState, group: str) -> tuple[Any, ...]:
    if group == "whole":
        return tuple(v for g in CHECKED for v in _checked(game, g))
    return tuple(_plain(n, getattr(game, n)) for n in CHECKED[group])


def _checked_opt(value: Opt, group: str) -> tuple[Any, ...]:
    """The checked fields of a part's value (a whole game, or a group's values)."""
    if group == "whole":
        return _checked(value[0], group) if value else ()
    return tuple(
        _plain(n, v) for n, v in zip(GROUPS[group], value, strict=True) if n in CHECKED[group]
    )


def game_holds(book: GameBook, part: GamePart) -> bool:
    """Does the game still hold what the action left in this part?"""
    current = getattr(book, part.slot).get(part.game)
    if part.group == "whole" or current is None:
        if current is None or not part.after:
            return current is None and not part.after
        return _checked(current, "whole") == _checked_opt(part.after, "whole")
    return _checked(current, part.group) == _checked_opt(part.after, part.group)


def _put_game(slots: dict[str, dict[str, GameState]], part: GamePart) -> None:
    games = slots[part.slot]
    if part.group == "whole":
        if part.before:
            games[part.game] = part.before[0]
        else:
            games.pop(part.game, None)
        return
    current = games.get(part.game)
    if current is None:
        raise GameError(f"no game {part.game!r} to put back")
    if part.group == "said" and _values(current, GROUPS["said"]) != part.after:
        return  # the board has said more since: what it says now stands
    games[part.game] = replace(current, **dict(zip(GROUPS[part.group], part.before, strict=True)))


def put_back(
    tournament: TournamentState, book: GameBook, changes: Sequence[Change]
) -> tuple[TournamentState, GameBook]:
    """Every part as it was before its action (see the module docstring). StateError when
    a part no longer holds what the action left, or the section would not hold together;
    nothing is changed then. The games follow the pairings put back."""
    tourney = [c for c in changes if not isinstance(c, GamePart)]
    parts = [c for c in changes if isinstance(c, GamePart)]
    for part in parts:
        if not game_holds(book, part):
            raise StateError(f"game {part.game} has changed since ({part.group})")
    restored = put_back_tournament(tournament, tourney) if tourney else tournament
    slots = {slot: dict(getattr(book, slot)) for slot in SLOTS}
    for part in parts:
        _put_game(slots, part)
    new_book = GameBook(slots["games"], slots["removed"])
    if tourney:
        new_book = synced(new_book, tournament, restored)
    return restored, new_book


def uncovered_game_fields() -> list[str]:
    """Fields of `GameState` no group covers and nobody declared the board's (a test keeps
    this empty, so that a new field is put back or said to be the board's)."""
    covered = {n for names in GROUPS.values() for n in names} | {*_IDENTITY}
    return [f.name for f in fields(GameState) if f.name not in covered]
