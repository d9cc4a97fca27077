"""Property (issue 30): whatever marks, moves, clock presses, results and undone marks
come in what order around the default time, the rules never fail, and the hall walk's
open alert lists exactly the tables without an e-board still playing whose players are
not both known."""

from __future__ import annotations

import re
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import event as note
from hypothesis import strategies as st

from broadcast.arbiter.alerts import (
    AbsenceUnmarked,
    PlayerMarkedAbsent,
    PlayerMarkedPresent,
    PresenceUnmarked,
)
from broadcast.arbiter.presence import unknown_colours
from broadcast.arbiter.presence_rules import walked
from broadcast.config.tables import table_of
from broadcast.fide.pairing import Pairing
from broadcast.games.game_events import GameClock, GameMove, ResultConfirmed
from tests.support.arbiter import SESTAO, engine, gid, start_of

PAIRINGS = tuple(Pairing(b, 2 * b - 1, 2 * b) for b in range(1, 9))
START = start_of(SESTAO, 1)
DUE = START + 30 * 60
FIRST = {"white": ("e4", "e2e4", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1")}

step = st.tuples(
    st.sampled_from(
        [
            "present",
            "check-in",
            "absent",
            "unpresent",
            "unabsent",
            "move",
            "press",
            "result",
            "tick",
        ]
    ),
    st.integers(1, 8),
    st.sampled_from(["white", "black"]),
    st.integers(-600, 1200),
)


def _listed(rules) -> list[int] | None:  # type: ignore[no-untyped-def]
    alerts = [a for a in rules.open_alerts() if a.kind == "check-tables"]
    assert len(alerts) <= 1
    if not alerts:
        return None
    found = re.match(r"check tables ([\d, ]+):", alerts[0].message)
    assert found, alerts[0].message
    return [int(t) for t in found.group(1).split(", ")]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    wired=st.integers(0, 4),
    check_in=st.sampled_from(["off", "optional", "required"]),
    steps=st.lists(step, max_size=30),
)
def test_the_alert_lists_exactly_the_unchecked_tables(wired: int, check_in: str, steps) -> None:  # type: ignore[no-untyped-def]
    event = replace(SESTAO, boards=SESTAO.boards[:wired], check_in=check_in)  # type: ignore[arg-type]
    rules = engine(event, pairings=PAIRINGS)
    now = START
    marks: list[tuple[str, str, float, str]] = []
    for kind, board, colour, dt in steps:
        game = gid(SESTAO, 1, board)
        now = max(now, DUE + dt) if kind == "tick" else max(now, min(DUE + dt, now + 120))
        match kind:
            case "present" | "check-in":
                how = "check-in" if kind == "check-in" else "arbiter"
                rules.observe(PlayerMarkedPresent(game, colour, now, how=how))
                marks.append((game, colour, now, "present"))
            case "absent":
                rules.observe(PlayerMarkedAbsent(game, colour, now))
                marks.append((game, colour, now, "absent"))
            case "unpresent" | "unabsent" if marks:
                g, c, t, what = marks.pop()
                undo = PresenceUnmarked if what == "present" else AbsenceUnmarked
                rules.observe(undo(g, c, t, now))  # type: ignore[arg-type]
            case "move" if rules.book.get(game).ply == 0:
                san, uci, fen = FIRST["white"]
                rules.observe(GameMove(game, 1, san, uci, fen, now))
            case "press":
                rules.observe(GameClock(game, 5400, 5400, colour, now - 0.5))
                other = "black" if colour == "white" else "white"
                rules.observe(GameClock(game, 5400, 5400, other, now))  # type: ignore[arg-type]
            case "result" if not rules.book.get(game).finished:
                rules.observe(ResultConfirmed(game, "1-0", "resignation", now))
            case _:
                rules.tick(now)
        expected = sorted(
            table_of(event, "Open", g.key.board)
            for g in rules.book.round_games("Open", 1)
            if not g.finished
            and g.id in rules.rules.watches
            and walked(event, g)
            and unknown_colours(rules.rules.watches[g.id].presence, DUE)
        )
        listed = _listed(rules)
        if now < DUE:
            assert listed is None
        elif listed is not None:
            note("an open alert checked")
            assert listed == expected
        else:
            # No open alert: nothing to check (or it was never needed yet, nor is now).
            rules.tick(now)
            assert _listed(rules) in (None, expected)
            assert not expected or _listed(rules) == expected
