"""The printed sheets as HTML (templates `print_*.html`, stylesheet `print.css`). Pure.

Each function takes the tournament state the route chose (`Frame` says whose: the
public's delayed view or the arbiter's live one, and prints it in the footer) and the
reader's language, and returns the page.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Literal

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.games.ids import slug
from broadcast.tournament.tournament_state import TournamentState
from web import teams_json
from web.i18n import DEFAULT, datetime_text, gettext_of
from web.pages import ENV, chrome, delay_text
from web.print.sheets import (
    RoundSheet,
    crosstable_sheet,
    points_text,
    progress,
    standings_rows,
)

__all__ = [
    "ROUND_SHEETS",
    "Frame",
    "RoundKind",
    "board_prizes_html",
    "crosstable_html",
    "index_html",
    "round_html",
    "standings_html",
]

RoundKind = Literal["pairings", "names", "results"]
ROUND_SHEETS: tuple[RoundKind, ...] = ("pairings", "names", "results")


# Up to this many opponents (a round robin) or rounds (a Swiss) fit an A4 page upright.
WIDE_GRID = 16
WIDE_ROUNDS = 7


def _tiebreak(value: float) -> str:
    return f"{value:g}"


ENV.filters["pts"] = points_text
ENV.filters["tiebreak"] = _tiebreak


@dataclass(frozen=True, slots=True)
class Frame:
    """Whose sheet it is: the public's (`/print`, the delayed state, `delay` seconds
    behind) or the arbiter's (`/arbiter/print`, live, `printed` at that moment)."""

    prefix: str
    live: bool
    delay: float = 0.0
    printed: dt.datetime | None = None


def _common(
    config: EventConfig,
    section: SectionConfig,
    frame: Frame,
    lang: str,
    here: str,
    back: str,
) -> dict[str, Any]:
    _ = gettext_of(lang)
    printed = datetime_text(frame.printed, lang, config.zone) if frame.printed else ""
    return {
        **chrome(lang, here),
        "event": config,
        "section": section,
        "section_slug": slug(section.name),
        "multi": len(config.sections) > 1,
        "frame": {
            "prefix": frame.prefix,
            "live": frame.live,
            "delay": frame.delay,
            "delay_text": delay_text(frame.delay, lang),
            "printed": printed,
            "back": "/arbiter" if frame.live else back,
            "back_text": _("Back to the desk") if frame.live else _("Back to the event"),
        },
    }


def round_html(
    kind: RoundKind,
    config: EventConfig,
    section: SectionConfig,
    sheet: RoundSheet,
    frame: Frame,
    lang: str = DEFAULT,
) -> str:
    """A round's sheet: `pairings` by table, `names` (the pairings by name), `results`."""
    number = sheet.round
    here = f"{frame.prefix}/round/{number}/{kind}?section={slug(section.name)}"
    when = datetime_text(sheet.start, lang, config.zone) if sheet.start else ""
    missing = sum(1 for g in sheet.games if not g.result)
    return ENV.get_template(f"print_{kind}.html").render(
        **_common(
            config, section, frame, lang, here, f"/round/{number}?section={slug(section.name)}"
        ),
        sheet=sheet,
        when=when,
        missing=missing,
    )


def standings_html(
    config: EventConfig,
    tournament: TournamentState,
    section: SectionConfig,
    frame: Frame,
    lang: str = DEFAULT,
) -> str:
    """The section's standings (as the public standings page ranks them)."""
    rows = standings_rows(config, tournament, section)
    tiebreaks = list(rows[0]["tiebreaks"]) if rows else []  # type: ignore[call-overload]
    here = f"{frame.prefix}/standings?section={slug(section.name)}"
    back = f"/standings?section={slug(section.name)}"
    return ENV.get_template("print_standings.html").render(
        **_common(config, section, frame, lang, here, back),
        rows=rows,
        tiebreaks=tiebreaks,
        progress=progress(tournament, section),
    )


def crosstable_html(
    config: EventConfig,
    tournament: TournamentState,
    section: SectionConfig,
    frame: Frame,
    lang: str = DEFAULT,
) -> str:
    """The section's crosstable."""
    _ = gettext_of(lang)
    cross = crosstable_sheet(
        config, tournament, section, bye=lambda points: _("bye %(points)s") % {"points": points}
    )
    here = f"{frame.prefix}/crosstable?section={slug(section.name)}"
    back = f"/standings?section={slug(section.name)}"
    return ENV.get_template("print_crosstable.html").render(
        **_common(config, section, frame, lang, here, back),
        cross=cross,
        # Across the page (A4 landscape) when the columns would not fit down it.
        wide=len(cross.columns) > (WIDE_GRID if cross.grid else WIDE_ROUNDS),
        progress=progress(tournament, section),
    )


def board_prizes_html(
    config: EventConfig,
    tournament: TournamentState,
    section: SectionConfig,
    frame: Frame,
    lang: str = DEFAULT,
) -> str:
    """A team section's board prizes (as the team standings page shows them)."""
    here = f"{frame.prefix}/board-prizes?section={slug(section.name)}"
    back = f"/teams?section={slug(section.name)}"
    return ENV.get_template("print_board_prizes.html").render(
        **_common(config, section, frame, lang, here, back),
        prizes=teams_json.board_prizes_json(tournament, section),
    )


def index_html(
    config: EventConfig,
    tournament: TournamentState,
    section: SectionConfig,
    frame: Frame,
    lang: str = DEFAULT,
) -> str:
    """The section's sheets, to choose one (a screen page, not a sheet)."""
    here = f"{frame.prefix}?section={slug(section.name)}"
    state = tournament.section(section.name)
    rounds = sorted(n for n in state.rounds if n <= section.rounds)
    return ENV.get_template("print_index.html").render(
        **_common(config, section, frame, lang, here, "/"),
        rounds=rounds,
        sections=[{"name": s.name, "slug": slug(s.name)} for s in config.sections],
    )
