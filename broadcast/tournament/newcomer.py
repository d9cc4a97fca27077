"""A newcomer's particulars (a late entry, a replacement) as the arbiter types them at
the desk or sends them to the API: checked like a config's player line, and turned into a
`PlayerEntry`, or refused with a message that says what to correct.

`newcomer_entry` is total: any mapping of any values either gives an entry or raises
`NewcomerError` (never anything else), because it reads what a client sends.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from broadcast.config.model import PlayerEntry
from broadcast.phrases import PhrasedError, say
from broadcast.text import clean_text
from clocks.errors import BoardwireError

__all__ = ["NEWCOMER_FIELDS", "NewcomerError", "newcomer_entry"]

NEWCOMER_FIELDS = ("name", "rating", "fide_id", "federation", "title", "sex", "birth")
_MAX_NAME = 200  # as a config's string values
_TITLES = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM")
_SEXES = ("M", "F", "W")
_BIRTH = re.compile(r"[0-9]{4}(/[0-9]{2}/[0-9]{2})?")  # a year, or a TRF date
_TRF_SEX = {"M": "m", "F": "w", "W": "w"}  # as a TRF player line writes it


class NewcomerError(PhrasedError, BoardwireError, ValueError):
    """A newcomer's particulars that cannot be registered as given."""


def _text(fields: Mapping[str, object], name: str, limit: int) -> str:
    value = fields.get(name)
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise NewcomerError(say("%(field)s must be text", field=name))
    text = clean_text(str(value))
    if len(text) > limit:
        raise NewcomerError(
            say(
                "%(field)s is %(length)s characters long: at most %(limit)s",
                field=name,
                length=len(text),
                limit=limit,
            )
        )
    return text


def newcomer_entry(number: int, fields: Mapping[str, object]) -> PlayerEntry:
    """The player with starting number `number` and the particulars in `fields` (`name`
    required; `rating`, `fide_id`, `federation`, `title`, `sex`, `birth` optional, as
    text or numbers); NewcomerError saying what is wrong otherwise."""
    name = _text(fields, "name", _MAX_NAME)
    if not name:
        raise NewcomerError(say('the newcomer needs a name, e.g. "Surname, Given"'))
    rating_value = fields.get("rating")
    rating = 0
    if isinstance(rating_value, str) and rating_value.strip():
        text = rating_value.strip()
        if not (text.isascii() and text.isdigit() and len(text) <= 4):
            raise NewcomerError(
                say(
                    "rating %(rating)s is not a rating: a number such as 1850",
                    rating=repr(text[:20]),
                )
            )
        rating = int(text)
    elif isinstance(rating_value, int) and not isinstance(rating_value, bool):
        rating = rating_value
    elif rating_value not in (None, ""):
        raise NewcomerError(say("rating must be a whole number such as 1850 (0 if unrated)"))
    if not 0 <= rating <= 4000:
        raise NewcomerError(
            say("rating %(rating)s is not valid: 0 (unrated) to 4000", rating=rating)
        )
    fide_id = _text(fields, "fide_id", 12)
    if fide_id and not (fide_id.isascii() and fide_id.isdigit()):
        raise NewcomerError(
            say("FIDE id %(fide_id)s is not a number, e.g. 2200140", fide_id=repr(fide_id))
        )
    federation = _text(fields, "federation", 3).upper()
    if federation and not (federation.isascii() and federation.isalpha()):
        raise NewcomerError(
            say(
                "federation %(federation)s: give FIDE's three letters, e.g. ESP",
                federation=repr(federation),
            )
        )
    title = _text(fields, "title", 3).upper()
    if title and title not in _TITLES:
        raise NewcomerError(
            say(
                "title %(title)s: one of %(titles)s, or none",
                title=repr(title),
                titles=", ".join(_TITLES),
            )
        )
    sex = _text(fields, "sex", 1).upper()
    if sex and sex not in _SEXES:
        raise NewcomerError(say("sex %(sex)s: M, or F (W), or leave it empty", sex=repr(sex)))
    sex = _TRF_SEX.get(sex, "")
    birth = _text(fields, "birth", 10)
    if birth and not _BIRTH.fullmatch(birth):
        raise NewcomerError(
            say("birth %(birth)s: give the year of birth, e.g. 1998", birth=repr(birth))
        )
    return PlayerEntry(number, name, rating, fide_id, federation, title, sex, birth)
