"""What a journal file holds is input: whatever a row or a snapshot holds, reading it gives
an event or one clear JournalDamaged line, and a restart ignores a snapshot it cannot
read (a log line, a full replay), never an exception."""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from boards.driver_events import BoardLost
from broadcast.config.loader import load_event
from broadcast.journal.kinds import register_all
from broadcast.journal.store import Journal, JournalDamaged
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support.paths import ROOT

PAMPLONA = ROOT / "examples" / "pamplona-masters.toml"
KINDS = st.sampled_from(["BoardLost", "GameMove", "ClockSeen", "RoundPaired", "Nope", ""])
JSONISH = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["t", "board", "reason", "__type__", "__dt__", "__set__", "__map__"])
            | st.text(max_size=5),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@pytest.fixture(scope="module")
def journal(tmp_path_factory: pytest.TempPathFactory) -> Journal:
    register_all()
    return Journal(tmp_path_factory.mktemp("total") / "j.sqlite")


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(kind=KINDS, body=st.one_of(st.text(max_size=60), JSONISH.map(repr), st.just("[" * 5000)))
def test_any_row_reads_as_an_event_or_one_clear_line(
    journal: Journal, kind: str, body: str
) -> None:
    try:
        journal._decode(7, kind, body)
    except JournalDamaged as exc:
        assert "event 7 cannot be read" in str(exc) and "\n" not in str(exc)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    body=st.binary(max_size=200)
    | st.just(b"x\x9c" + b"\x00" * 50)
    | JSONISH.map(lambda x: zlib.compress(json.dumps({"games": [], "body": x}).encode()))
    | JSONISH.map(lambda x: zlib.compress(json.dumps(x).encode()))
)
def test_a_snapshot_of_any_bytes_is_ignored_not_fatal(
    tmp_path_factory: pytest.TempPathFactory, body: bytes
) -> None:
    register_all()
    path = tmp_path_factory.mktemp("snap") / "j.sqlite"
    journal = Journal(path)
    journal.append([BoardLost(1.0, "01001", "test")], 1.0)
    digest = journal.row_digest(1)
    journal.close()
    from broadcast.service.snapshot import FORMAT, fingerprint

    config = load_event(PAMPLONA)
    service = EventService(config, Journal(path), time_source=ManualTime(2.0), delay=0.0)
    db = sqlite3.connect(path)
    db.execute(
        "INSERT INTO snapshots VALUES (1, 1.0, ?, ?, ?, ?, ?)",
        (
            FORMAT,
            fingerprint(config, service.rules.config),
            digest,
            hashlib.sha256(body).hexdigest(),
            body,
        ),
    )
    db.commit()
    db.close()
    logging.getLogger("broadcast.service.snapshot").disabled = True
    try:
        service.load()  # the snapshot does not fit: a full replay of the one event
    finally:
        logging.getLogger("broadcast.service.snapshot").disabled = False
    assert service.replayed == 1
    service.journal.close()
