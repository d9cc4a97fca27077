"""Who may use the LiveChess API (`web.livechess.access`): loopback, and the token."""

from __future__ import annotations

from web.livechess.access import api_token, is_loopback, token_ok


def test_loopback_is_this_computer_only() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.0.0.9", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.168.1.10", "venue.lan"))


def test_the_token_is_stable_and_follows_the_password_and_the_event() -> None:
    creds = ("arbiter", "correct horse")
    token = api_token(creds, "Pamplona")
    assert token == api_token(creds, "Pamplona") and len(token) == 32
    assert token != api_token(("arbiter", "other"), "Pamplona")
    assert token != api_token(creds, "Bilbao")
    assert token_ok(token, creds, "Pamplona") and not token_ok("x" + token[1:], creds, "Pamplona")
