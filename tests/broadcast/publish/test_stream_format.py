"""The public stream's entries (format 3): a round trip, deltas that carry what changed
(a clock tick is an edit of a few fields, not the whole game), and decoding that is total
over whatever Redis hands a mirror: a value or a `Rejected` with its reason, never an
exception, never a value of the wrong type, never a zlib bomb inflated whole."""

from __future__ import annotations

import dataclasses
import json
import tempfile
import tracemalloc
import zlib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.config import load_event
from broadcast.games.game_events import GameClock
from broadcast.publish.stream_format import (
    FORMAT,
    Entry,
    Rejected,
    Venue,
    decode_entry,
    decode_snapshot,
    delta_fields,
    entry_bytes,
    public_config,
    read_header,
    snapshot_fields,
)
from broadcast.publish.stream_values import game_plain
from broadcast.service.event_state import EventState, PublicState
from tests.support.web_app import EVENT, make_service, play_moves

CONFIG = load_event(EVENT)
STATE = EventState.new(CONFIG)
EMPTY = PublicState(STATE.tournament, STATE.book, 0)


def _paired() -> PublicState:
    # The example's round 1 as the venue publishes it (games paired, not started).
    with tempfile.TemporaryDirectory() as tmp:
        service, _ = make_service(Path(tmp), delay=0.0)
        public = service.public_state()
        service.journal.close()
    return PublicState(public.tournament, public.book, 0)


PUBLIC = _paired()
VENUE = Venue({"Masters": 1}, {}, 1.0, 2.0, 1.0, 900.0)
TEXT = '{"type":"x","seq":8}'


def _ok(decoded: Entry | Rejected) -> Entry:
    assert isinstance(decoded, Entry), decoded
    return decoded


def test_a_snapshot_round_trips_without_what_must_not_leave_the_venue() -> None:
    config = dataclasses.replace(CONFIG, publish="redis://:secret@h:1/0")
    fields = snapshot_fields(config, "e", 7, PUBLIC, VENUE)
    entry = _ok(decode_snapshot(fields))
    assert entry.config == public_config(CONFIG)
    assert entry.config is not None and entry.config.publish is None
    assert all(b.port == "" for b in entry.config.boards)
    assert b"secret" not in zlib.decompress(fields["body"])
    assert entry.state.book.games == PUBLIC.book.games and entry.seq == 7
    assert fields["format"] == FORMAT == "3"


def test_a_delta_carries_only_what_changed() -> None:
    fields = delta_fields("e", 8, frozenset({"event"}), TEXT, PUBLIC, PUBLIC, VENUE)
    assert json.loads(fields["patch"]) == {}
    entry = _ok(decode_entry(fields, CONFIG, PUBLIC))
    assert entry.state.book is PUBLIC.book and entry.state.tournament is PUBLIC.tournament
    assert entry.keys == {"event"} and entry.text == TEXT


def _played(tmp_path: Path, plies: int) -> tuple[Any, PublicState, str]:
    service, _ = make_service(tmp_path, delay=0.0)
    game_id = sorted(service.book.games)[0]
    board = service.book.get(game_id).board_now()
    sans = []
    for _ in range(plies):
        move = sorted(board.legal_moves, key=lambda m: m.uci())[0]
        sans.append(board.san(move))
        board.push(move)
    play_moves(service, game_id, sans)
    return service, service.public_state(), game_id


def test_a_clock_tick_deep_in_a_game_is_a_small_edit_not_the_whole_game(tmp_path: Path) -> None:
    service, before, game_id = _played(tmp_path, 72)
    with service.batch():
        service.commit([GameClock(game_id, 3000, 2950, "white", service.time_source.now())])
    after = service.public_state()
    assert after.book.get(game_id).white_clock == 3000
    text = json.dumps({"type": "clock", "game": game_id, "seq": 8})
    keys = frozenset({"event", f"game:{game_id}"})
    fields = delta_fields("e", 8, keys, text, before, after, VENUE)
    whole = len(json.dumps(game_plain(after.book.get(game_id))))
    assert whole > 8000  # what format 1 sent for this tick: the game, whole
    assert entry_bytes(fields) < 800, fields["patch"]
    entry = _ok(decode_entry(fields, service.config, before))
    assert entry.state.book.get(game_id) == after.book.get(game_id)
    # The other games are the mirror's own objects still (the web caches by identity).
    other = sorted(before.book.games)[1]
    assert entry.state.book.games[other] is before.book.games[other]
    service.journal.close()


def test_a_takeback_and_a_new_move_are_an_edit_from_where_they_differ(tmp_path: Path) -> None:
    service, before, game_id = _played(tmp_path, 10)
    game = before.book.get(game_id)
    shorter = dataclasses.replace(game, moves=game.moves[:8])
    book = dataclasses.replace(before.book, games={**before.book.games, game_id: shorter})
    after = PublicState(before.tournament, book, 9)
    fields = delta_fields(
        "e", 9, frozenset({"event"}), '{"type":"x","seq":9}', before, after, VENUE
    )
    patch = json.loads(fields["patch"])
    assert patch == {"edits": {game_id: {"base": 10, "keep": 8}}}
    assert _ok(decode_entry(fields, service.config, before)).state.book.get(game_id) == shorter
    # The same edit on a mirror whose game is not at ply 10 does not apply: a mismatch.
    rejected = decode_entry(fields, service.config, after)
    assert isinstance(rejected, Rejected) and rejected.why == "mismatch", rejected
    service.journal.close()


# -- what Redis may hand a mirror -----------------------------------------------------------

values = st.one_of(st.binary(max_size=64), st.text(max_size=64))
names = st.sampled_from(
    ["format", "kind", "epoch", "seq", "keys", "text", "patch", "venue", "body", "after"]
)
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=400, deadline=None)
@given(
    st.dictionaries(st.one_of(names, names.map(str.encode)), values, max_size=10),
    st.sampled_from(["delta", "snapshot", None]),
)
def test_decoding_anything_never_raises(fields: dict[Any, Any], kind: str | None) -> None:
    if kind is not None:
        fields = {**fields, "kind": kind, "format": FORMAT, "epoch": "e", "seq": "1"}
    for decoded in (
        read_header(fields),
        decode_entry(fields, CONFIG, PUBLIC),
        decode_snapshot(fields),
    ):
        assert not isinstance(decoded, BaseException)


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_a_well_formed_delta_with_values_of_any_type_is_taken_only_if_every_type_fits(
    data: st.DataObject,
) -> None:
    """Any JSON in place of a game's fields, moves or a venue's numbers: the decoder
    rejects it, or what it returns holds values of the declared types only."""
    game_id = sorted(PUBLIC.book.games)[0]
    whole = game_plain(PUBLIC.book.games[game_id])
    where = data.draw(st.integers(0, len(whole) - 1))
    whole[where] = data.draw(json_values)
    patch = {"games": {game_id: whole}}
    fields = delta_fields("e", 1, frozenset({"event"}), '{"type":"x","seq":1}', None, PUBLIC, VENUE)
    fields["patch"] = json.dumps(patch)
    decoded = decode_entry(fields, CONFIG, PUBLIC)
    if isinstance(decoded, Entry):
        from broadcast.publish.stream_checks import check_game

        check_game(CONFIG, game_id, decoded.state.book.games[game_id])  # raises if not


def _delta_with_game(change: dict[str, Any]) -> dict[str, Any]:
    game_id = sorted(PUBLIC.book.games)[0]
    fields = delta_fields("e", 1, frozenset({"event"}), '{"type":"x","seq":1}', None, PUBLIC, VENUE)
    whole = game_plain(PUBLIC.book.games[game_id])
    order = [f.name for f in dataclasses.fields(type(PUBLIC.book.games[game_id]))]
    for name, value in change.items():
        whole[order.index(name)] = value
    fields["patch"] = json.dumps({"games": {game_id: whole}})
    return fields


@pytest.mark.parametrize(
    "change",
    [
        {"white_clock": "5400"},
        {"white_clock": 1e300},
        {"running": "green"},
        {"in_sync": 1},
        {"start_fen": 7},
        {"start_fen": "not a position"},
        {"moves": [["e4", "e2e4", 12, 1.0, None, None, False]]},
        {"moves": [["e4", "e2e9", "8/8/8/8/8/8/8/8 w - - 0 1", 1.0, None, None, False]]},
        {"moves": "e4"},
        {"key": {"__type__": "GameKey", "section": "Nowhere", "round": 1, "board": 1}},
        {"white": {"__type__": "GameKey", "section": "Masters", "round": 1, "board": 1}},
        {
            "proposal": {
                "__type__": "ResultProposed",
                "game": 1,
                "result": "1-0",
                "reason": "x",
                "t": 0,
            }
        },
    ],
    ids=lambda c: next(iter(c)) + "=" + json.dumps(next(iter(c.values())))[:24],
)
def test_a_game_of_wrong_types_is_rejected_with_its_reason(change: dict[str, Any]) -> None:
    decoded = decode_entry(_delta_with_game(change), CONFIG, PUBLIC)
    assert isinstance(decoded, Rejected) and decoded.why == "unreadable", decoded
    assert decoded.reason


@pytest.mark.parametrize("broken", ["patch", "venue", "keys", "seq", "text"])
def test_a_damaged_delta_is_rejected(broken: str) -> None:
    fields = delta_fields("e", 8, frozenset({"event"}), TEXT, PUBLIC, PUBLIC, VENUE)
    fields[broken] = "[1, {"
    assert isinstance(decode_entry(fields, CONFIG, PUBLIC), Rejected)


@pytest.mark.parametrize("seq", ["abc", "-1", "1e3", " 1", "99999999999999999999999", "\u0661"])
def test_a_seq_that_is_not_a_plain_number_is_rejected(seq: str) -> None:
    fields = delta_fields("e", 8, frozenset({"event"}), TEXT, PUBLIC, PUBLIC, VENUE)
    fields["seq"] = seq
    assert isinstance(read_header(fields), Rejected)


def test_an_entry_of_another_format_says_both_formats_and_what_to_do() -> None:
    fields = snapshot_fields(CONFIG, "e", 7, PUBLIC, VENUE)
    fields["format"] = "1"
    decoded = decode_snapshot(fields)
    assert isinstance(decoded, Rejected) and decoded.why == "format"
    assert "'1'" in decoded.reason and f"'{FORMAT}'" in decoded.reason
    assert "same boardwire version" in decoded.reason


def test_a_zlib_bomb_is_refused_without_being_inflated() -> None:
    """The audit's bomb: 200 KB that inflate to ~200 MB. It is refused having held at most
    a few MB (inflating stops at the limit); the same holds for the whole decoder."""
    bomb = zlib.compress(b"\0" * (200 << 20), 9)
    assert len(bomb) < 300_000
    fields = snapshot_fields(CONFIG, "e", 7, PUBLIC, VENUE)
    fields["body"] = bomb
    tracemalloc.start()
    try:
        decoded = decode_snapshot(fields)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert isinstance(decoded, Rejected) and "inflate" in decoded.reason, decoded
    assert peak < 40 << 20, f"{peak >> 20} MB held to refuse a bomb"


def test_nan_and_infinity_are_not_numbers_a_stream_may_hold() -> None:
    fields = _delta_with_game({})
    fields["venue"] = fields["venue"].replace('"t":1.0', '"t":NaN')
    assert isinstance(decode_entry(fields, CONFIG, PUBLIC), Rejected)


def test_a_fresh_mirror_process_reads_a_game_with_a_proposed_result(tmp_path: Path) -> None:
    # A mirror never builds an EventService, which registers the journal's event classes
    # with the codec: a game's pending proposal (a `ResultProposed`) made every entry
    # after a flag fall or a mate unreadable there, and the mirror reloaded the snapshot
    # forever. Decoded here in a process that imports the stream format only.
    import base64
    import pickle
    import subprocess
    import sys

    from broadcast.games.game_events import ResultProposed

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
    service.journal.close()
