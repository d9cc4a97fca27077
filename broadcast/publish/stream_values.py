"""The public state's parts as the stream carries them, and back (checked). Pure.

Venue side (`*_plain`, `game_edit`, `state_patch`): values to JSON-able data. A game that
changed is sent as an *edit* when the mirror already has it: the ply it applies to
(`base`), how many of its moves stay (`keep`), the moves after those, and the other fields
that changed (`set`) - a clock tick is a few dozen bytes, not the whole game. A game new
to the stream is sent whole; a section of the tournament that changed is sent whole (they
change with results and pairings, not with moves).

Mirror side (`apply_patch`, `whole_state`): data back to values, every value checked
(`stream_checks`) before it can reach a page; anything unexpected raises `Unfit`, and an
edit whose game or base ply is not the mirror's raises `Mismatch` (the mirror then starts
over from a newer snapshot).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from typing import Any

from broadcast.config.model import EventConfig
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState
from broadcast.journal.codec import NOT_MINE, from_plain, to_plain
from broadcast.publish.stream_checks import Unfit, check, check_game, check_move, hints_of
from broadcast.service.event_state import PublicState
from broadcast.tournament.tournament_state import SectionState, TournamentState

__all__ = [
    "Mismatch",
    "apply_patch",
    "config_from",
    "config_plain",
    "game_edit",
    "game_plain",
    "public_config",
    "section_plain",
    "state_patch",
    "whole_state",
]

_GAME_FIELDS = [f.name for f in dataclasses.fields(GameState)]
_OTHER_FIELDS = [name for name in _GAME_FIELDS if name not in ("key", "moves")]
_SECTION_FIELDS = [f.name for f in dataclasses.fields(SectionState) if f.name != "config"]


class Mismatch(Unfit):
    """A well-formed edit that does not apply to the state the mirror has."""


# -- venue side ---------------------------------------------------------------------------


def _hook(value: Any) -> Any:
    if isinstance(value, dt.time):
        return {"__time__": value.isoformat()}
    return NOT_MINE


def _unhook(data: dict[str, Any]) -> Any:
    if "__time__" in data:
        text = data["__time__"]
        if type(text) is not str:
            raise Unfit("a time of day that is not text")
        return dt.time.fromisoformat(text)
    return NOT_MINE


def public_config(config: EventConfig) -> EventConfig:
    """The config as it may leave the venue: without its file, the boards' ports and the
    Redis URL (which may hold a password)."""
    boards = tuple(dataclasses.replace(b, port="") for b in config.boards)
    return dataclasses.replace(config, source=None, boards=boards, publish=None)


def config_plain(config: EventConfig) -> Any:
    return to_plain(public_config(config), _hook)


def _move_plain(m: Any) -> list[Any]:
    return [m.san, m.uci, m.fen_after, m.t, m.remaining, m.spent, m.software_clock]


def game_plain(game: GameState) -> list[Any]:
    """A whole game: its fields in GameState's order, moves as lists."""
    out: list[Any] = []
    for name in _GAME_FIELDS:
        value = getattr(game, name)
        if name == "moves":
            out.append([_move_plain(m) for m in value])
        else:
            out.append(to_plain(value))
    return out


def game_edit(old: GameState, new: GameState) -> dict[str, Any] | None:
    """What turns the mirror's `old` into `new` (None: the key changed, send it whole)."""
    if old.key != new.key:
        return None
    edit: dict[str, Any] = {"base": old.ply}
    # Tuple equality compares by identity first: the shared moves cost next to nothing.
    if new.moves[: old.ply] == old.moves:
        keep = old.ply
    else:  # a takeback, a correction, clock times filled in afterwards
        keep = 0
        for a, b in zip(old.moves, new.moves, strict=False):
            if a != b:
                break
            keep += 1
        edit["keep"] = keep
    if new.ply > keep:
        edit["moves"] = [_move_plain(m) for m in new.moves[keep:]]
    changed = {}
    for name in _OTHER_FIELDS:
        before, after = getattr(old, name), getattr(new, name)
        if before is not after and before != after:
            changed[name] = to_plain(after)
    if changed:
        edit["set"] = changed
    return edit


def section_plain(section: SectionState) -> dict[str, Any]:
    return {f: to_plain(getattr(section, f)) for f in _SECTION_FIELDS}


def state_patch(before: PublicState | None, after: PublicState) -> dict[str, Any]:
    """The parts of `after` that are not (by identity) those of `before`: new games whole,
    changed games as edits, games gone, the removed games, the sections that changed."""
    patch: dict[str, Any] = {}
    old_games = before.book.games if before is not None else {}
    if before is None or after.book.games is not before.book.games:
        whole: dict[str, Any] = {}
        edits: dict[str, Any] = {}
        for k, g in after.book.games.items():
            old = old_games.get(k)
            if old is g:
                continue
            edit = game_edit(old, g) if old is not None else None
            if edit is None:
                whole[k] = game_plain(g)
            elif len(edit) > 1:  # a new object equal to the old one needs no edit
                edits[k] = edit
        if whole:
            patch["games"] = whole
        if edits:
            patch["edits"] = edits
        gone = [k for k in old_games if k not in after.book.games]
        if gone:
            patch["gone"] = gone
    if before is None or after.book.removed is not before.book.removed:
        patch["removed"] = {k: game_plain(g) for k, g in after.book.removed.items()}
    if before is None or after.tournament is not before.tournament:
        old_sections = before.tournament.sections if before is not None else {}
        patch["sections"] = [
            [name, section_plain(s)]
            for name, s in after.tournament.sections.items()
            if old_sections.get(name) is not s
        ]
    return patch


# -- mirror side --------------------------------------------------------------------------


def config_from(data: Any) -> EventConfig:
    config = from_plain(data, _unhook)
    check(config, EventConfig, "the event's config")
    if not config.sections:
        raise Unfit("the event's config has no sections")
    return config  # type: ignore[no-any-return]


def _plain_value(data: Any, hint: Any, where: str) -> Any:
    value = from_plain(data)
    check(value, hint, where)
    return value


def _game_from(config: EventConfig, game_id: str, data: Any) -> GameState:
    if type(data) is not list or len(data) != len(_GAME_FIELDS):
        raise Unfit(f"game {game_id[:60]!r} is not a game of this boardwire version")
    fields: dict[str, Any] = {}
    hints = hints_of(GameState)
    for name, value in zip(_GAME_FIELDS, data, strict=True):
        if name == "moves":
            if type(value) is not list:
                raise Unfit(f"game {game_id[:60]!r}: its moves are not a list")
            fields[name] = tuple(
                check_move(m, f"game {game_id[:60]!r} ply {i}") for i, m in enumerate(value, 1)
            )
        else:
            fields[name] = _plain_value(value, hints[name], f"game {game_id[:60]!r} {name}")
    game = GameState(**fields)
    check_game(config, game_id, game)
    return game


def _apply_edit(config: EventConfig, game_id: str, old: GameState | None, edit: Any) -> GameState:
    where = f"game {game_id[:60]!r}"
    if type(edit) is not dict or not set(edit) <= {"base", "keep", "moves", "set"}:
        raise Unfit(f"the change of {where} is not one")
    base = edit.get("base")
    if type(base) is not int:
        raise Unfit(f"the change of {where} names no ply")
    if old is None:
        raise Mismatch(f"{where} changes, but this mirror does not have it")
    if old.ply != base:
        raise Mismatch(f"{where} changes from ply {base}, this mirror has ply {old.ply}")
    keep = edit.get("keep", base)
    if type(keep) is not int or not 0 <= keep <= base:
        raise Unfit(f"the change of {where} keeps {keep!r} moves")
    added = edit.get("moves", [])
    if type(added) is not list:
        raise Unfit(f"the change of {where}: its moves are not a list")
    moves = old.moves[:keep] + tuple(
        check_move(m, f"{where} ply {i}") for i, m in enumerate(added, keep + 1)
    )
    changed = edit.get("set", {})
    if type(changed) is not dict:
        raise Unfit(f"the change of {where}: its fields are not an object")
    hints = hints_of(GameState)
    fields: dict[str, Any] = {}
    for name, value in changed.items():
        if name not in _OTHER_FIELDS:
            raise Unfit(f"the change of {where} sets {str(name)[:40]!r}")
        fields[name] = _plain_value(value, hints[name], f"{where} {name}")
    game = dataclasses.replace(old, moves=moves, **fields)
    check_game(config, game_id, game)
    return game


def _games(config: EventConfig, data: Any, what: str) -> dict[str, GameState]:
    if type(data) is not dict:
        raise Unfit(f"the {what} are not an object")
    return {k: _game_from(config, k, g) for k, g in data.items()}


def _sections(config: EventConfig, before: TournamentState | None, data: Any) -> TournamentState:
    if type(data) is not list:
        raise Unfit("the sections are not a list")
    configs = {s.name: s for s in config.sections}
    sections = dict(before.sections) if before is not None else {}
    for item in data:
        if type(item) is not list or len(item) != 2 or type(item[1]) is not dict:
            raise Unfit("a section is not [name, fields]")
        name, fields = item
        if name not in configs:
            raise Unfit(f"no section {str(name)[:60]!r} in the event")
        if set(fields) != set(_SECTION_FIELDS):
            raise Unfit(f"section {name[:60]!r} is not a section of this boardwire version")
        hints = hints_of(SectionState)
        values = {
            f: _plain_value(v, hints[f], f"section {name[:60]!r} {f}") for f, v in fields.items()
        }
        sections[name] = SectionState(configs[name], **values)
    if list(sections) != list(configs):
        raise Unfit("the stream's sections differ from its config's")
    return TournamentState(config, sections)


def whole_state(config: EventConfig, data: Any, seq: int) -> PublicState:
    """A snapshot's state (every part present), checked."""
    if type(data) is not dict or not {"sections", "removed"} <= set(data):
        raise Unfit("the first state of a stream must be whole")
    if "edits" in data or "gone" in data:
        raise Unfit("a snapshot's state holds changes")
    games = _games(config, data.get("games", {}), "games")
    removed = _games(config, data["removed"], "removed games")
    return PublicState(_sections(config, None, data["sections"]), GameBook(games, removed), seq)


def apply_patch(config: EventConfig, before: PublicState, patch: Any, seq: int) -> PublicState:
    """`before` with a delta's patch, checked (Unfit; Mismatch: not for this state)."""
    if type(patch) is not dict or not set(patch) <= {
        "games",
        "edits",
        "gone",
        "removed",
        "sections",
    }:
        raise Unfit("a stream entry's patch is not one")
    book = before.book
    if "games" in patch or "edits" in patch or "gone" in patch:
        games = dict(book.games)
        gone = patch.get("gone", [])
        if type(gone) is not list:
            raise Unfit("the games gone are not a list")
        for k in gone:
            if type(k) is not str:
                raise Unfit("a game gone is not named")
            games.pop(k, None)
        games.update(_games(config, patch.get("games", {}), "games"))
        edits = patch.get("edits", {})
        if type(edits) is not dict:
            raise Unfit("the games' changes are not an object")
        for k, edit in edits.items():
            games[k] = _apply_edit(config, k, book.games.get(k), edit)
        book = GameBook(games, book.removed)
    if "removed" in patch:
        book = GameBook(book.games, _games(config, patch["removed"], "removed games"))
    tournament = before.tournament
    if "sections" in patch:
        tournament = _sections(config, before.tournament, patch["sections"])
    return PublicState(tournament, book, seq)
