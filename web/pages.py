"""Spectator pages, server-rendered from a state snapshot. Pure (state -> HTML).

Callers pass the *delayed* public state; these functions neither know nor check, which
keeps them the same for any snapshot. Autoescaping is on for every template.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, select_autoescape

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.export.pgn import game_pgn
from broadcast.games.book import GameBook
from broadcast.games.ids import slug
from broadcast.games.state import GameState
from broadcast.service.state import PublicState
from broadcast.tournament.state import TournamentState
from web import json_views
from web.board_svg import board_svg, piece_defs
from web.flags import is_code
from web.sections import section_by_name

TEMPLATES = Path(__file__).parent / "templates"

ENV = Environment(
    loader=FileSystemLoader(TEMPLATES),
    autoescape=select_autoescape(["html"], default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)

# How a result's reason reads on the pages (live.js has the same table).
REASON_TEXT = {
    "checkmate": "checkmate",
    "stalemate": "stalemate",
    "dead-position": "dead position",
    "repetition": "repetition",
    "75-moves": "75-move rule",
    "kings-signal": "signalled with the kings",
    "flag-fall": "time forfeit",
    "default-time": "default time",
    "agreement": "agreement",
    "resignation": "resignation",
    "arbiter": "arbiter's decision",
}


def reason_text(reason: str | None) -> str:
    """A result reason as words (unknown reasons as they are, hyphens as spaces)."""
    if not reason:
        return ""
    return REASON_TEXT.get(reason, reason.replace("-", " "))


ENV.filters["reason"] = reason_text


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


def delay_text(seconds: float) -> str:
    s = round(seconds)
    if s >= 60 and s % 60 == 0:
        return f"{s // 60} min"
    return f"{s} s"


def _common(config: EventConfig, delay: float, speed: float = 1.0) -> dict[str, Any]:
    return {
        "event": config,
        "defs": piece_defs(),
        "delay": delay,
        "delay_text": delay_text(delay),
        # A rehearsal or the demo runs event time faster: say so, clocks and times are sped up.
        "speed_text": None if speed == 1 else f"demo at {speed:g}x",
    }


def _rounds(public: PublicState, section: SectionConfig) -> list[dict[str, Any]]:
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
) -> str:
    event = json_views.event_json(config, public.tournament, live)
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
        **_common(config, delay, speed),
        sections=event["sections"],
        lives=lives,
        unpaired=[{"section": s, "round": n} for s, n in (unpaired or {}).items()],
    )


def round_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    number: int,
    delay: float,
    *,
    speed: float = 1.0,
) -> str:
    games = [
        _with_svg(g, public.book)
        for g in json_views.round_json(public.book, section.name, number)["games"]
    ]
    return ENV.get_template("round.html").render(
        **_common(config, delay, speed),
        section=section,
        section_slug=slug(section.name),
        number=number,
        games=games,
        rounds=_rounds(public, section),
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
    evaluating: bool = False,
) -> str:
    """The game viewer. `origin` (the configured public URL, or "") starts the link
    preview's absolute URLs; `public` gives the round selector its rounds; `evaluating`
    (this server runs an engine, `--eval`) adds the evaluation bar and line, hidden until
    live.js has an evaluation to show."""
    data = json_views.game_json(game)
    last = game.moves[-1].uci if game.moves else None
    section = section_by_name(config, game.key.section)
    tc = section.time_control if section is not None else None
    timed = tc is not None and not tc.untimed
    start_clock = {  # the clocks before the first move, for the viewer at the start position
        "white": tc.initial_seconds("white") if tc is not None and timed else "",
        "black": tc.initial_seconds("black") if tc is not None and timed else "",
    }
    return ENV.get_template("game.html").render(
        **_common(config, delay, speed),
        g=data,
        svg=board_svg(game.fen, last, flipped=flipped),
        flipped=flipped,
        start_clock=start_clock,
        section_slug=slug(game.key.section),
        # Results from the game only; `pairings` (delayed) gives a play-off's time control.
        pgn=game_pgn(game, config, pairings=pairings),
        rounds=_rounds(public, section) if public is not None and section is not None else [],
        og=_preview(config, data, origin),
        evaluating=evaluating,
    )


def _preview(config: EventConfig, data: dict[str, Any], origin: str) -> dict[str, str]:
    """What a chat or social site shows for a shared link (OpenGraph): the players and the
    result, the event and round, and a picture of the position."""
    result = data["result"] if data["result"] and data["result"] != "*" else ""
    title = _title_of(data) + (f", {result}" if result else "")
    moves = f", {(data['ply'] + 1) // 2} moves" if data["ply"] else ""
    description = (
        f"{config.name} · {data['section']} round {data['round']}, board {data['board']}{moves}"
    )
    return {
        "title": title,
        "description": description,
        "image": f"{origin}/api/v1/games/{data['id']}.svg",
        "url": f"{origin}/game/{data['id']}",
    }


def embed_game_page(
    config: EventConfig, public: PublicState, game_id: str, delay: float, *, speed: float = 1.0
) -> str:
    """One game, compact and live, for a frame on another site."""
    summary = json_views.game_summary(public.book.get(game_id))
    return ENV.get_template("embed_game.html").render(
        **_common(config, delay, speed), g=_with_svg(summary, public.book), title=_title_of(summary)
    )


def embed_round_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    number: int,
    delay: float,
    *,
    speed: float = 1.0,
) -> str:
    """A round's boards, compact and live, for a frame on another site."""
    games = [
        _with_svg(g, public.book)
        for g in json_views.round_json(public.book, section.name, number)["games"]
    ]
    return ENV.get_template("embed_round.html").render(
        **_common(config, delay, speed),
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
) -> str:
    rows = json_views.standings_json(config, public.tournament, section)
    tiebreaks = list(rows[0]["tiebreaks"]) if rows else []  # type: ignore[call-overload]
    return ENV.get_template("standings.html").render(
        **_common(config, delay, speed),
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


def error_page(config: EventConfig, status: int, message: str) -> str:
    return ENV.get_template("error.html").render(
        **_common(config, 0.0), status=status, message=message
    )


__all__ = [
    "ENV",
    "REASON_TEXT",
    "TEMPLATES",
    "delay_text",
    "embed_game_page",
    "embed_round_page",
    "error_page",
    "game_page",
    "home_page",
    "reason_text",
    "round_page",
    "standings_page",
    "used_text",
]
