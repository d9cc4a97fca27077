"""Alert titles an arbiter reads in one glance: where (table and players), then what.

"Table 4 · Lindqvist - Ferreira: White's flag fell; propose 0-1" (with an en dash): the
hall's table, one number across sections (Kutxa's board 2 is "Table 17" in Donostia); an
alert about an e-board and no game names the board ("Board 17"). Built on the server from
the alert and the game book, so the desk's script only shows text; the kind codes and game
ids stay in the JSON for programs. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from broadcast.arbiter.alerts import Alert, AlertKind
from broadcast.config.model import EventConfig
from broadcast.config.tables import table_of
from broadcast.fide.results import REASON_TEXT
from broadcast.games.book import GameBook
from web.words import N_

__all__ = ["URGENCY", "alert_title", "by_urgency"]

DASH = "\u2013"  # between the players' names, as on the pairings

URGENCY = {"critical": 0, "warning": 1, "info": 2}

Gettext = Callable[[str], str]


def _same(message: str) -> str:
    return message


def by_urgency(
    alerts: tuple[Alert, ...] | list[Alert], event: EventConfig | None = None
) -> list[Alert]:
    """Critical first, then warnings, then information; within each, by table as a number
    (the event's own alerts first: they have none), then oldest first. `event` numbers
    the tables across sections (without it, a game's pairing board)."""
    return sorted(
        alerts,
        key=lambda a: (URGENCY.get(a.severity, 3), _table(a, event), a.t, _natural(a.id)),
    )


def _natural(text: str) -> tuple[str | int, ...]:
    """An id with its numbers compared as numbers ("board-missing:2" before ":10")."""
    parts = re.split(r"(\d{1,9})", text)
    return tuple(int(p) if i % 2 else p for i, p in enumerate(parts))


def _table(alert: Alert, event: EventConfig | None) -> int:
    """The table an alert is about, as a number for sorting (10 after 9, not after 1):
    its game's table, else its hall board's number; -1 for the event's own alerts."""
    if alert.game:
        return alert.board if event is None else table_of(event, alert.section, alert.board)
    name = alert.hall_board
    return int(name) if name.isascii() and name.isdigit() and len(name) < 10 else -1


def _names(alert: Alert, _: Gettext) -> str:
    return _(" and ").join(alert.players) or _("a player")


def _proposal(alert: Alert, flagged: str | None, _: Gettext) -> str:
    if alert.reason == "flag-fall":
        who = flagged or {"0-1": "white", "1-0": "black"}.get(alert.result)
        if who == "white":
            return _("White's flag fell; propose %(result)s") % {"result": alert.result}
        if who == "black":
            return _("Black's flag fell; propose %(result)s") % {"result": alert.result}
    english = REASON_TEXT.get(alert.reason, alert.reason.replace("-", " "))
    words = _(english) if english else _("a result")
    return _("%(what)s; propose %(result)s") % {
        "what": f"{words[:1].upper()}{words[1:]}",
        "result": alert.result,
    }


# What happened, by kind; `%(names)s` is the players the alert names.
_WHAT: dict[AlertKind, str] = {  # marked for the catalogs with N_
    "late": N_("%(names)s not at the board; default time approaching"),
    "check-presence": N_("no sign of %(names)s; check presence"),
    "check-tables": N_("check who is at the tables listed"),
    "withdraw-from-pairing": N_("%(names)s reached the no-show limit; withdraw?"),
    "early-draw": N_("draw agreed early; check it"),
    "board-not-responding": N_("board not responding"),
    "driver-fault": N_("board driver stopped on an error; restarting"),
    "moves-to-check": N_("moves may be missing; check the game"),
    "bus-polls-missed": N_("bus polls unanswered; check the cable"),
    "battery-low": N_("battery low; plug in the charger"),
    "clock-not-connected": N_("no clock connected"),
    "out-of-sync": N_("the board does not match the game"),
    "illegal-move-stood": N_("an illegal move may stand"),
    "bye-refused": N_("bye refused for %(names)s"),
    "both-flags": N_("both flags fell; decide the result"),
    "absence-disqualifies": N_("%(names)s out after an absence unless they continue"),
    "arbiter-override": N_("regulation overridden for %(names)s"),
    "team-forfeit": N_("too few players of a team at the default time; the match by forfeit?"),
    "journal-not-writable": N_("the journal cannot be written; events held in memory"),
    "export-failing": N_("the export folder cannot be written; retrying"),
    "delays-add-up": N_("Lichess spectators see moves later than the delay: both delays apply"),
    "publish-behind": N_("the public stream to the mirrors is down or behind"),
    "task-failed": N_("a task stopped on an error; restarted"),
    "service-overloaded": N_("the service is behind the boards"),
    "station-lost": N_("a capture station is lost; its boards are not read"),
    "station-clock": N_("a capture station's clock is off"),
    "board-claimed-twice": N_("two capture stations claim one board"),
    "station-refused": N_("a capture station sent what cannot be applied"),
    "stations-unreachable": N_("the capture stations' Redis cannot be reached"),
}


def _at_table(event: EventConfig | None, alert: Alert, _: Gettext) -> str:
    """ "Table 17": the hall's table of the alert's game (`broadcast.config.tables`), the
    number the arbiter walks to; without the event, its pairing board."""
    number = alert.board if event is None else table_of(event, alert.section, alert.board)
    return _("Table %(number)s") % {"number": number}


def alert_title(
    alert: Alert,
    book: GameBook | None = None,
    _: Gettext = _same,
    *,
    event: EventConfig | None = None,
) -> str:
    """Where, then what: the table and both players when the alert is about a game; in
    the language of `_` (a gettext; English by default). `event`: the config that numbers
    the tables (without it, a game's table is its pairing board)."""
    game = book.games.get(alert.game) if book is not None and alert.game else None
    if game is not None:
        names = [p.name if p is not None else "?" for p in (game.white, game.black)]
        where = _at_table(event, alert, _) + f" · {names[0]} {DASH} {names[1]}"
        # The names are said once, in `where`: after it the players are White and Black.
        colours = dict(zip(names, (_("White"), _("Black")), strict=True))
        alert = replace(alert, players=tuple(colours.get(p, p) for p in alert.players))
    elif alert.game:
        where = _at_table(event, alert, _) + (
            f" · {f' {DASH} '.join(alert.players)}" if alert.players else ""
        )
    elif alert.hall_board:
        where = _("Board %(number)s") % {"number": alert.hall_board}
    elif alert.section:
        where = alert.section + (
            " · " + _("round %(number)s") % {"number": alert.round} if alert.round else ""
        )
    else:
        where = _("Event")
    if alert.kind == "result-proposed":
        what = _proposal(alert, game.flag if game is not None else None, _)
    else:
        words = _WHAT.get(alert.kind)
        what = (
            _(words) % {"names": _names(alert, _)}
            if words is not None
            else alert.kind.replace("-", " ")
        )
    return f"{where}: {what}"
