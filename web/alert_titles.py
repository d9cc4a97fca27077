"""Alert titles an arbiter reads in one glance: where (board and players), then what.

"Board 4 · Lindqvist - Ferreira: White's flag fell; propose 0-1" (with an en dash). Built on the server from
the alert and the game book, so the desk's script only shows text; the kind codes and game
ids stay in the JSON for programs. Pure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from broadcast.arbiter.alerts import Alert, AlertKind
from broadcast.games.book import GameBook
from broadcast.games.events import REASON_TEXT

__all__ = ["URGENCY", "alert_title", "by_urgency"]

DASH = "\u2013"  # between the players' names, as on the pairings

URGENCY = {"critical": 0, "warning": 1, "info": 2}


def by_urgency(alerts: tuple[Alert, ...] | list[Alert]) -> list[Alert]:
    """Critical first, then warnings, then information; oldest first within each."""
    return sorted(alerts, key=lambda a: (URGENCY.get(a.severity, 3), a.t, a.id))


def _names(alert: Alert) -> str:
    return " and ".join(alert.players) or "a player"


def _proposal(alert: Alert, flagged: str | None) -> str:
    if alert.reason == "flag-fall":
        who = flagged or {"0-1": "white", "1-0": "black"}.get(alert.result)
        if who:
            return f"{who.capitalize()}'s flag fell; propose {alert.result}"
    words = REASON_TEXT.get(alert.reason, alert.reason.replace("-", " ")) or "a result"
    return f"{words[:1].upper()}{words[1:]}; propose {alert.result}"


_WHAT: dict[AlertKind, Callable[[Alert], str]] = {
    "late": lambda a: f"{_names(a)} not at the board; default time approaching",
    "check-presence": lambda a: f"no sign of {_names(a)}; check presence",
    "withdraw-from-pairing": lambda a: f"{_names(a)} reached the no-show limit; withdraw?",
    "early-draw": lambda a: "draw agreed early; check it",
    "board-not-responding": lambda a: "board not responding",
    "driver-fault": lambda a: "board driver stopped on an error; restarting",
    "moves-to-check": lambda a: "moves may be missing; check the game",
    "bus-polls-missed": lambda a: "bus polls unanswered; check the cable",
    "battery-low": lambda a: "battery low; plug in the charger",
    "clock-not-connected": lambda a: "no clock connected",
    "out-of-sync": lambda a: "the board does not match the game",
    "illegal-move-stood": lambda a: "an illegal move may stand",
    "bye-refused": lambda a: f"bye refused for {_names(a)}",
    "both-flags": lambda a: "both flags fell; decide the result",
    "result-proposed": lambda a: _proposal(a, None),
    "absence-disqualifies": lambda a: f"{_names(a)} out after an absence unless they continue",
    "arbiter-override": lambda a: f"regulation overridden for {_names(a)}",
    "journal-not-writable": lambda a: "the journal cannot be written; events held in memory",
    "export-failing": lambda a: "the export folder cannot be written; retrying",
    "publish-behind": lambda a: "the public stream to the mirrors is down or behind",
    "task-failed": lambda a: "a task stopped on an error; restarted",
    "service-overloaded": lambda a: "the service is behind the boards",
}


def alert_title(alert: Alert, book: GameBook | None = None) -> str:
    """Where, then what: the board and both players when the alert is about a game."""
    game = book.games.get(alert.game) if book is not None and alert.game else None
    if game is not None:
        names = [p.name if p is not None else "?" for p in (game.white, game.black)]
        where = f"Board {alert.board} · {names[0]} {DASH} {names[1]}"
        # The names are said once, in `where`: after it the players are White and Black.
        colours = dict(zip(names, ("White", "Black"), strict=True))
        alert = replace(alert, players=tuple(colours.get(p, p) for p in alert.players))
    elif alert.game:
        where = f"Board {alert.board}" + (
            f" · {f' {DASH} '.join(alert.players)}" if alert.players else ""
        )
    elif alert.hall_board:
        where = f"Board {alert.hall_board}"
    elif alert.section:
        where = alert.section + (f" · round {alert.round}" if alert.round else "")
    else:
        where = "Event"
    if alert.kind == "result-proposed":
        what = _proposal(alert, game.flag if game is not None else None)
    else:
        words = _WHAT.get(alert.kind)
        what = words(alert) if words is not None else alert.kind.replace("-", " ")
    return f"{where}: {what}"
