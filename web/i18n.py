"""The pages' languages: gettext catalogs, which language a reader gets, and dates in it.

A language is one catalog file, `web/locale/<lang>/LC_MESSAGES/messages.po` (docs/web.md
says how to add one): every folder there is a language the pages offer, English (the
language of the messages themselves) always. The `.po` files are compiled in memory with
Babel when this module is first used, so a checkout needs no build step and no `.mo` file
can go stale beside its `.po`.

The reader's language: `?lang=` (the switcher's links, remembered in a cookie), else the
cookie, else the best match of the browser's `Accept-Language` (Babel's
`negotiate_locale`), else English. Dates and times are the event's (its time zone),
written as the reader's locale writes them.
"""

from __future__ import annotations

import datetime as dt
import io
from collections.abc import Callable
from functools import cache
from pathlib import Path

from babel import Locale
from babel.core import negotiate_locale
from babel.dates import format_date, format_datetime, format_time
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import NullTranslations, Translations

__all__ = [
    "COOKIE",
    "DEFAULT",
    "LOCALES",
    "Gettext",
    "choose",
    "date_text",
    "datetime_text",
    "gettext_of",
    "languages",
    "name_of",
    "parse_accept_language",
    "time_text",
    "translations",
]

LOCALES = Path(__file__).parent / "locale"
DEFAULT = "en"
COOKIE = "lang"  # the switcher's choice, remembered for a year

Gettext = Callable[[str], str]


@cache
def languages() -> tuple[str, ...]:
    """The languages the pages offer: English, then every catalog in `web/locale/`."""
    found = sorted(p.parent.parent.name for p in LOCALES.glob("*/LC_MESSAGES/messages.po"))
    return (DEFAULT, *(lang for lang in found if lang != DEFAULT))


@cache
def translations(lang: str) -> NullTranslations:
    """The compiled catalog of `lang` (English and unknown languages: the messages as
    written). Fuzzy entries are left out, as gettext does: a guess is not a translation."""
    po = LOCALES / lang / "LC_MESSAGES" / "messages.po"
    if lang == DEFAULT or lang not in languages():
        return NullTranslations()
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang)
    mo = io.BytesIO()
    write_mo(mo, catalog, use_fuzzy=False)
    mo.seek(0)
    return Translations(mo, domain="messages")


def gettext_of(lang: str) -> Gettext:
    """`gettext` in `lang`: a message's translation, or the message itself."""
    return translations(lang).gettext


@cache
def name_of(lang: str) -> str:
    """A language's own name for itself, for the switcher ("English", "español", "euskara")."""
    return Locale.parse(lang).get_display_name(lang) or lang


def parse_accept_language(header: str) -> list[str]:
    """The languages of an `Accept-Language` header, most wanted first (q=0 dropped)."""
    wanted: list[tuple[float, int, str]] = []
    for i, part in enumerate(header.split(",")[:32]):  # a header is the client's: bounded
        tag, _, params = part.strip().partition(";")
        tag = tag.strip()
        if not tag or tag == "*" or len(tag) > 35:
            continue
        q = 1.0
        for param in params.split(";"):
            key, _, value = param.strip().partition("=")
            if key.strip() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if q > 0:
            wanted.append((-q, i, tag.replace("_", "-")))
    return [tag for _, _, tag in sorted(wanted)]


def choose(query: str | None, cookie: str | None, accept_language: str | None) -> str:
    """The reader's language: the link's `?lang=`, the remembered choice, the browser's
    preference, English; a language we have no catalog for is passed over."""
    offered = languages()
    for asked in (query, cookie):
        if asked in offered:
            return asked
    if accept_language:
        found = negotiate_locale(parse_accept_language(accept_language), offered, sep="-")
        if found is not None:
            return found
    return DEFAULT


@cache
def _babel_locale(lang: str) -> Locale:
    return Locale.parse(lang)


def datetime_text(when: dt.datetime, lang: str, zone: dt.tzinfo) -> str:
    """A date and time in the event's zone, as `lang` writes them ("lun, 22 dic, 17:00")."""
    locale = _babel_locale(lang)
    return (
        f"{date_text(when, lang, zone)}, {format_time(when, 'short', tzinfo=zone, locale=locale)}"
    )


def date_text(when: dt.datetime, lang: str, zone: dt.tzinfo) -> str:
    """A date in the event's zone, with its weekday and without the year (an event's
    schedule is a few days), as `lang` writes it."""
    local = when.astimezone(zone)
    pattern = _babel_locale(lang).datetime_skeletons.get("MMMEd")
    if pattern is None:
        return format_date(local.date(), "medium", locale=_babel_locale(lang))
    return format_datetime(local, pattern.pattern, tzinfo=zone, locale=_babel_locale(lang))


def time_text(when: dt.datetime, lang: str, zone: dt.tzinfo) -> str:
    """A time of day in the event's zone ("17:00"; English "5:00 PM")."""
    return format_time(when, "short", tzinfo=zone, locale=_babel_locale(lang))
