"""Texts the core says to an arbiter, in any language: an English template plus its values.

The core speaks English (logs, the JSON API, the journal), but the desk speaks the
arbiter's language. So a text an arbiter must act on (an alert raised by the rules, why
it closed, why an action was refused) is said as a `Phrase`: the English template, with
`%(name)s` placeholders, and the values to put in them. `str(phrase)` is the English text;
the web renders it with a gettext of the arbiter's language (Babel: the msgid is the
English template), and nothing in the core knows a language.

    refused = say("no game %(game)s", game=game_id)
    str(refused)                    -> "no game open-r1-b3"
    refused.render(es.gettext)      -> "no existe la partida open-r1-b3"

A value may itself be a phrase (a colour, a reason: translated too). Rendering is total:
a translation that does not fit its values falls back to the English template, and that
one to the template and its values side by side; it never raises.

Adding a text (docs/web.md, "Texts from the core"): write `say("...", name=value)` with a
string literal as the template (Babel finds it by the name `say`), run `make catalogs`,
and translate the new entries in `web/locale/{es,eu}/LC_MESSAGES/messages.po`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from clocks.errors import BoardwireError

__all__ = [
    "Gettext",
    "Phrase",
    "PhrasedError",
    "Value",
    "and_list",
    "colour_word",
    "english",
    "phrase_of",
    "say",
]

Gettext = Callable[[str], str]


def _same(message: str) -> str:
    return message


@dataclass(frozen=True, slots=True)
class Phrase:
    """A text as its English template (`%(name)s` placeholders; the catalogs' msgid) and
    the values that fill it, in the order given."""

    template: str
    values: tuple[tuple[str, Value], ...] = ()

    def render(self, gettext: Gettext = _same) -> str:
        """The text in the language of `gettext` (English by default). Never raises."""
        mapping = {name: _shown(value, gettext) for name, value in self.values}
        try:
            translated = gettext(self.template)
        except Exception:  # a broken catalog is no reason to lose the text
            translated = self.template
        for template in (translated, self.template):
            try:
                return str(template) % mapping if mapping or "%" in template else str(template)
            except (KeyError, ValueError, TypeError):
                continue
        listed = ", ".join(f"{name}={value}" for name, value in mapping.items())
        return f"{self.template} ({listed})" if listed else self.template

    def __str__(self) -> str:
        return self.render()

    @property
    def mapping(self) -> Mapping[str, Value]:
        return dict(self.values)


Value = str | int | float | Phrase


def _shown(value: object, gettext: Gettext) -> object:
    """A value as it goes into a template: a phrase in the same language, a number as a
    number (for `%(n)d`), anything else as text."""
    if isinstance(value, Phrase):
        return value.render(gettext)
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int | float):
        return value
    return str(value)


def say(template: str, **values: Value) -> Phrase:
    """The phrase `template % values` (the template a literal: Babel extracts it)."""
    return Phrase(template, tuple(values.items()))


def english(text: str | Phrase) -> str:
    """The English text of a phrase (a plain string as it is)."""
    return text if isinstance(text, str) else text.render()


class PhrasedError(BoardwireError):
    """An error whose message may be said as a phrase: `str()` is the English text and
    `phrase` the phrase (None when said as plain English), for the desk to translate."""

    def __init__(self, why: str | Phrase = "", *args: object) -> None:
        self.phrase = why if isinstance(why, Phrase) else None
        super().__init__(english(why), *args)


def phrase_of(error: BaseException) -> str | Phrase:
    """What an error says: its phrase when it was said as one, else its English text (so a
    refusal passed on keeps its translation)."""
    phrase = getattr(error, "phrase", None)
    return phrase if isinstance(phrase, Phrase) else str(error)


def colour_word(colour: str) -> Phrase:
    """ "white" or "black" as a word of a sentence, in the reader's language."""
    if colour == "white":
        return say("white")
    if colour == "black":
        return say("black")
    return Phrase(colour)


def and_list(parts: list[Value] | tuple[Value, ...]) -> Value:
    """ "a", "a and b", "a, b and c": the parts as one value of a sentence."""
    if not parts:
        return ""
    if len(parts) == 1:
        return parts[0]
    # the first ones joined by commas: no words, nothing to translate
    first = parts[:-1]
    head = (
        first[0]
        if len(first) == 1
        else Phrase(
            ", ".join(f"%(p{i})s" for i in range(len(first))),
            tuple((f"p{i}", p) for i, p in enumerate(first)),
        )
    )
    return say("%(first)s and %(last)s", first=head, last=parts[-1])
