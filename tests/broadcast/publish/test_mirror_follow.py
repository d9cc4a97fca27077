"""A mirror's judgement of stream entries (`mirror_follow`), without Redis: whatever an
entry holds, the mirror never raises and keeps serving its last good state; it moves only
for the venue's next delta or a snapshot that does not turn it back."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.publish.mirror_follow import Position, Reset, Resync, Skip, Take, place
from broadcast.publish.stream_checks import check_game
from broadcast.publish.stream_format import Venue, delta_fields, snapshot_fields
from broadcast.service.event_state import PublicState
from tests.support.web_app import make_service, play_moves

VENUE = Venue({"Masters": 1}, {}, 1.0, 2.0, 1.0, 900.0)


def _states() -> tuple[Any, PublicState, PublicState, str]:
    with tempfile.TemporaryDirectory() as tmp:
        service, _ = make_service(Path(tmp), delay=0.0)
        before = service.public_state()
        game = sorted(service.book.games)[0]
        play_moves(service, game, ["e4", "e5"])
        after = service.public_state()
        service.journal.close()
    return service.config, before, after, game


CONFIG, BEFORE, AFTER, GAME = _states()
AT = Position(CONFIG, "venue-run", 5, PublicState(BEFORE.tournament, BEFORE.book, 5))


def _text(seq: int) -> str:
    return json.dumps({"type": "move", "game": GAME, "seq": seq})


NEXT = delta_fields("venue-run", 6, frozenset({"event"}), _text(6), BEFORE, AFTER, VENUE)


def test_the_next_delta_is_taken() -> None:
    outcome = place(NEXT, AT)
    assert isinstance(outcome, Take), outcome
    assert outcome.entry.state.book.get(GAME).ply == 2


def test_what_cannot_be_placed_is_not_taken() -> None:
    old = dict(NEXT, seq="5", text=_text(5))
    assert isinstance(place(old, AT), Skip) and place(old, AT).quiet  # type: ignore[union-attr]
    gap = dict(NEXT, seq="9", text=_text(9))
    assert isinstance(place(gap, AT), Resync)
    other_run = dict(NEXT, epoch="another")
    assert isinstance(place(other_run, AT), Resync)
    seen = Position(AT.config, AT.epoch, 6, AT.state, text=_text(6))
    forged = dict(NEXT, text=json.dumps({"type": "clock", "game": GAME, "seq": 6}))
    assert isinstance(place(forged, seen), Resync)  # two entries numbered 6


def test_a_snapshot_is_taken_unless_it_would_turn_the_mirror_back() -> None:
    newer = snapshot_fields(CONFIG, "venue-run", 7, AFTER, VENUE)
    assert isinstance(place(newer, AT), Reset)
    older = snapshot_fields(CONFIG, "venue-run", 3, AFTER, VENUE)
    assert isinstance(place(older, AT), Skip)
    restarted = snapshot_fields(CONFIG, "next-run", 0, AFTER, VENUE)
    assert isinstance(place(restarted, AT), Reset)


# Entries as junk writers make them: the venue's next delta with any field replaced by
# anything, fields dropped, or junk whole.
junk_values = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=40),
    st.integers(-(10**20), 10**20).map(str),
    st.sampled_from(["delta", "snapshot", "2", "1", "venue-run", "{}", "[]", "null", "NaN"]),
    st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
        lambda inner: (
            st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
        ),
        max_leaves=12,
    ).map(json.dumps),
)


@st.composite
def entries(draw: st.DrawFn) -> dict[Any, Any]:
    if draw(st.booleans()):
        return draw(st.dictionaries(st.binary(max_size=8), st.binary(max_size=40), max_size=8))
    fields: dict[Any, Any] = dict(NEXT)
    for name in draw(st.lists(st.sampled_from(sorted(NEXT)), max_size=4, unique=True)):
        if draw(st.booleans()):
            del fields[name]
        else:
            fields[name] = draw(junk_values)
    if draw(st.booleans()):
        fields = {k.encode(): v.encode() if isinstance(v, str) else v for k, v in fields.items()}
    return fields


@settings(max_examples=500, deadline=None)
@given(st.lists(entries(), min_size=1, max_size=5))
def test_whatever_the_stream_holds_the_mirror_keeps_its_last_good_state(
    stream: list[dict[Any, Any]],
) -> None:
    at = AT
    for fields in stream:
        outcome = place(fields, at)  # never raises
        if isinstance(outcome, Take | Reset):
            entry = outcome.entry
            # Taken only as the next of the run, or as a snapshot not older than the state.
            if isinstance(outcome, Take):
                assert (entry.epoch, entry.seq) == (at.epoch, at.seq + 1)
            else:
                assert entry.epoch != at.epoch or entry.seq >= at.seq
            for game_id, game in entry.state.book.games.items():
                check_game(at.config, game_id, game)  # only values of the right types
            at = Position(
                entry.config or at.config, entry.epoch, entry.seq, entry.state, entry.text
            )
        else:
            assert isinstance(outcome, Skip | Resync) and outcome.reason
    # Junk never moves the mirror backwards.
    assert at.epoch != AT.epoch or at.seq >= AT.seq
