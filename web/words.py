"""Words the pages show that are not written in a template: the domain's English words
(result reasons, systems, play-off kinds) and the texts the scripts build in the browser.

The JSON keeps the domain's words in English for programs (`result_reason: "time
forfeit"`); the pages translate them at the edge, here, with the catalogs of `web.i18n`.
Each word is marked with `N_` so that Babel's extraction finds it and the catalog test
(tests/web/test_i18n.py) fails while any language lacks it. Pure.
"""

from __future__ import annotations

from collections.abc import Callable

from broadcast.phrases import Phrase

__all__ = [
    "DOMAIN_WORDS",
    "N_",
    "REASON_WORDS",
    "SCRIPT_TEXTS",
    "said",
    "script_texts",
    "word",
]

Gettext = Callable[[str], str]


def N_(message: str) -> str:  # gettext's own name for "mark, translate later"
    """Marks `message` for extraction; it is translated where it is shown."""
    return message


# The English words of every result reason, as `broadcast.fide.results.REASON_TEXT`,
# `web.json_views.reason_text` and `web.pages.REASON_TEXT` write them.
REASON_WORDS = (
    N_("checkmate"),
    N_("stalemate"),
    N_("dead position"),
    N_("repetition"),
    N_("75-move rule"),
    N_("kings signal"),
    N_("signalled with the kings"),
    N_("time forfeit"),
    N_("flag fall, no mating material"),
    N_("default time"),
    N_("agreement"),
    N_("resignation"),
    N_("arbiter"),
    N_("arbiter's decision"),
    N_("forfeit"),
    N_("withdrawal"),
)

# Other English words of the domain that the pages show: systems, play-off kinds.
DOMAIN_WORDS = (
    N_("round-robin"),
    N_("double-round-robin"),
    N_("swiss"),
    N_("blitz"),
    N_("armageddon"),
    N_("Public stream to the mirrors"),  # a link the desk watches (broadcast.publish)
    N_("LiveChess API (live, no delay)"),  # another (web.livechess.server)
)


def said(text: str | Phrase | None, gettext: Gettext, english: str = "") -> str:
    """A text of the core in the reader's language: a phrase translated (its template is
    the msgid), else `english` (what a phrase-less alert or refusal says) or the text."""
    if isinstance(text, Phrase):
        return text.render(gettext)
    return text or english


def word(text: str, gettext: Gettext) -> str:
    """One of the domain's English words in the reader's language (other text as it is)."""
    return gettext(text) if text else text


# The texts live.js and desk.js build in the browser, by key. A `%(name)s` is filled in by
# the script. The page carries them translated (`script_texts`) in its JSON block.
SCRIPT_TEXTS = {
    "live": N_("live"),
    "live_delayed": N_("live (delayed %(seconds)s s)"),
    "reconnecting": N_("reconnecting…"),
    "removed": N_("this game was removed from the pairings"),
    "flag_fell": N_("flag fell"),
    "flag_white": N_("white's flag fell"),
    "flag_black": N_("black's flag fell"),
    "pending": N_("result pending: %(result)s"),
    "awaiting": N_(", awaiting the arbiter"),
    "not_started": N_("not started"),
    "start": N_("start"),
    "live_tail": N_(" · live"),
    "time_used": N_("time used"),
    "time_used_last": N_("time used for the last move"),
    "playoff_tie": N_("tie for first: a play-off decides"),
    # the desk
    "yes": N_("yes"),
    "no": N_("NO"),
    "no_since": N_("NO since "),
    "never": N_("never"),
    "ago": N_(" ago"),
    "acknowledge": N_("Acknowledge"),
    "confirm": N_("Confirm %(result)s"),
    "set_instead": N_("Set instead"),
    "another_result": N_("another result"),
    "choose": N_("choose…"),
    "reject": N_("Reject: the game goes on"),
    "the_game": N_("the game"),
    "no_alerts": N_("No open alerts."),
    "no_closed": N_("No closed alerts yet."),
    "sound_on": N_("sound on"),
    "sound_off": N_("sound off"),
    "alarm_on": N_("alarm on"),
    "alarm_off": N_("alarm off"),
    "mark_white": N_("Mark White present"),
    "mark_black": N_("Mark Black present"),
    "not_sent": N_("Not sent: the desk cannot reach the server. Try again."),
    # the desk's "Spare boards": the boards to set up, as arbiter.html writes them
    "spare_title": N_("Board %(board)s: %(white)s \u2013 %(black)s (%(game)s, after ply %(ply)s)"),
    "moved_here": N_("Moved here from board %(board)s."),
    "corrected_here": N_("Corrected by the arbiter: set up the corrected position."),
    "must_show": N_("Must show:"),
    "still_differ": N_("Squares that still differ:"),
    "board_matches": N_("The board matches."),
    "no_position": N_("Board %(board)s has shown no position yet."),
    "matched": N_("Matches: the game goes on on board %(board)s."),
}


def script_texts(gettext: Gettext) -> dict[str, object]:
    """The scripts' texts in one language, and the reason words (English -> translated)."""
    texts: dict[str, object] = {key: gettext(text) for key, text in SCRIPT_TEXTS.items()}
    texts["reasons"] = {text: gettext(text) for text in REASON_WORDS}
    return texts
