"""A password spray from many addresses cannot lock the arbiter out (issue 29, F4), and
guessing stays hopeless.

What is guaranteed (web.auth), and held here:
- per client, `LOGIN_ATTEMPTS` failures in `LOGIN_WINDOW` lock that client out with
  doubling back-off; a client is its address, or a desk browser remembered by its
  device cookie, whose count is its own (a neighbour behind the same address cannot
  lock it);
- a spray (`GLOBAL_ATTEMPTS` failures from unknown clients in the window) locks out
  unknown clients only: a remembered desk browser, an address that logged in within
  `KNOWN_SECONDS`, an open session and the arbiters' networks (`--arbiter-network`) keep
  logging in with the right password, whatever their address looks like;
- the arbiters' networks are never locked out, not even by their own wrong passwords;
- whoever is locked out gets 429 for the right password as for a wrong one: a guess is
  never confirmed to the party that is locked out.
Addresses come through a trusted proxy's X-Forwarded-For (the test client is 127.0.0.1).
"""

from __future__ import annotations

import re
from base64 import b64encode
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import ClientSession, DummyCookieJar, web
from aiohttp.test_utils import TestClient, TestServer

from tests.support.serve_args import serve_args
from tests.support.web_app import CREDENTIALS, make_service
from web import auth as auth_module
from web.app import build_app
from web.keys import AUTH
from web.proxy import ProxySettings, make_settings, parse_network

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}
WRONG = {"Authorization": "Basic " + b64encode(b"arbiter:guess").decode()}
BOARDS = "/api/v1/arbiter/boards"
ARBITERS_ROOM = "192.0.2.0/24"  # --arbiter-network in these tests


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _from(address: str) -> dict[str, str]:
    """A request as the trusted proxy (127.0.0.1) forwards it for `address`."""
    return {"X-Forwarded-For": address}


async def _site(tmp_path: Path, proxy: ProxySettings) -> tuple[TestClient, Clock]:
    service, _ = make_service(tmp_path)
    client = TestClient(TestServer(build_app(service, CREDENTIALS, proxy)))
    await client.start_server()
    clock = Clock()
    app: web.Application = client.server.app  # type: ignore[attr-defined]
    app[AUTH].now = clock
    return client, clock


@pytest.fixture
async def site(tmp_path: Path) -> AsyncIterator[tuple[TestClient, Clock]]:
    """Behind a trusted proxy (127.0.0.1), which names each request's client."""
    client, clock = await _site(tmp_path, ProxySettings(trusted=(parse_network("127.0.0.1"),)))
    yield client, clock
    await client.close()


@pytest.fixture
async def room(tmp_path: Path) -> AsyncIterator[tuple[TestClient, Clock]]:
    """The same, started with `--arbiter-network 192.0.2.0/24`."""
    client, clock = await _site(tmp_path, make_settings(["127.0.0.1"], None, [ARBITERS_ROOM]))
    yield client, clock
    await client.close()


async def _spray(client: TestClient, n: int = auth_module.GLOBAL_ATTEMPTS) -> None:
    """`n` wrong Basic guesses, each address under its own limit (a botnet; no cookies)."""
    per = auth_module.LOGIN_ATTEMPTS - 1
    async with ClientSession(cookie_jar=DummyCookieJar()) as bot:
        for i in range(n):
            headers = {**WRONG, **_from(f"10.0.{i // per}.1")}
            async with bot.get(client.make_url(BOARDS), headers=headers) as response:
                assert response.status in (401, 429)


async def _form_login(
    client: TestClient, address: str, password: str = CREDENTIALS[1]
) -> tuple[int, str]:
    """The desk's login form from `address`: (status, where it sends the browser)."""
    page = await client.get("/arbiter/login", headers=_from(address))
    token = re.search(r'name="login_token" value="([^"]+)"', await page.text())
    assert token is not None
    response = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": password},
        headers=_from(address),
        allow_redirects=False,
    )
    return response.status, response.headers.get("Location", "")


async def test_a_spray_locks_out_unknown_clients_and_confirms_no_guess(
    site: tuple[TestClient, Clock],
) -> None:
    """Guessing stays hopeless: after a spray, a client never seen before is held, and
    gets the same 429 for the right password as for a wrong one."""
    client, clock = site
    await _spray(client)
    for headers in (BASIC, WRONG):
        held = await client.get(BOARDS, headers={**headers, **_from("198.51.100.20")})
        assert held.status == 429 and int(held.headers["Retry-After"]) > 0
    assert (await _form_login(client, "198.51.100.21"))[0] == 429
    clock.t += auth_module.LOGIN_WINDOW  # the first lockout ends
    assert (await client.get(BOARDS, headers={**BASIC, **_from("198.51.100.20")})).status == 200


async def test_a_spray_does_not_lock_out_an_address_that_logged_in_lately(
    site: tuple[TestClient, Clock],
) -> None:
    """The arbiter's script logged in this morning from the venue's address; a spray at
    noon (the lockout doubling as it goes on) does not stop it."""
    client, clock = site
    venue = "203.0.113.5"
    assert (await client.get(BOARDS, headers={**BASIC, **_from(venue)})).status == 200
    clock.t += 3 * 3600
    for _ in range(3):  # three sprays in a row: each lockout twice as long as the last
        await _spray(client)
        assert (await client.get(BOARDS, headers={**BASIC, **_from(venue)})).status == 200
        assert (await _form_login(client, venue)) == (303, "/arbiter")
        client.session.cookie_jar.clear()  # a script: no cookies
        assert (await client.get(BOARDS, headers={**BASIC, **_from("198.51.100.7")})).status == 429
        clock.t += 10


async def test_a_remembered_desk_browser_logs_in_from_a_new_address_during_a_spray(
    site: tuple[TestClient, Clock],
) -> None:
    """The arbiter logged in at the hotel yesterday; today, from the venue (an address
    never seen), during a spray, the same browser logs in with the right password. A
    neighbour behind the venue's address who locks that address out does not lock it."""
    client, clock = site
    assert await _form_login(client, "198.51.100.30") == (303, "/arbiter")
    await client.post("/arbiter/logout", headers=_from("198.51.100.30"))
    clock.t += 20 * 3600  # the next day: the hotel's address is forgotten by now
    venue = "203.0.113.77"
    await _spray(client)
    for _ in range(auth_module.LOGIN_ATTEMPTS):  # the neighbour, from the venue's address
        await client.get(BOARDS, headers={**WRONG, **_from(venue)})
    assert (await client.get(BOARDS, headers={**BASIC, **_from(venue)})).status == 429
    assert await _form_login(client, venue) == (303, "/arbiter")  # the remembered browser
    assert (await client.get("/arbiter", headers=_from(venue))).status == 200


async def test_a_remembered_browser_has_its_own_count_of_typos(
    site: tuple[TestClient, Clock],
) -> None:
    """Guessing with a remembered browser is limited like any client: its own typos lock
    it, with 429 for the right password while locked."""
    client, _ = site
    assert await _form_login(client, "198.51.100.40") == (303, "/arbiter")
    for _ in range(auth_module.LOGIN_ATTEMPTS):
        assert (await _form_login(client, "198.51.100.40", "typo"))[1] == "/arbiter/login?m=wrong"
    assert (await _form_login(client, "198.51.100.40"))[0] == 429


async def test_a_forged_device_cookie_is_an_unknown_client(
    site: tuple[TestClient, Clock],
) -> None:
    client, _ = site
    await _spray(client)
    client.session.cookie_jar.update_cookies({auth_module.DEVICE_COOKIE: "made-up"})
    assert (await _form_login(client, "198.51.100.50"))[0] == 429


async def test_basic_from_the_arbiters_network_is_never_locked_out(
    room: tuple[TestClient, Clock],
) -> None:
    """A script on the arbiters' own network (`--arbiter-network 192.0.2.0/24`) keeps
    working through a spray, and even after wrong passwords from its own address."""
    client, _ = room
    await _spray(client)
    for _ in range(3 * auth_module.LOGIN_ATTEMPTS):
        assert (await client.get(BOARDS, headers={**WRONG, **_from("192.0.2.50")})).status == 401
    for address in ("192.0.2.50", "192.0.2.7"):
        assert (await client.get(BOARDS, headers={**BASIC, **_from(address)})).status == 200
    # Next door is not the arbiters' network.
    assert (await client.get(BOARDS, headers={**BASIC, **_from("192.0.3.7")})).status == 429
    assert await _form_login(client, "192.0.2.8") == (303, "/arbiter")


async def test_an_open_session_is_never_asked_for_a_password(
    site: tuple[TestClient, Clock],
) -> None:
    client, _ = site
    assert await _form_login(client, "198.51.100.60") == (303, "/arbiter")
    await _spray(client)
    assert (await client.get(BOARDS, headers=_from("198.51.100.61"))).status == 200


def test_known_clients_do_not_feed_the_spray_count() -> None:
    """The spray count is the unknown clients': an arbiter's typos from a known address
    never bring the lock on everybody else."""
    clock = Clock()
    auth = auth_module.Auth(CREDENTIALS, now=clock)
    known = [f"198.51.100.{i}" for i in range(20)]
    for address in known:
        assert auth.check_guess(address, *CREDENTIALS)
    for _ in range(3):
        for address in known:
            assert auth.check_guess(address, "arbiter", "typo") is False
    assert auth.retry_after("203.0.113.1") == 0


def test_the_arbiters_network_must_be_small() -> None:
    from web.proxy import parse_arbiter_network

    for wide in ("0.0.0.0/0", "10.0.0.0/8", "::/0", "2001:db8::/32"):
        with pytest.raises(ValueError, match="too wide"):
            parse_arbiter_network(wide)
    for ok in ("192.0.2.7", "10.1.0.0/16", "2001:db8:1::/48"):
        assert parse_arbiter_network(ok)


@pytest.mark.parametrize(
    ("given", "said"),
    [("10.0.0.0/8", "--arbiter-network 10.0.0.0/8: too wide"), ("room", "--arbiter-network: not")],
)
async def test_serve_refuses_a_wrong_arbiter_network_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, said: str
) -> None:
    from broadcast.cli.main import build_parser
    from broadcast.cli.serve import serve

    parsed = build_parser().parse_args(["serve", "x.toml", "--arbiter-network", given])
    assert parsed.arbiter_network == [given]
    args = serve_args(tmp_path)
    args.arbiter_network = parsed.arbiter_network
    assert await serve(args, credentials=CREDENTIALS) == 2
    err = capsys.readouterr().err
    assert said in err and err.count("\n") == 1
