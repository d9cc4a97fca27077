"""The journal stores every kind of event and gives it back equal, durably."""

from __future__ import annotations

import datetime as dt
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from boards.driver_events import BoardConnected, BoardInfo, ClockSeen, PositionSeen
from boards.position import BoardPosition
from broadcast.config.model import PlayerEntry
from broadcast.fide.pairing import Pairing
from broadcast.games.game_events import GameMove, ResultConfirmed
from broadcast.journal.codec import encode, register
from broadcast.journal.store import Journal, JournalError
from broadcast.tournament.tournament_events import ByeRequested, PlayersRegistered, RoundPaired
from clocks.reading import ClockReading, NoClock

register(
    PositionSeen,
    ClockSeen,
    BoardConnected,
    GameMove,
    ResultConfirmed,
    PlayersRegistered,
    RoundPaired,
    ByeRequested,
)

SAMPLES = [
    PositionSeen(1.5, "10001", BoardPosition.from_fen(chess.STARTING_FEN)),
    ClockSeen(2.0, "10001", ClockReading(5400, 5399, True, True)),
    ClockSeen(2.5, "10001", NoClock()),
    BoardConnected(
        3.0, "10001", BoardInfo("/dev/ttyACM0", "10001", (1, 7), "single", None, None, 80, True)
    ),
    GameMove("open-r1-b1", 1, "e4", "e2e4", "fen", 4.0, 5398.0, 2.0),
    ResultConfirmed("open-r1-b1", "1-0", "checkmate", 5.0, by="arbiter:ana"),
    PlayersRegistered("Open", (PlayerEntry(1, "Ana", 2100, "123"), PlayerEntry(2, "Bo"))),
    RoundPaired("Open", 1, (Pairing(1, 1, 2), Pairing(0, 3, None)), "berger"),
    ByeRequested("Open", 5, 3, dt.datetime(2025, 9, 14, 16, 59, 59, tzinfo=dt.UTC)),
]


def test_every_kind_round_trips(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "j.sqlite")
    seqs = journal.append(SAMPLES, t=10.0)
    assert seqs == list(range(1, len(SAMPLES) + 1))
    journal.close()
    again = Journal(tmp_path / "j.sqlite")
    entries = list(again.read())
    assert [e.event for e in entries] == SAMPLES
    assert [e.seq for e in again.read(after=4)] == list(range(5, len(SAMPLES) + 1))
    assert again.last_seq() == len(SAMPLES)


@given(
    st.lists(
        st.builds(
            GameMove,
            st.text(max_size=10),
            st.integers(1, 400),
            st.text(max_size=8),
            st.text(max_size=5),
            st.text(max_size=20),
            st.floats(0, 2e9),
            st.none() | st.floats(0, 36000),
            st.none() | st.floats(0, 36000),
            st.booleans(),
        ),
        max_size=5,
    )
)
def test_game_moves_round_trip_exactly(events: list[GameMove]) -> None:
    from broadcast.journal.codec import decode

    for event in events:
        assert decode(*encode(event)) == event


def test_a_newer_schema_is_refused_with_advice(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    Journal(path).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="schema 99"):
        Journal(path)


def test_a_foreign_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE customers (id INTEGER)")
    db.commit()
    db.close()
    with pytest.raises(JournalError, match="not a boardwire journal"):
        Journal(path)
    (tmp_path / "garbage.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(JournalError, match="not a boardwire journal"):
        Journal(tmp_path / "garbage.sqlite")


def test_acknowledged_appends_survive_kill_9(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    script = textwrap.dedent(
        f"""
        import sys
        from broadcast.journal.codec import register
        from broadcast.games.game_events import GameMove
        from broadcast.journal.store import Journal
        register(GameMove)
        j = Journal({str(path)!r})
        for i in range(1, 100000):
            j.append([GameMove("g", i, "e4", "e2e4", "f", float(i))], t=float(i))
            print(i, flush=True)  # acknowledged only after the commit returned
        """
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=os.environ
    )
    assert proc.stdout is not None
    acknowledged = 0
    for line in proc.stdout:
        acknowledged = int(line)
        if acknowledged >= 200:
            break
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    stored = [e.event.ply for e in Journal(path).read()]
    assert len(stored) >= acknowledged
    assert stored == list(range(1, len(stored) + 1))
