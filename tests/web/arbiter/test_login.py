"""The login page says only the server's own messages (issue 29, F12): `?m=` names one of
a fixed table, so a link cannot make the desk's page show a text of its choosing
("the desk moved: log in at ...")."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from aiohttp.test_utils import TestClient

PHISH = "The desk moved: log in at https://evil.example/arbiter"
# The server's own messages, by the key a redirect puts in `?m=` (web.arbiter.login).
MESSAGES = {"wrong": "Wrong user or password.", "expired": "The form expired: try again."}


@pytest.mark.parametrize(
    "m", [PHISH, quote(PHISH), "Wrong user or password.", "<b>x</b>", "wrong ", "WRONG"]
)
async def test_a_text_in_the_link_is_not_shown(client: TestClient, m: str) -> None:
    page = await (await client.get("/arbiter/login", params={"m": m})).text()
    assert "evil.example" not in page and "desk moved" not in page
    assert not any(text in page for text in MESSAGES.values())


async def test_the_servers_messages_are_shown_by_their_key(client: TestClient) -> None:
    for key, text in MESSAGES.items():
        page = await (await client.get(f"/arbiter/login?m={key}")).text()
        assert text in page


async def test_a_wrong_password_and_a_stale_form_say_so(client: TestClient) -> None:
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    wrong = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": "arbiter", "password": "nope"},
        allow_redirects=False,
    )
    assert wrong.headers["Location"] == "/arbiter/login?m=wrong"
    stale = await client.post(
        "/arbiter/login",
        data={"login_token": "stale", "user": "arbiter", "password": "nope"},
        allow_redirects=False,
    )
    assert stale.headers["Location"] == "/arbiter/login?m=expired"
    followed = await client.get(wrong.headers["Location"])
    assert "Wrong user or password." in await followed.text()
