"""The public stream's entries: a round trip, and decoding that never raises anything but
`StreamFormatError` on whatever Redis hands a mirror."""

from __future__ import annotations

import dataclasses
import json
import zlib
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from web_support import EVENT

from broadcast.config import load_event
from broadcast.publish.stream_format import (
    StreamFormatError,
    Venue,
    decode_entry,
    decode_snapshot,
    delta_fields,
    public_config,
    snapshot_fields,
)
from broadcast.service.state import EventState, PublicState

CONFIG = load_event(EVENT)
STATE = EventState.new(CONFIG)
PUBLIC = PublicState(STATE.tournament, STATE.book, 0)
VENUE = Venue({"Masters": 1}, {}, 1.0, 2.0, 1.0, 900.0)


def test_a_snapshot_round_trips_without_what_must_not_leave_the_venue() -> None:
    config = dataclasses.replace(CONFIG, publish="redis://:secret@h:1/0")
    fields = snapshot_fields(config, "e", 7, PUBLIC, VENUE)
    entry = decode_snapshot(fields)
    assert entry.config == public_config(CONFIG)
    assert entry.config is not None and entry.config.publish is None
    assert all(b.port == "" for b in entry.config.boards)
    assert b"secret" not in zlib.decompress(fields["body"])
    assert entry.state.book.games == PUBLIC.book.games and entry.seq == 7


def test_a_delta_carries_only_what_changed() -> None:
    fields = delta_fields("e", 8, frozenset({"event"}), '{"type":"x"}', PUBLIC, PUBLIC, VENUE)
    assert json.loads(fields["patch"]) == {}
    entry = decode_entry(fields, CONFIG, PUBLIC)
    assert entry.state.book is PUBLIC.book and entry.state.tournament is PUBLIC.tournament
    assert entry.keys == {"event"} and entry.text == '{"type":"x"}'


values = st.one_of(st.binary(max_size=64), st.text(max_size=64))
names = st.sampled_from(
    ["format", "kind", "epoch", "seq", "keys", "text", "patch", "venue", "body"]
)


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(st.one_of(names, names.map(str.encode)), values, max_size=9),
    st.sampled_from(["delta", "snapshot", None]),
)
def test_decoding_anything_never_raises_anything_else(fields: dict, kind: str | None) -> None:
    if kind is not None:
        fields = {**fields, "kind": kind, "format": "1"}
    try:
        decode_entry(fields, CONFIG, PUBLIC)
    except StreamFormatError:
        pass


@pytest.mark.parametrize("broken", ["patch", "venue", "keys", "seq"])
def test_a_damaged_delta_is_a_stream_format_error(broken: str) -> None:
    fields = delta_fields("e", 8, frozenset({"event"}), "{}", PUBLIC, PUBLIC, VENUE)
    fields[broken] = "[1, {"
    with pytest.raises(StreamFormatError):
        decode_entry(fields, CONFIG, PUBLIC)


def test_a_fresh_mirror_process_reads_a_game_with_a_proposed_result(tmp_path: Path) -> None:
    # A mirror never builds an EventService, which registers the journal's event classes
    # with the codec: a game's pending proposal (a `ResultProposed`) made every entry
    # after a flag fall or a mate unreadable there, and the mirror reloaded the snapshot
    # forever. Decoded here in a process that imports the stream format only.
    import base64
    import pickle
    import subprocess
    import sys

    from web_support import make_service

    from broadcast.games.events import ResultProposed

    service, _ = make_service(tmp_path, delay=0.0)
    public = service.public_state()
    game_id = next(iter(public.book.games))
    game = public.book.games[game_id]
    proposed = dataclasses.replace(game, proposal=ResultProposed(game_id, "1-0", "checkmate", 5.0))
    book = dataclasses.replace(public.book, games={**public.book.games, game_id: proposed})
    fields = snapshot_fields(CONFIG, "e", 3, PublicState(public.tournament, book, 3), VENUE)
    code = (
        "import base64, pickle, sys\n"
        "from broadcast.publish.stream_format import decode_snapshot\n"
        "entry = decode_snapshot(pickle.loads(base64.b64decode(sys.stdin.read())))\n"
        f"print(entry.state.book.games[{game_id!r}].proposal.result)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=base64.b64encode(pickle.dumps(fields)).decode(),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "1-0"
