"""Requests read totally (`web.livechess.protocol`): any frame is a request or a refusal
that says what is wrong, never an exception."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from web.livechess.protocol import (
    MAX_FRAME,
    Refusal,
    Request,
    call_reply,
    error_reply,
    read_request,
)

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=20,
)


def test_a_request_is_read() -> None:
    frame = json.dumps({"id": 3, "call": "eboards", "param": None})
    assert read_request(frame) == Request(3, "eboards", None)
    assert read_request(frame.encode()) == Request(3, "eboards", None)


def test_what_is_wrong_is_said() -> None:
    assert read_request(b"\xff\xfe") == Refusal(None, "a request is JSON text in UTF-8")
    for frame, words in (("{", "not JSON"), ("[1]", "JSON object")):
        refusal = read_request(frame)
        assert isinstance(refusal, Refusal) and words in refusal.message
    assert read_request('{"call": "eboards"}') == Refusal(
        None, "the request has no id (a whole number)"
    )
    assert read_request('{"id": true, "call": "eboards"}') == Refusal(
        None, "the request has no id (a whole number)"
    )
    unknown = read_request('{"id": 7, "call": "reboot"}')
    assert isinstance(unknown, Refusal) and unknown.id == 7 and "eboards" in unknown.message
    assert isinstance(read_request("[" * 100_000), Refusal)  # too deep, or too long
    assert isinstance(read_request(" " * (MAX_FRAME + 1)), Refusal)


def test_replies_are_the_documented_frames() -> None:
    assert json.loads(call_reply(4, [1], 99)) == {
        "response": "call",
        "id": 4,
        "param": [1],
        "time": 99,
    }
    assert json.loads(error_reply(None, "no", 5))["param"] == {"message": "no"}


@given(st.binary(max_size=300))
@settings(max_examples=300)
def test_any_bytes_are_a_request_or_a_refusal(data: bytes) -> None:
    assert isinstance(read_request(data), Request | Refusal)


@given(JSON, st.one_of(st.none(), st.integers(), st.text(max_size=10)), JSON)
@settings(max_examples=300)
def test_any_json_is_a_request_or_a_refusal(whole: object, call: object, param: object) -> None:
    assert isinstance(read_request(json.dumps(whole)), Request | Refusal)
    shaped = json.dumps({"id": 1, "call": call, "param": param})
    got = read_request(shaped)
    assert isinstance(got, Request | Refusal)
    if isinstance(got, Request):
        assert got.call == call and got.param == param
