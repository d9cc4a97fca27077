"""The pages in the spectators' own language: English, Spanish and Basque.

The catalogs: every message Babel extracts from web/ (templates and Python, with the
project's babel.cfg) has a translation in every catalog, with the same placeholders, and
no catalog keeps a fuzzy guess or a message nobody asks for any more. The pages: the
language from `?lang=` (remembered in a cookie), else from `Accept-Language`, else
English; `<html lang>` follows, answers are cached per language, dates are the event's
time zone written the reader's way, and the scripts get their words in the page's language.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from aiohttp.test_utils import TestClient, TestServer
from babel.messages.catalog import Message
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po

from broadcast.config.model import System
from broadcast.fide.results import REASON_TEXT
from broadcast.games.game_events import GameMove, ResultConfirmed
from tests.support.paths import ROOT
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web import i18n, pages
from web.app import build_app
from web.arbiter.login import WRONG
from web.auth import AUTH_FAILED_MESSAGE
from web.keys import SERVICE
from web.words import DOMAIN_WORDS, REASON_WORDS, SCRIPT_TEXTS

LOCALE = ROOT / "web" / "locale"
PLACEHOLDER = re.compile(r"%\(\w+\)[sd]|%%")


def _extracted() -> dict[str | tuple[str, str], set[str]]:
    """Every message of web/ as Babel extracts it (babel.cfg), with where it is found."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)
    keywords = {"_": None, "gettext": None, "ngettext": (1, 2), "N_": None, "say": None}
    found: dict[str | tuple[str, str], set[str]] = {}
    for filename, _lineno, message, _comments, _context in extract_from_dir(
        str(ROOT), method_map, options_map, keywords=keywords
    ):
        key = message if isinstance(message, str) else (message[0], message[1])
        found.setdefault(key, set()).add(filename)
    return found


MESSAGES = _extracted()
CATALOGS = sorted(p.parent.parent.name for p in LOCALE.glob("*/LC_MESSAGES/messages.po"))


def test_the_catalogs_are_the_languages_offered() -> None:
    assert {"es", "eu"} <= set(CATALOGS)
    assert i18n.languages() == ("en", *CATALOGS)
    assert len(MESSAGES) > 200  # the templates and web/'s Python: extraction found them


def _translated(message: Message) -> bool:
    strings = message.string if isinstance(message.string, tuple) else (message.string,)
    return all(strings)  # every plural form too


@pytest.mark.parametrize("lang", CATALOGS)
def test_every_message_is_translated_and_nothing_is_stale(lang: str) -> None:
    with (LOCALE / lang / "LC_MESSAGES" / "messages.po").open("rb") as f:
        catalog = read_po(f, locale=lang)
    ids = {m.id if isinstance(m.id, str) else (m.id[0], m.id[1]): m for m in catalog if m.id}
    untranslated = [key for key in MESSAGES if key not in ids or not _translated(ids[key])]
    assert untranslated == [], f"{lang}: untranslated (make catalogs, then translate)"
    stale = sorted(str(key) for key in ids if key not in MESSAGES)
    assert stale == [], f"{lang}: messages no page asks for any more (make catalogs)"
    assert [str(m.id) for m in catalog if m.id and m.fuzzy] == [], f"{lang}: fuzzy entries"
    assert not catalog.obsolete, f"{lang}: obsolete entries (make catalogs drops them)"
    for message in ids.values():
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        source = message.id[-1] if isinstance(message.id, tuple) else message.id
        for string in strings:
            assert sorted(set(PLACEHOLDER.findall(string))) == sorted(
                set(PLACEHOLDER.findall(source))
            ), f"{lang}: {source!r} -> {string!r}: the placeholders differ"


def test_the_domain_words_the_pages_show_are_all_marked_for_translation() -> None:
    assert set(REASON_TEXT.values()) <= set(REASON_WORDS)
    assert set(pages.REASON_TEXT.values()) <= set(REASON_WORDS)
    assert "flag fall, no mating material" in REASON_WORDS  # json_views' draw on time
    assert set(System.__args__) <= set(DOMAIN_WORDS)  # type: ignore[attr-defined]
    assert {"blitz", "armageddon"} <= set(DOMAIN_WORDS)
    assert WRONG == AUTH_FAILED_MESSAGE
    assert all(text in MESSAGES for text in SCRIPT_TEXTS.values())


def test_the_reader_language_is_the_link_then_the_cookie_then_the_browser() -> None:
    assert i18n.choose(None, None, None) == "en"
    assert i18n.choose(None, None, "eu-ES,eu;q=0.9,es;q=0.8,en;q=0.7") == "eu"
    assert i18n.choose(None, None, "fr-FR, es;q=0.5, en;q=0.2") == "es"
    assert i18n.choose(None, None, "es-MX") == "es"
    assert i18n.choose(None, None, "fr, de") == "en"
    assert i18n.choose(None, None, "es;q=0, eu;q=0.1") == "eu"  # q=0: not wanted
    assert i18n.choose(None, "es", "eu") == "es"  # the switcher's choice wins
    assert i18n.choose("eu", "es", "en") == "eu"  # and a link wins over it
    assert i18n.choose("xx", "nope", "es") == "es"  # unknown codes are passed over
    assert i18n.parse_accept_language("a" * 50 + ", es") == ["es"]


def test_dates_and_times_are_the_event_zone_written_the_reader_way() -> None:
    start = dt.datetime(2025, 12, 22, 16, 0, tzinfo=dt.UTC)  # 17:00 in Madrid
    madrid = ZoneInfo("Europe/Madrid")
    assert i18n.datetime_text(start, "en", madrid) == "Mon, Dec 22, 5:00\u202fPM"
    assert i18n.datetime_text(start, "es", madrid) == "lun, 22 dic, 17:00"
    assert "17:00" in i18n.datetime_text(start, "eu", madrid)
    assert "abe" in i18n.datetime_text(start, "eu", madrid)  # abendua: December
    assert i18n.time_text(start, "es", ZoneInfo("UTC")) == "16:00"


# -- the pages -------------------------------------------------------------------------------


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[TestClient]:
    service, clock = make_service(tmp_path, delay=0.0)
    play_moves(service, "masters-r1-b1", ["e4", "e5", "Nf3"])
    service.commit([ResultConfirmed("masters-r1-b2", "1-0", "flag-fall", clock.now())])
    c = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await c.start_server()
    try:
        yield c
    finally:
        await c.close()


def _lang(html: str) -> str:
    match = re.search(r'<html lang="([^"]+)"', html)
    assert match, html[:200]
    return match.group(1)


def _texts(html: str) -> dict[str, object]:
    match = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', html, re.S)
    assert match, "no i18n block"
    texts: dict[str, object] = json.loads(match.group(1))
    return texts


async def test_english_by_default(client: TestClient) -> None:
    home = await client.get("/")
    html = await home.text()
    assert _lang(html) == "en" and ">Standings</a>" in html and "rounds ·" in html
    assert "Accept-Language" in home.headers["Vary"]
    assert "Set-Cookie" not in home.headers
    assert "Mon, Dec 22, 5:00" in html  # round 1's start, in English
    assert _texts(html)["live"] == "live"


async def test_lang_in_the_link_translates_and_is_remembered(client: TestClient) -> None:
    home = await client.get("/?lang=es")
    html = await home.text()
    assert _lang(html) == "es"
    assert ">Clasificación</a>" in html and "rondas" in html and "Comienzo" in html
    assert "lun, 22 dic, 17:00" in html  # the schedule: Madrid time, Spanish words
    assert "por tiempo" in html  # board 2's result reason, translated at the page edge
    assert _texts(html)["reconnecting"] == "reconectando…"
    assert (_texts(html)["reasons"] or {})["time forfeit"] == "por tiempo"  # type: ignore[index]
    assert home.cookies["lang"].value == "es"
    # The cookie alone keeps the reader's language on the next page.
    game = await (await client.get("/game/masters-r1-b1")).text()
    assert _lang(game) == "es" and "Jugadas" in game and "Girar el tablero" in game
    # The switcher links each language from the page's own address.
    assert 'href="/game/masters-r1-b1?lang=eu"' in game
    # The JSON stays in English for programs.
    body = await (await client.get("/api/v1/games/masters-r1-b2")).json()
    assert body["result_reason"] == "time forfeit"


async def test_accept_language_picks_basque(client: TestClient) -> None:
    headers = {"Accept-Language": "eu-ES,eu;q=0.9,es;q=0.8"}
    html = await (await client.get("/", headers=headers)).text()
    assert _lang(html) == "eu" and ">Sailkapena</a>" in html and "txanda" in html
    standings = await (await client.get("/standings", headers=headers)).text()
    assert "Parekatzeak eta emaitzak" in standings and "Jokalaria" in standings
    round_page = await (await client.get("/round/1", headers=headers)).text()
    assert "1. txanda" in round_page and "1. mahaia" in round_page
    missing = await client.get("/game/nope", headers=headers)
    assert missing.status == 404 and "Itzuli txapelketara" in await missing.text()
    login = await (await client.get("/arbiter/login", headers=headers)).text()
    assert _lang(login) == "eu" and "Pasahitza" in login


async def test_each_language_is_cached_apart(client: TestClient) -> None:
    first = await (await client.get("/round/1?lang=es")).text()
    client.session.cookie_jar.clear()  # a reader who never chose: English
    english = await (await client.get("/round/1")).text()
    basque = await (await client.get("/round/1?lang=eu")).text()
    again = await (await client.get("/round/1?lang=es")).text()
    assert (_lang(first), _lang(english), _lang(basque), _lang(again)) == ("es", "en", "eu", "es")
    assert first == again and "ronda 1" in first and "round 1" in english


async def test_a_move_reaches_every_language(client: TestClient) -> None:
    before = {lang: await (await client.get(f"/?lang={lang}")).text() for lang in ("es", "eu")}
    assert client.server.app is not None
    service = client.server.app[SERVICE]
    game = service.book.get("masters-r1-b1")
    board = game.board_now()
    move = board.parse_san("Nc6")
    board.push(move)
    service.commit(
        [GameMove(game.id, 4, "Nc6", move.uci(), board.fen(), service.time_source.now(), 1.0)]
    )
    for lang, old in before.items():
        new = await (await client.get(f"/?lang={lang}")).text()
        assert new != old and "Nc6" in new and _lang(new) == lang


async def test_the_desk_speaks_the_arbiter_language(client: TestClient) -> None:
    page = await (await client.get("/arbiter/login?lang=es")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    wrong = await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": "x", "password": "y"},
        allow_redirects=True,
    )
    assert "Usuario o contraseña incorrectos." in await wrong.text()
    page = await (await client.get("/arbiter/login")).text()
    token = re.search(r'name="login_token" value="([^"]+)"', page)
    assert token is not None
    await client.post(
        "/arbiter/login",
        data={"login_token": token.group(1), "user": CREDENTIALS[0], "password": CREDENTIALS[1]},
        allow_redirects=False,
    )
    desk = await (await client.get("/arbiter")).text()
    assert _lang(desk) == "es" and "Avisos" in desk and "Tableros" in desk
    assert "Reglamento: byes, retiradas, ausencias, desempate" in desk
    assert _texts(desk)["acknowledge"] == "Enterado"
    alerts = await (await client.get("/api/v1/arbiter/alerts")).json()
    for alert in alerts:  # each language's title for the desk's script; `title` stays English
        assert set(alert["titles"]) == {"es", "eu"}
