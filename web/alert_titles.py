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
from web.words import N_

__all__ = ["URGENCY", "alert_title", "by_urgency"]

DASH = "\u2013"  # between the players' names, as on the pairings

URGENCY = {"critical": 0, "warning": 1, "info": 2}

Gettext = Callable[[str], str]


def _same(message: str) -> str:
    return message


def by_urgency(alerts: tuple[Alert, ...] | list[Alert]) -> list[Alert]:
    """Critical first, then warnings, then information; oldest first within each."""
    return sorted(alerts, key=lambda a: (URGENCY.get(a.severity, 3), a.t, a.id))


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
    "journal-not-writable": N_("the journal cannot be written; events held in memory"),
    "export-failing": N_("the export folder cannot be written; retrying"),
    "publish-behind": N_("the public stream to the mirrors is down or behind"),
    "task-failed": N_("a task stopped on an error; restarted"),
    "service-overloaded": N_("the service is behind the boards"),
}


def alert_title(alert: Alert, book: GameBook | None = None, _: Gettext = _same) -> str:
    """Where, then what: the board and both players when the alert is about a game; in
    the language of `_` (a gettext; English by default)."""
    game = book.games.get(alert.game) if book is not None and alert.game else None
    if game is not None:
        names = [p.name if p is not None else "?" for p in (game.white, game.black)]
        where = _("Board %(number)s") % {"number": alert.board} + f" · {names[0]} {DASH} {names[1]}"
        # The names are said once, in `where`: after it the players are White and Black.
        colours = dict(zip(names, (_("White"), _("Black")), strict=True))
        alert = replace(alert, players=tuple(colours.get(p, p) for p in alert.players))
    elif alert.game:
        where = _("Board %(number)s") % {"number": alert.board} + (
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
