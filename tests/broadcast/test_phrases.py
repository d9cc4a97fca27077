"""Texts the core says to an arbiter (broadcast/phrases.py) in the desk's languages.

Every template the core says with `say("...")` (alerts of the rules, why they closed, the
door's refusals) has its Spanish and Basque entry with the same placeholders; rendering a
phrase never raises, whatever its values or a catalog's translation; the English text is
kept for the logs, the API and the journal (a journaled alert reads back equal)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest
from aiohttp.test_utils import TestClient, TestServer
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from hypothesis import given
from hypothesis import strategies as st

from broadcast.arbiter.alerts import Alert, AlertResolved
from broadcast.config.loader import load_event
from broadcast.journal.codec import decode, encode
from broadcast.journal.kinds import register_all
from broadcast.journal.store import Journal
from broadcast.phrases import Phrase, and_list, colour_word, say
from broadcast.service.committer import ActionError
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.service_feed import PAMPLONA
from tests.support.web_app import CREDENTIALS
from web.app import build_app
from web.i18n import gettext_of
from web.words import said

PLACEHOLDER = re.compile(r"%\(\w+\)[sd]")


def _core_templates() -> set[str]:
    """Every template `say()` is given as a literal in broadcast/ (as Babel extracts it)."""
    with (ROOT / "babel.cfg").open(encoding="utf-8") as f:
        method_map, options_map = parse_mapping_cfg(f)
    found = set()
    for _, _, message, _, _ in extract_from_dir(
        str(ROOT / "broadcast"),
        [("**.py", "python")],
        options_map,
        keywords={"say": None},
    ):
        found.add(message)
    assert method_map  # the project's mapping names broadcast/ too (checked below)
    return found


TEMPLATES = _core_templates()


def test_the_core_says_its_texts_as_templates() -> None:
    assert len(TEMPLATES) > 60  # alerts, closings, refusals
    assert "[python: broadcast/**.py]" in (ROOT / "babel.cfg").read_text(encoding="utf-8")


@pytest.mark.parametrize("lang", ["es", "eu"])
def test_every_template_has_its_translation_with_the_same_placeholders(lang: str) -> None:
    path = ROOT / "web" / "locale" / lang / "LC_MESSAGES" / "messages.po"
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    entries = {m.id: m.string for m in catalog if isinstance(m.id, str) and m.id}
    missing = sorted(t for t in TEMPLATES if not entries.get(t))
    assert missing == [], f"{lang}: untranslated core texts (make catalogs, then translate)"
    wrong = sorted(
        t
        for t in TEMPLATES
        if sorted(PLACEHOLDER.findall(t)) != sorted(PLACEHOLDER.findall(str(entries[t])))
    )
    assert wrong == [], f"{lang}: translations whose placeholders differ"


def test_a_phrase_is_english_by_default_and_translated_on_demand() -> None:
    who = and_list(
        [say("%(colour)s (%(name)s)", colour=colour_word(c), name=n) for c, n in [("white", "A")]]
    )
    text = say("the game moved from board %(old)s to board %(new)s", old=2, new=7)
    assert str(text) == "the game moved from board 2 to board 7"
    assert text.render(gettext_of("es")) == "la partida pasó del tablero 2 al tablero 7"
    assert str(who) == "white (A)"
    assert say("%(colour)s (%(name)s)", colour=colour_word("black"), name="B").render(
        gettext_of("eu")
    ) == ("beltzak (B)")
    assert str(and_list(["a", "b", "c"])) == "a, b and c"


def test_a_refusal_keeps_its_english_and_its_phrase() -> None:
    error = ActionError(say("no alert %(alert)s", alert="'x'"))
    assert str(error) == "no alert 'x'"
    assert said(error.phrase, gettext_of("es"), str(error)) == "no hay ningún aviso 'x'"
    plain = ActionError("no section 'Open'")
    assert plain.phrase is None
    assert said(plain.phrase, gettext_of("es"), str(plain)) == "no section 'Open'"


def test_an_alert_and_its_closing_read_back_from_the_journal_with_their_phrase() -> None:
    register_all()
    phrase = say(
        "%(who)s x", who=say("%(colour)s (%(name)s)", colour=colour_word("white"), name="N")
    )
    alert = Alert("a", "late", "warning", "S", 1, 2, "g", ("N",), str(phrase), 5.0, phrase=phrase)
    closed = AlertResolved("a", 6.0, "bye granted", say("bye granted"))
    for event in (alert, closed):
        kind, text = encode(event)
        assert decode(kind, text) == event


VALUES = st.recursive(
    st.one_of(st.text(max_size=20), st.integers(), st.floats(allow_nan=True)),
    lambda inner: st.builds(
        Phrase,
        st.text(max_size=30),
        st.lists(st.tuples(st.text(max_size=8), inner), max_size=3).map(tuple),
    ),
    max_leaves=6,
)


@given(
    template=st.one_of(st.sampled_from(sorted(TEMPLATES)), st.text(max_size=60)),
    values=st.dictionaries(
        st.one_of(st.sampled_from(["who", "name", "round", "s", "result"]), st.text(max_size=8)),
        VALUES,
        max_size=5,
    ),
    lang=st.sampled_from(["en", "es", "eu"]),
)
def test_rendering_never_raises(template: str, values: dict[str, object], lang: str) -> None:
    phrase = Phrase(template, tuple(values.items()))  # type: ignore[arg-type]
    assert isinstance(phrase.render(gettext_of(lang)), str)
    assert isinstance(str(phrase), str)


@given(template=st.sampled_from(sorted(TEMPLATES)), lang=st.sampled_from(["es", "eu"]))
def test_every_template_renders_in_every_language_with_its_values(template: str, lang: str) -> None:
    names = {m[2:-2] for m in PLACEHOLDER.findall(template)}
    phrase = say(template, **{n: f"<{n}>" for n in names})
    text = phrase.render(gettext_of(lang))
    assert all(f"<{n}>" in text for n in names)  # nothing lost in translation


async def test_a_spanish_desk_shows_board_and_undo_refusals_in_spanish(tmp_path: Path) -> None:
    """Refusals of the board and undo actions, as the desk's flash says them (`?e=`),
    on a desk in Spanish: translated, values in place."""
    service = EventService(
        load_event(PAMPLONA),
        Journal(tmp_path / "j.sqlite"),
        time_source=ManualTime(1.8e9),
        live_round=1,
        delay=0,
    )
    service.load()
    result = acting.set_result(service, "masters-r1-b1", "1-0", "arbiter:test")
    undone = acting.undo(service, result, "arbiter:test")
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        page = await (await client.get("/arbiter/login?lang=es")).text()
        token = re.search(r'name="login_token" value="([^"]+)"', page)
        assert token is not None
        await client.post(
            "/arbiter/login",
            data={
                "login_token": token.group(1),
                "user": CREDENTIALS[0],
                "password": CREDENTIALS[1],
            },
            allow_redirects=False,
        )
        desk = await (await client.get("/arbiter?lang=es")).text()
        csrf = re.search(r'name="csrf" value="([^"]+)"', desk)
        assert csrf is not None

        async def refusal(path: str, **fields: str) -> str:
            response = await client.post(
                f"/arbiter/act/{path}",
                data={**fields, "csrf": csrf.group(1)},
                allow_redirects=False,
            )
            location = response.headers["Location"]
            assert location.startswith("/arbiter?e="), location
            return unquote(location[len("/arbiter?e=") :])

        assert "no hay ningún tablero 9 en la sala (tableros de la sala: 1, 2" in await refusal(
            "replace", game="masters-r1-b1", spare="9"
        )
        assert f"fue deshecha por la acción {undone.seq}" in await refusal(
            "undo", action=str(result.seq)
        )
        assert await refusal("undo", action="x") == "No hecho: acción debe ser un número"
    finally:
        await client.close()
