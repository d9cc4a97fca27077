"""The JSON of a LiveChess export folder: ``tournament.json`` and ``round-N/index.json``.

DGT LiveChess writes these beside its PGN files, and LiveChess Cloud serves the same
shapes; relay sites (Lichess among them), viewers and organizers' scripts read them to
learn the rounds, the pairings, the results and which games are being played. Pure
functions: a (delayed) `GameBook` and the `EventConfig` in, plain dicts and JSON text out.

``tournament.json`` (one per section: each section is a tournament of its own, numbering
its boards from 1)::

    {"id": "pamplona-masters", "name": "...", "location": "...", "country": null,
     "website": null, "rules": "STANDARD", "chess960": "STANDARD", "timecontrol": "...",
     "rounds": [{"count": 4, "live": 1}, {"count": 0, "live": 0}, ...], "eboards": []}

``rounds`` lists every round of the section (then the play-off games that exist):
``count`` the games of the round, ``live`` 1 while one of them is being played, else 0.

``round-N/index.json``::

    {"date": "2026-02-14", "pairings": [{"white": PLAYER, "black": PLAYER,
     "result": "1-0", "live": false}, ...]}

one pairing a game in board order (the i-th is ``game-i.pgn``), a player being
``{"fname", "mname", "lname", "title", "federation", "gender", "fideid"}`` with the
name split from boardwire's "Last, First" (a name without a comma is all ``lname``),
``fideid`` a number, and unknown values ``null``. ``result`` is what the game's PGN
``Result`` tag says (``1-0``, ``0-1``, ``1/2-1/2``, ``*``; a forfeit as its winner's
score, a double forfeit ``0-0``), so the folder never disagrees with its PGN files.
``live`` is true for a game that has begun and has no result. Byes are not games: they
are in neither file, as in the PGN. LiveChess has no field for a team, so a team
section's JSON carries the players only (the PGN files carry the teams).
"""

from __future__ import annotations

import json
from typing import Any

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.export.pgn import event_title, game_outcome
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState, PlayerRef
from broadcast.games.ids import slug

__all__ = [
    "json_text",
    "pairing_json",
    "player_json",
    "round_index",
    "split_name",
    "tournament_json",
]


def json_text(data: dict[str, Any]) -> str:
    """The file's text: indented as LiveChess writes it, ending in a newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def split_name(name: str) -> tuple[str | None, str | None]:
    """(first name, last name) from "Last, First"; a name without a comma is a last name
    (a single name, or one written the other way: better whole than cut wrong)."""
    last, comma, first = name.partition(",")
    last, first = last.strip(), first.strip()
    if not comma:
        return None, last or None
    return first or None, last or None


def _fide_id(text: str) -> int | None:
    digits = text.strip()
    return int(digits) if digits.isdigit() and int(digits) > 0 else None


def player_json(player: PlayerRef | None) -> dict[str, Any]:
    """One side of a pairing; every field null for an unknown player."""
    fname, lname = split_name(player.name) if player is not None else (None, None)
    return {
        "fname": fname,
        "mname": None,
        "lname": lname,
        "title": (player.title or None) if player is not None else None,
        "federation": (player.federation or None) if player is not None else None,
        "gender": None,
        "fideid": _fide_id(player.fide_id) if player is not None else None,
    }


def _live(game: GameState) -> bool:
    # Begun: a move, a clock that ran, or somebody at the board (the first press).
    begun = bool(game.moves) or game.running is not None or game.first_activity is not None
    return game.result is None and begun


def pairing_json(game: GameState) -> dict[str, Any]:
    """One game of a round's index."""
    outcome = game_outcome(game)
    return {
        "white": player_json(game.white),
        "black": player_json(game.black),
        "result": outcome.result_tag(),
        "live": _live(game),
    }


def _round_date(section: SectionConfig, round_number: int) -> str | None:
    try:
        return section.round_start(round_number).start.date().isoformat()
    except KeyError:
        return None  # a play-off game: no scheduled round


def round_index(book: GameBook, section: SectionConfig, round_number: int) -> dict[str, Any]:
    """``round-N/index.json`` of one section's round, from `book` (the delayed one for
    anything public)."""
    games = book.round_games(section.name, round_number)
    return {
        "date": _round_date(section, round_number),
        "pairings": [pairing_json(g) for g in games],
    }


def _round_numbers(book: GameBook, section: SectionConfig) -> list[int]:
    played = {g.key.round for g in book.games.values() if g.key.section == section.name}
    return list(range(1, max([section.rounds, *played]) + 1))


def tournament_json(book: GameBook, event: EventConfig, section: str) -> dict[str, Any]:
    """``tournament.json`` of one section, from `book` (the delayed one for anything
    public)."""
    config = event.section(section)
    rounds = []
    for number in _round_numbers(book, config):
        games = book.round_games(section, number)
        rounds.append({"count": len(games), "live": int(any(_live(g) for g in games))})
    name = event_title(event, section)
    return {
        "id": slug(name),
        "name": name,
        "location": event.site or None,
        "country": None,
        "website": None,
        "rules": "STANDARD",
        "chess960": "STANDARD",
        "timecontrol": str(config.time_control),
        "rounds": rounds,
        "eboards": [],
    }
