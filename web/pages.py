"""Spectator pages, server-rendered from a state snapshot. Pure (state -> HTML).

Callers pass the *delayed* public state; these functions neither know nor check, which
keeps them the same for any snapshot. Autoescaping is on for every template.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, pass_context, select_autoescape
from jinja2.runtime import Context

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.config.tables import tables_are_boards
from broadcast.export.pgn import game_pgn
from broadcast.fide.results import Reason
from broadcast.games.book import GameBook
from broadcast.games.game_state import GameState
from broadcast.games.ids import slug
from broadcast.service.event_state import PublicState
from broadcast.tournament.tournament_state import TournamentState
from web import json_views
from web.board_png import PNG_TYPE, png_available
from web.board_svg import board_svg, piece_defs
from web.flags import is_code
from web.i18n import DEFAULT, Gettext, datetime_text, gettext_of, languages, name_of, translations
from web.sections import section_by_name
from web.words import script_texts, word

TEMPLATES = Path(__file__).parent / "templates"

ENV = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"], default=True),
    trim_blocks=True,
    lstrip_blocks=True,
    extensions=["jinja2.ext.i18n"],
)


def _lang(context: Context) -> str:
    lang = context.get("lang")
    return lang if isinstance(lang, str) else DEFAULT


# `_()` and `ngettext()` in the templates translate into the language of the page being
# rendered (its `lang`), read from the render's context: one environment serves every
# language, from the answers' worker thread and the loop at once.
@pass_context
def _context_gettext(context: Context, message: str) -> str:
    return translations(_lang(context)).gettext(message)


@pass_context
def _context_ngettext(context: Context, singular: str, plural: str, n: int) -> str:
    return translations(_lang(context)).ngettext(singular, plural, n)


ENV.install_gettext_callables(  # type: ignore[attr-defined]
    _context_gettext, _context_ngettext, newstyle=True
)

# How a result's reason reads on the pages, by its code (the JSON carries the English
# words of `broadcast.fide.results.REASON_TEXT`; the `reason` filter translates either).
REASON_TEXT: dict[str, str] = {
    Reason.CHECKMATE: "checkmate",
    Reason.STALEMATE: "stalemate",
    Reason.DEAD_POSITION: "dead position",
    Reason.REPETITION: "repetition",
    Reason.SEVENTY_FIVE_MOVES: "75-move rule",
    Reason.KINGS_SIGNAL: "signalled with the kings",
    Reason.FLAG_FALL: "time forfeit",
    Reason.DEFAULT_TIME: "default time",
    Reason.AGREEMENT: "agreement",
    Reason.RESIGNATION: "resignation",
    Reason.ARBITER: "arbiter's decision",
}


def reason_text(reason: str | None, lang: str = DEFAULT) -> str:
    """A result reason as words in `lang` (a code or the JSON's English words; unknown
    reasons as they are, hyphens as spaces)."""
    if not reason:
        return ""
    return word(REASON_TEXT.get(reason, reason.replace("-", " ")), gettext_of(lang))


@pass_context
def _reason_filter(context: Context, reason: str | None) -> str:
    return reason_text(reason, _lang(context))


@pass_context
def _word_filter(context: Context, text: str | None) -> str:
    """A word the domain writes in English (a system, a play-off kind), in the page's language."""
    return word(text or "", gettext_of(_lang(context)))


@pass_context
def _when_filter(context: Context, iso: str) -> str:
    """A start time (ISO 8601) in the event's time zone, as the page's language writes it."""
    event = context.get("event")
    zone = event.zone if isinstance(event, EventConfig) else dt.UTC
    return datetime_text(dt.datetime.fromisoformat(iso), _lang(context), zone)


ENV.filters["reason"] = _reason_filter
ENV.filters["system"] = _word_filter
ENV.filters["playoff_kind"] = _word_filter
ENV.filters["word"] = _word_filter
ENV.filters["when"] = _when_filter


def used_text(seconds: float | None) -> str:
    """The time a move took, short: `7s`, `2:05`, `1:02:05` (live.js has the same)."""
    if seconds is None:
        return ""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}:{s % 60:02d}"
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


ENV.filters["used"] = used_text
ENV.filters["slugify"] = slug
ENV.tests["fedcode"] = is_code


def delay_text(seconds: float, lang: str = DEFAULT) -> str:
    """A broadcast delay, short: "15 min", "30 s" (the units as `lang` writes them)."""
    _ = gettext_of(lang)
    s = round(seconds)
    if s >= 60 and s % 60 == 0:
        return _("%(minutes)d min") % {"minutes": s // 60}
    return _("%(seconds)d s") % {"seconds": s}


def chrome(lang: str, here: str) -> dict[str, Any]:
    """What every page's frame needs for its language: `lang` (the `<html lang>` and the
    language `_()` translates into), the switcher's languages and the page's own address
    (`here`, which the switcher's links repeat with `lang=`), and the texts the scripts
    build in the browser."""
    return {
        "lang": lang,
        "here": here,
        "languages": [{"code": code, "name": name_of(code)} for code in languages()],
        "texts": script_texts(gettext_of(lang)),
    }


def page_frame(
    config: EventConfig, delay: float, speed: float = 1.0, lang: str = DEFAULT, here: str = "/"
) -> dict[str, Any]:
    """What every page's frame shows: the chrome, the event, the delay and the clock rate."""
    _ = gettext_of(lang)
    return {
        **chrome(lang, here),
        "event": config,
        "defs": piece_defs(),
        "delay": delay,
        "delay_text": delay_text(delay, lang),
        # A rehearsal or the demo runs event time faster: say so, clocks and times are sped up.
        "speed_text": None if speed == 1 else _("demo at %(speed)sx") % {"speed": f"{speed:g}"},
        # Several sections (or a first table past 1): a game's place is its hall table
        # ("Table 17"), one number across sections; else its board, which is its table.
        "by_table": not tables_are_boards(config),
    }


def round_choices(public: PublicState, section: SectionConfig) -> list[dict[str, Any]]:
    """The round selector's entries: every round of the section, paired or not yet."""
    paired = public.tournament.section(section.name).rounds
    return [{"number": n, "paired": n in paired} for n in range(1, section.rounds + 1)]


def _title_of(data: dict[str, Any]) -> str:
    """The players as "White - Black" (an en dash between them) for titles and previews."""
    white = data["white"]["name"] if data["white"] else "?"
    black = data["black"]["name"] if data["black"] else "?"
    return f"{white} \u2013 {black}"


def _with_svg(summary: dict[str, Any], book: GameBook) -> dict[str, Any]:
    """A mini-board's data: the summary, its board, and the result's reason (which the
    summary JSON does not carry)."""
    last = summary["last_move"]["uci"] if summary["last_move"] else None
    reason = summary.get("result_reason", book.games[summary["id"]].result_reason)
    return {**summary, "svg": board_svg(summary["fen"], last), "result_reason": reason}


def home_page(
    config: EventConfig,
    public: PublicState,
    live: dict[str, int | None],
    delay: float,
    *,
    speed: float = 1.0,
    unpaired: dict[str, int] | None = None,
    lang: str = DEFAULT,
) -> str:
    event = json_views.event_json(config, public.tournament, live, delay=delay)
    lives = [
        {
            "section": r["section"],
            "slug": slug(r["section"]),
            "round": r["round"],
            "games": [_with_svg(g, public.book) for g in r["games"]],
        }
        for r in json_views.live_json(public.book, config, live)
    ]
    return ENV.get_template("home.html").render(
        **page_frame(config, delay, speed, lang, "/"),
        sections=event["sections"],
        lives=lives,
        unpaired=[{"section": s, "round": n} for s, n in (unpaired or {}).items()],
    )


def round_games(
    config: EventConfig, public: PublicState, section: SectionConfig, number: int
) -> list[dict[str, Any]]:
    """A round's games as its pages show them: each with its mini-board picture."""
    return [
        _with_svg(g, public.book)
        for g in json_views.round_json(public.book, section.name, number, config)["games"]
    ]


def round_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    number: int,
    delay: float,
    *,
    speed: float = 1.0,
    lang: str = DEFAULT,
) -> str:
    games = round_games(config, public, section, number)
    return ENV.get_template("round.html").render(
        **page_frame(config, delay, speed, lang, f"/round/{number}?section={slug(section.name)}"),
        section=section,
        section_slug=slug(section.name),
        number=number,
        games=games,
        rounds=round_choices(public, section),
    )


def game_page(
    config: EventConfig,
    game: GameState,
    delay: float,
    *,
    flipped: bool,
    speed: float = 1.0,
    pairings: TournamentState | None = None,
    origin: str = "",
    public: PublicState | None = None,
    lang: str = DEFAULT,
    evaluating: bool = False,
    channel: str = "public",
) -> str:
    """The game viewer. `origin` (the configured public URL, or "") starts the link
    preview's absolute URLs; `public` gives the round selector its rounds; `evaluating`
    (this server runs an engine, `--eval`) adds the evaluation bar and line, hidden until
    live.js has an evaluation to show; `channel` "commentary" is the commentators' live
    copy at `/commentary/game/{id}` (live.js then follows `/commentary/ws`)."""
    data = json_views.game_json(game, config)
    last = game.moves[-1].uci if game.moves else None
    section = section_by_name(config, game.key.section)
    tc = section.time_control if section is not None else None
    timed = tc is not None and not tc.untimed
    start_clock = {  # the clocks before the first move, for the viewer at the start position
        "white": tc.initial_seconds("white") if tc is not None and timed else "",
        "black": tc.initial_seconds("black") if tc is not None and timed else "",
    }
    prefix = "/commentary" if channel == "commentary" else ""
    here = f"{prefix}/game/{data['id']}" + ("?flip=1" if flipped else "")
    return ENV.get_template("game.html").render(
        **page_frame(config, delay, speed, lang, here),
        g=data,
        svg=board_svg(game.fen, last, flipped=flipped),
        flipped=flipped,
        start_clock=start_clock,
        section_slug=slug(game.key.section),
        # Results from the game only; `pairings` (delayed) gives a play-off's time control.
        pgn=game_pgn(game, config, pairings=pairings),
        rounds=round_choices(public, section) if public is not None and section is not None else [],
        og=_preview(config, data, origin, gettext_of(lang)),
        evaluating=evaluating,
        channel=channel,
    )


def _preview(config: EventConfig, data: dict[str, Any], origin: str, _: Gettext) -> dict[str, str]:
    """What a chat or social site shows for a shared link (OpenGraph): the players and the
    result, the event and round, and a picture of the position."""
    result = data["result"] if data["result"] and data["result"] != "*" else ""
    title = _title_of(data) + (f", {result}" if result else "")
    if tables_are_boards(config):
        where = _("%(section)s round %(round)s, board %(board)s") % {
            "section": data["section"],
            "round": data["round"],
            "board": data["board"],
        }
    else:
        where = _("%(section)s round %(round)s, table %(table)s") % {
            "section": data["section"],
            "round": data["round"],
            "table": data["table"],
        }
    moves = ", " + _("%(moves)s moves") % {"moves": (data["ply"] + 1) // 2} if data["ply"] else ""
    description = f"{config.name} · {where}{moves}"
    return {
        "title": title,
        "description": description,
        # Chat apps show a PNG preview, many no SVG: the PNG where cairo is installed.
        "image": f"{origin}/api/v1/games/{data['id']}.{'png' if png_available() else 'svg'}",
        "image_type": PNG_TYPE if png_available() else "image/svg+xml",
        "url": f"{origin}/game/{data['id']}",
    }


def embed_game_page(
    config: EventConfig,
    public: PublicState,
    game_id: str,
    delay: float,
    *,
    speed: float = 1.0,
    lang: str = DEFAULT,
) -> str:
    """One game, compact and live, for a frame on another site."""
    summary = json_views.game_summary(public.book.get(game_id), config)
    return ENV.get_template("embed_game.html").render(
        **page_frame(config, delay, speed, lang, f"/embed/game/{game_id}"),
        g=_with_svg(summary, public.book),
        title=_title_of(summary),
    )


def embed_round_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    number: int,
    delay: float,
    *,
    speed: float = 1.0,
    lang: str = DEFAULT,
) -> str:
    """A round's boards, compact and live, for a frame on another site."""
    games = round_games(config, public, section, number)
    here = f"/embed/round/{number}?section={slug(section.name)}"
    return ENV.get_template("embed_round.html").render(
        **page_frame(config, delay, speed, lang, here),
        section=section,
        number=number,
        games=games,
    )


def standings_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    delay: float,
    *,
    speed: float = 1.0,
    lang: str = DEFAULT,
) -> str:
    rows = json_views.standings_json(config, public.tournament, section)
    tiebreaks = list(rows[0]["tiebreaks"]) if rows else []  # type: ignore[call-overload]
    return ENV.get_template("standings.html").render(
        **page_frame(config, delay, speed, lang, f"/standings?section={slug(section.name)}"),
        section=section,
        section_slug=slug(section.name),
        sections=[{"name": s.name, "slug": slug(s.name)} for s in config.sections],
        rows=rows,
        tiebreaks=tiebreaks,
        crosstable=json_views.crosstable_json(public.tournament, section),
        pairings=json_views.pairings_json(public.tournament, section),
        results=json_views.RESULT_TEXT,
        prizes=json_views.prizes_json(config, public.tournament, section),
        playoff=json_views.playoff_json(public.tournament, section),
    )


def error_page(
    config: EventConfig, status: int, message: str, *, lang: str = DEFAULT, here: str = "/"
) -> str:
    return ENV.get_template("error.html").render(
        **page_frame(config, 0.0, lang=lang, here=here), status=status, message=message
    )


__all__ = [
    "ENV",
    "REASON_TEXT",
    "TEMPLATES",
    "chrome",
    "delay_text",
    "embed_game_page",
    "embed_round_page",
    "error_page",
    "game_page",
    "home_page",
    "page_frame",
    "reason_text",
    "round_choices",
    "round_games",
    "round_page",
    "standings_page",
    "used_text",
]
