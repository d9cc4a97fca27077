"""Closed alerts for the desk's "Closed" section: each with when, why and who closed it.

The rules keep every alert raised and the ids closed (`resolved`, `acknowledged`); when,
why and by whom are in the journal's `AlertResolved` / `AlertAcknowledged` events, read
by kind (an index scan of those rows only).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from broadcast.arbiter.alerts import AlertAcknowledged, AlertReopened, AlertResolved
from broadcast.phrases import say
from broadcast.service.event_service import EventService
from web import json_views
from web.i18n import DEFAULT, gettext_of, languages

__all__ = ["SHOWN", "closed_alerts"]

SHOWN = 50  # the newest closed alerts on the desk
KINDS = ("AlertResolved", "AlertAcknowledged", "AlertReopened")  # the journal's kind column


def closed_alerts(service: EventService, limit: int = SHOWN) -> list[dict[str, Any]]:
    """The newest closed alerts first: the alert's JSON plus `closed` (`t`, `at` in the
    event's time zone, `how`: resolved or acknowledged, `why`, `by`, and the whole `line`
    in English and, by language code, in the desk's other `lines`)."""
    journal = service.journal
    closings: dict[str, AlertResolved | AlertAcknowledged] = {}
    for _, event in journal.read_kinds(0, journal.last_seq(), KINDS):
        if isinstance(event, AlertReopened):
            closings.pop(event.alert, None)  # an undone action asked it again
        elif isinstance(event, AlertResolved | AlertAcknowledged):
            closings.setdefault(event.alert, event)  # the first closing is the one
    raised = service.rules.alerts
    zone = service.config.zone
    others = [lang for lang in languages() if lang != DEFAULT]
    out = []
    for alert_id, closing in sorted(closings.items(), key=lambda kv: -kv[1].t)[:limit]:
        alert = raised.get(alert_id)
        if alert is None:
            continue
        body = json_views.alert_json(alert, service.book, service.config)
        at = dt.datetime.fromtimestamp(closing.t, zone).strftime("%H:%M:%S")
        if isinstance(closing, AlertResolved):
            how, why, by = "resolved", closing.why or "its cause ended", "the rules"
            cause = closing.phrase or closing.why or say("its cause ended")
            line = say("resolved at %(at)s by the rules: %(why)s", at=at, why=cause)
        else:
            how, why, by = "acknowledged", "seen by the arbiter", closing.by
            line = say("acknowledged at %(at)s by %(by)s: seen by the arbiter", at=at, by=by)
        body["closed"] = {
            "t": closing.t,
            "at": at,
            "how": how,
            "why": why,
            "by": by,
            # the whole line in English and in the desk's other languages, by code
            "line": str(line),
            "lines": {lang: line.render(gettext_of(lang)) for lang in others},
        }
        out.append(body)
    return out
