"""What a mirror checks in a value read from Redis before any page can see it. Pure.

Redis is not the venue: anybody with write access to it can put an entry there. The codec
(`broadcast.journal.codec.from_plain`) rebuilds dataclasses by name without looking at
the fields' types, so a well-formed entry holding a string where a clock is an integer
would decode, and every page showing that game would then fail. `check(value, hint)`
walks a decoded value against its type hints (dataclasses field by field, tuples,
mappings, unions, literals) and raises `Unfit` naming the first field that does not
match; numbers must be finite and within `NUMBER_LIMIT`. `check_game` adds what the
types alone do not say about a game: its id is its key's, its section is the event's,
its clocks and move times are plausible, its moves look like moves and positions.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import re
import types
import typing
from collections.abc import Mapping
from typing import Any

from broadcast.config.model import EventConfig
from broadcast.games.game_state import GameState, MoveRecord
from clocks.errors import BoardwireError

__all__ = [
    "CLOCK_LIMIT",
    "NUMBER_LIMIT",
    "Unfit",
    "check",
    "check_game",
    "check_move",
    "hints_of",
]

# Larger than any number the venue writes (event times are Unix seconds), smaller than
# what would overflow the pages' date and time arithmetic.
NUMBER_LIMIT = 1e12
CLOCK_LIMIT = 10_000_000  # seconds on a clock or for a move (115 days)

# A FEN's shape (pieces and counts, not whether the position is legal): what the pages
# and the PGN feeds read from it. A piece placement alone (a board's `board_fen`) is the
# first field.
_PLACEMENT = r"(?:[pnbrqkPNBRQK1-8]{1,8}/){7}[pnbrqkPNBRQK1-8]{1,8}"
_FEN = re.compile(_PLACEMENT + r" [wb] (?:-|[KQkqA-Ha-h]{1,4}) (?:-|[a-h][36]) \d{1,4} \d{1,5}")
_PLACEMENT_ONLY = re.compile(_PLACEMENT + r"(?: .{0,40})?")
_UCI = re.compile(r"[a-h][1-8][a-h][1-8][qrbn]?|0000")
_SAN_MAX = 12


class Unfit(BoardwireError, ValueError):
    """A value read from the stream that is not what the venue writes (the reason)."""


_HINTS: dict[type, dict[str, Any]] = {}


def hints_of(cls: type) -> dict[str, Any]:
    """A dataclass's resolved field types (cached: resolving them is slow)."""
    hints = _HINTS.get(cls)
    if hints is None:
        resolved = typing.get_type_hints(cls)
        hints = _HINTS[cls] = {f.name: resolved[f.name] for f in dataclasses.fields(cls)}
    return hints


def _number(value: Any, where: str) -> None:
    if not math.isfinite(value) or abs(value) > NUMBER_LIMIT:
        raise Unfit(f"{where} is out of range ({value!r})")


def check(value: Any, hint: Any, where: str = "value") -> None:
    """`value` is of type `hint` throughout, or Unfit saying where it is not."""
    if hint is Any or hint is object:
        return
    origin = typing.get_origin(hint)
    if origin is typing.Union or origin is types.UnionType:
        problems = []
        for option in typing.get_args(hint):
            try:
                check(value, option, where)
                return
            except Unfit as exc:
                problems.append(str(exc))
        raise Unfit(problems[-1] if len(problems) == 1 else f"{where} is none of its types")
    if origin is typing.Literal:
        if not any(type(value) is type(a) and value == a for a in typing.get_args(hint)):
            raise Unfit(f"{where} is {_shown(value)}, not one of {typing.get_args(hint)}")
        return
    if hint is None or hint is type(None):
        if value is not None:
            raise Unfit(f"{where} is {_shown(value)}, not empty")
        return
    if origin is tuple:
        if type(value) is not tuple:
            raise Unfit(f"{where} is {_shown(value)}, not a list")
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            for i, item in enumerate(value):
                check(item, args[0], f"{where}[{i}]")
        elif args:
            if len(args) != len(value):
                raise Unfit(f"{where} has {len(value)} items, not {len(args)}")
            for i, (item, arg) in enumerate(zip(value, args, strict=True)):
                check(item, arg, f"{where}[{i}]")
        return
    if origin in (frozenset, set):
        if type(value) is not frozenset:
            raise Unfit(f"{where} is {_shown(value)}, not a set")
        (arg,) = typing.get_args(hint) or (Any,)
        for item in value:
            check(item, arg, f"{where} item")
        return
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        if type(value) is not dict:
            raise Unfit(f"{where} is {_shown(value)}, not a mapping")
        key_type, value_type = typing.get_args(hint) or (Any, Any)
        for k, v in value.items():
            check(k, key_type, f"{where} key")
            check(v, value_type, f"{where}[{k!r}]"[:200])
        return
    if origin is not None:
        raise Unfit(f"{where}: cannot check a {hint}")  # a new kind of field: checked here
    if hint is bool:
        if type(value) is not bool:
            raise Unfit(f"{where} is {_shown(value)}, not true/false")
        return
    if hint is int:
        if type(value) is not int:
            raise Unfit(f"{where} is {_shown(value)}, not a whole number")
        _number(value, where)
        return
    if hint is float:
        if type(value) is not float and type(value) is not int:
            raise Unfit(f"{where} is {_shown(value)}, not a number")
        _number(value, where)
        return
    if hint is str:
        if type(value) is not str:
            raise Unfit(f"{where} is {_shown(value)}, not text")
        return
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        if type(value) is not hint:
            raise Unfit(f"{where} is {_shown(value)}, not a {hint.__name__}")
        for name, field_hint in hints_of(hint).items():
            check(getattr(value, name), field_hint, f"{where}.{name}")
        return
    if hint in (dt.datetime, dt.date, dt.time):
        if type(value) is not hint:
            raise Unfit(f"{where} is {_shown(value)}, not a {hint.__name__}")
        return
    raise Unfit(f"{where}: cannot check a {hint!r}")


def _shown(value: Any) -> str:
    return f"a {type(value).__name__}"


def check_move(move: Any, where: str) -> MoveRecord:
    """One move as the stream carries it (a list of MoveRecord's fields), checked."""
    if type(move) is not list or len(move) != 7:
        raise Unfit(f"{where} is not a move")
    san, uci, fen, t, remaining, spent, software = move
    if type(san) is not str or not 0 < len(san) <= _SAN_MAX or not san.isprintable():
        raise Unfit(f"{where}: its move text is not a move")
    if type(uci) is not str or _UCI.fullmatch(uci) is None:
        raise Unfit(f"{where}: {uci!r:.20} is not a move in UCI")
    if type(fen) is not str or _FEN.fullmatch(fen) is None:
        raise Unfit(f"{where}: its position is not a FEN")
    check(t, float, f"{where} time")
    for value in (remaining, spent):
        if value is not None:
            check(value, float, f"{where} clock")
            if not 0 <= value <= CLOCK_LIMIT:
                raise Unfit(f"{where}: a clock time of {value!r} seconds")
    if type(software) is not bool:
        raise Unfit(f"{where}: its software-clock flag is not true/false")
    return MoveRecord(san, uci, fen, t, remaining, spent, software)


def check_game(config: EventConfig, game_id: str, game: GameState) -> None:
    """A whole game as a mirror may show it, or Unfit saying what is wrong."""
    where = f"game {game_id[:60]!r}"
    hints = hints_of(GameState)
    for name, hint in hints.items():
        if name != "moves":  # checked as they are read (`check_move`)
            check(getattr(game, name), hint, f"{where} {name}")
    if type(game.moves) is not tuple or any(type(m) is not MoveRecord for m in game.moves):
        raise Unfit(f"{where}: its moves are not moves")
    if game.key.id != game_id:
        raise Unfit(f"{where} is filed under another game's id ({game.key.id[:60]!r})")
    if game.key.section not in {s.name for s in config.sections}:
        raise Unfit(f"{where}: no section {game.key.section[:60]!r} in the event")
    if not (0 < game.key.round <= 1000 and 0 < game.key.board <= 100_000):
        raise Unfit(f"{where}: round {game.key.round}, board {game.key.board}")
    if _FEN.fullmatch(game.start_fen) is None:
        raise Unfit(f"{where}: its start position is not a FEN")
    if game.board_fen is not None and _PLACEMENT_ONLY.fullmatch(game.board_fen) is None:
        raise Unfit(f"{where}: the board's position is not a FEN")
    for clock in (game.white_clock, game.black_clock):
        if clock is not None and not -CLOCK_LIMIT <= clock <= CLOCK_LIMIT:
            raise Unfit(f"{where}: a clock showing {clock!r} seconds")
