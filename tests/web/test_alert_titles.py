"""Alerts in words: every alert's JSON carries a title naming the table and both players
(from the game book) and what happened, never a kind code or a game id."""

from __future__ import annotations

from pathlib import Path

import pytest

from broadcast.arbiter.alerts import ALERT_KINDS, Alert, AlertKind, Severity
from broadcast.games.book import GameBook
from tests.support.web_app import make_service
from web.json_views import alert_json, alerts_json

GAME = "masters-r1-b2"
WHERE = "Table 2 · Vallverdú, Clara \u2013 Moreau, Hélène: "


@pytest.fixture(scope="module")
def book(tmp_path_factory: pytest.TempPathFactory) -> GameBook:
    service, _ = make_service(Path(tmp_path_factory.mktemp("titles")))
    return service.book


def about_the_game(kind: AlertKind, **more: str) -> Alert:
    # Presence alerts name only the absent player: the title still names both.
    return Alert(
        f"{kind}:{GAME}", kind, "warning", "Masters", 1, 2, GAME, ("Moreau, Hélène",),
        "the rule's own message", 100.0, **more,
    )  # fmt: skip


@pytest.mark.parametrize("kind", ALERT_KINDS)
def test_every_kind_about_a_game_names_board_and_players_in_words(
    book: GameBook, kind: AlertKind
) -> None:
    extra = {"result": "1-0", "reason": "kings-signal"} if kind == "result-proposed" else {}
    body = alert_json(about_the_game(kind, **extra), book)
    title = body["title"]
    assert title.startswith(WHERE), title
    what = title.removeprefix(WHERE)
    assert what and kind not in title and GAME not in title, title
    assert body["kind"] == kind and body["game"] == GAME  # the codes stay for programs


def test_titles_say_what_happened(book: GameBook) -> None:
    flag = about_the_game("result-proposed", result="0-1", reason="flag-fall")
    assert alert_json(flag, book)["title"] == WHERE + "White's flag fell; propose 0-1"
    signal = about_the_game("result-proposed", result="1/2-1/2", reason="kings-signal")
    assert alert_json(signal, book)["title"] == WHERE + "Kings signal; propose 1/2-1/2"
    late = alert_json(about_the_game("late"), book)["title"]
    assert late.startswith(WHERE + "Black not at the board")  # names said once


def test_alerts_without_a_game_say_where_they_are(book: GameBook) -> None:
    bye = Alert(
        "bye-refused:Masters:2:7:1", "bye-refused", "info", "Masters", 2, 0, "",
        ("Moreau, Hélène",), "bye for round 2 refused for Moreau, Hélène: too late", 5.0,
    )  # fmt: skip
    assert alert_json(bye, book)["title"] == "Masters · round 2: bye refused for Moreau, Hélène"
    battery = Alert(
        "battery-low:4:warning", "battery-low", "warning", "", 0, 0, "", (),
        "board 4 battery at 9%", 5.0, hall_board="4",
    )  # fmt: skip
    assert alert_json(battery, book)["title"] == "Board 4: battery low; plug in the charger"
    journal = Alert("journal", "journal-not-writable", "critical", "", 0, 0, "", (), "x", 1.0)
    assert alert_json(journal, book)["title"].startswith("Event: the journal cannot be written")


def test_alerts_are_ordered_by_urgency_then_time(book: GameBook) -> None:
    def alert(name: str, severity: Severity, t: float) -> Alert:
        return Alert(name, "battery-low", severity, "", 0, 0, "", (), name, t, hall_board="1")

    raised = [  # as the rules raised them
        alert("info-early", "info", 1.0),
        alert("warning-later", "warning", 3.0),
        alert("critical-late", "critical", 5.0),
        alert("warning-early", "warning", 2.0),
        alert("critical-early", "critical", 4.0),
    ]
    assert [a["id"] for a in alerts_json(raised, book)] == [
        "critical-early",
        "critical-late",
        "warning-early",
        "warning-later",
        "info-early",
    ]
