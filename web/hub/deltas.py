"""The hub's pure half: frames, the deltas between two of them, and snapshots.

A *frame* is an immutable view of the event at one moment (one channel's). `diff(old, new)`
turns two frames into `Delta`s, each a message for the subscribers of some scope keys
(`scope_key`: event, round, game); `snapshot_data` is the full state a scope starts from.
No I/O, no clock, no asyncio: the channel (`web.hub.channel`) numbers and fans out what
these functions return, the server (`web.hub.server`) speaks the websocket protocol.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from broadcast.arbiter.alerts import Alert
from broadcast.config.model import EventConfig, SectionConfig
from broadcast.games.book import GameBook
from broadcast.games.evaluation import Evaluation, eval_json
from broadcast.games.game_state import GameState
from broadcast.games.ids import slug
from broadcast.tournament.tournament_state import TournamentState
from web import json_views

__all__ = [
    "Delta",
    "Frame",
    "SectionView",
    "diff",
    "encode",
    "eval_delta",
    "game_deltas",
    "scope_key",
    "section_news",
    "section_view",
    "snapshot_data",
]


def encode(message: dict[str, Any]) -> str:
    """A message as the wire carries it (compact JSON, UTF-8 text): encoded once, sent to all."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True, eq=False)
class Frame:
    """What one channel shows at one moment."""

    tournament: TournamentState
    book: GameBook
    boards: tuple[dict[str, Any], ...] = ()
    alerts: tuple[Alert, ...] = ()
    # The arbiter's: the boards still to be set up (`json_views.waiting_json`).
    waiting: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True, slots=True)
class Delta:
    """One message to the subscribers of `keys` (scope keys, see `scope_key`)."""

    keys: frozenset[str]
    message: dict[str, Any]


def scope_key(scope: str, section: str = "", round_number: int = 0, game: str = "") -> str:
    if scope == "game":
        return f"game:{game}"
    if scope == "round":
        return f"round:{slug(section)}:{round_number}"
    return "event"


def _game_keys(game: GameState) -> frozenset[str]:
    return frozenset(
        {
            "event",
            scope_key("round", game.key.section, game.key.round),
            scope_key("game", game=game.id),
        }
    )


def eval_delta(game: GameState, ev: Evaluation) -> Delta:
    """The engine's evaluation of a position of `game` (not necessarily its newest: the
    client shows it for the position its FEN names). Sent outside the numbered sequence:
    an evaluation is derived data, and the next one supersedes it."""
    return Delta(_game_keys(game), {"type": "eval", "game": game.id, **eval_json(ev)})


def _move_json(ply: int, game: GameState) -> dict[str, Any]:
    m = game.moves[ply - 1]
    return {
        "ply": ply,
        "san": m.san,
        "uci": m.uci,
        "fen": m.fen_after,
        "clock": m.remaining,
        "emt": m.spent,
    }


def game_deltas(
    old: GameState | None, new: GameState, event: EventConfig | None = None
) -> list[dict[str, Any]]:
    """Messages that take a client from `old` to `new` (one game; `event` numbers its
    table)."""
    if old is None:
        return [{"type": "game", "game": json_views.game_json(new, event)}]
    out: list[dict[str, Any]] = []
    line_same = old.moves == new.moves[: old.ply] and old.start_fen == new.start_fen
    if (not line_same) or (old.white, old.black) != (new.white, new.black):
        # A takeback, a correction, a new start position or new players: the whole game,
        # so the client's line is replaced, never patched into a stale variation.
        return [{"type": "game", "game": json_views.game_json(new, event)}]
    if new.ply > old.ply or new.moves != old.moves:
        out.append(
            {
                "type": "move",
                "game": new.id,
                "moves": [_move_json(p, new) for p in range(old.ply + 1, new.ply + 1)],
                "fen": new.fen,
                "ply": new.ply,
                "clock": {
                    "white": new.white_clock,
                    "black": new.black_clock,
                    "running": new.running,
                },
            }
        )
    elif (old.white_clock, old.black_clock, old.running) != (
        new.white_clock,
        new.black_clock,
        new.running,
    ):
        out.append(
            {
                "type": "clock",
                "game": new.id,
                "white": new.white_clock,
                "black": new.black_clock,
                "running": new.running,
            }
        )
    if json_views.result_json(old) != json_views.result_json(new):
        fields = json_views.result_json(new)
        # `reason` repeats `result_reason` for clients written before the contract grew.
        out.append({"type": "result", "game": new.id, **fields, "reason": fields["result_reason"]})
    if (old.in_sync, old.out_since) != (new.in_sync, new.out_since):
        out.append(
            {"type": "sync", "game": new.id, "in_sync": new.in_sync, "out_since": new.out_since}
        )
    return out


def diff(config: EventConfig, old: Frame, new: Frame, *, sections: bool = True) -> list[Delta]:
    """The deltas from `old` to `new`, in a stable order. Pure. Without `sections`, no
    standings or pairings deltas (the hub makes those off the loop)."""
    out: list[Delta] = []
    if new.book is not old.book:
        for game_id, game in new.book.games.items():
            before = old.book.games.get(game_id)
            if before is game:
                continue
            keys = _game_keys(game)
            out.extend(Delta(keys, m) for m in game_deltas(before, game, config))
        for game_id, gone in old.book.games.items():
            if game_id not in new.book.games:  # its pairing was taken away (a withdrawal)
                out.append(Delta(_game_keys(gone), {"type": "removed", "game": game_id}))
    if sections and new.tournament is not old.tournament:
        for section in config.sections:
            a = old.tournament.sections.get(section.name)
            b = new.tournament.sections.get(section.name)
            if a is b or b is None:
                continue
            out.extend(_section_deltas(config, section, old.tournament, new.tournament))
    if new.boards != old.boards:
        out.append(Delta(frozenset({"event"}), {"type": "boards", "boards": list(new.boards)}))
    if new.alerts != old.alerts:
        known = {a.id for a in old.alerts}
        out.append(
            Delta(
                frozenset({"event"}),
                {
                    "type": "alerts",
                    "alerts": json_views.alerts_json(new.alerts, new.book, config),
                    "new": [a.id for a in new.alerts if a.id not in known],
                },
            )
        )
    if new.waiting != old.waiting:
        # Every change of a board being set up (a square put right), so the desk follows
        # the pieces as they go up, and the entry leaves once the board matches.
        out.append(Delta(frozenset({"event"}), {"type": "waiting", "waiting": list(new.waiting)}))
    return out


@dataclass(frozen=True, slots=True)
class SectionView:
    """What spectators are shown of one section: its standings rows and pairings."""

    rows: list[dict[str, Any]]
    pairings: list[dict[str, Any]]


def section_view(
    config: EventConfig, tournament: TournamentState, section: SectionConfig
) -> SectionView:
    """The standings and pairings of `section` (a 2,000-player Swiss: a tenth of a
    second; the hub computes them off the loop). Pure."""
    return SectionView(
        json_views.standings_json(config, tournament, section),
        json_views.pairings_json(tournament, section),
    )


def section_news(
    section: SectionConfig, before: SectionView, after: SectionView, new: TournamentState
) -> list[Delta]:
    """The standings and pairings deltas from `before` to `after`. Pure."""
    out: list[Delta] = []
    state = new.section(section.name)
    # Every paired round's page, the play-off games' rounds included.
    rounds = [*state.rounds, *(state.playoff_round(n) for n in state.playoff)]
    round_keys = {scope_key("round", section.name, r) for r in rounds}
    if before.rows != after.rows:
        out.append(
            Delta(
                frozenset({"event", *round_keys}),
                {"type": "standings", "section": slug(section.name), "rows": after.rows},
            )
        )
    if before.pairings != after.pairings:
        out.append(
            Delta(
                frozenset({"event", *round_keys}),
                {"type": "pairings", "section": slug(section.name), "rounds": after.pairings},
            )
        )
    return out


def _section_deltas(
    config: EventConfig, section: SectionConfig, old: TournamentState, new: TournamentState
) -> list[Delta]:
    before = section_view(config, old, section)
    return section_news(section, before, section_view(config, new, section), new)


def snapshot_data(
    config: EventConfig,
    frame: Frame,
    live: dict[str, int | None],
    scope: str,
    section: SectionConfig | None,
    round_number: int,
    game: str,
    *,
    arbiter: bool,
    delay: float,
    standings: list[dict[str, Any]] | None = None,
) -> dict[str, Any] | None:
    """The full state a scope starts from; None when the scope names nothing. Pure.
    `delay`: the broadcast delay in force; `standings`: the round scope's rows when
    already at hand (else computed)."""
    data: dict[str, Any]
    if scope == "game":
        state = frame.book.games.get(game)
        if state is None:
            return None
        data = {"game": json_views.game_json(state, config)}
    elif scope == "round":
        assert section is not None
        data = {
            **json_views.round_json(frame.book, section.name, round_number, config),
            "standings": standings
            if standings is not None
            else json_views.standings_json(config, frame.tournament, section),
        }
    else:
        data = {
            "event": json_views.event_json(config, frame.tournament, live, delay=delay),
            "live": json_views.live_json(frame.book, config, live),
        }
    if arbiter and scope == "event":
        data["boards"] = list(frame.boards)
        data["alerts"] = json_views.alerts_json(frame.alerts, frame.book, config)
        data["waiting"] = list(frame.waiting)
    return data
