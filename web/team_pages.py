"""A team section's pages: the round by match, a match with its boards side by side, the
team standings and the team crosstable. Pure (state -> HTML), like `web.pages`, whose
environment, frame and mini-boards they reuse; the delayed public state is passed in.
"""

from __future__ import annotations

from typing import Any

from broadcast.config.model import EventConfig, SectionConfig
from broadcast.games.ids import slug
from broadcast.service.event_state import PublicState
from web import teams_json
from web.i18n import DEFAULT
from web.pages import ENV, page_frame, round_choices, round_games


def _points_filter(points: float | None) -> str:
    return "" if points is None else teams_json.points_text(points)


ENV.filters["points"] = _points_filter

__all__ = [
    "match_page",
    "team_crosstable_page",
    "team_round_page",
    "team_standings_page",
]


def _frame(
    config: EventConfig, section: SectionConfig, path: str, delay: float, speed: float, lang: str
) -> dict[str, Any]:
    """A team section's page frame at `path` (its address without the section)."""
    here = f"{path}?section={slug(section.name)}"
    return {
        **page_frame(config, delay, speed, lang, here),
        # A team round's boards are named by match and board, not by hall table.
        "by_table": False,
        "section": section,
        "section_slug": slug(section.name),
    }


def _with_games(
    config: EventConfig, public: PublicState, section: SectionConfig, number: int
) -> list[dict[str, Any]]:
    """The round's matches, each board with its game's mini-board data (when it has a
    game: an empty chair has none)."""
    games = {g["id"]: g for g in round_games(config, public, section, number)}
    matches = teams_json.matches_json(public.tournament, section, public.book, number)
    for match in matches:
        for board in match["boards"]:
            game = games.get(board["game"] or "")
            if game is not None:
                # The reason's code (the `reason` filter words it), as the team pages did.
                game = {**game, "result_reason": public.book.games[game["id"]].result_reason}
            board["g"] = game
    return matches


def team_round_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    number: int,
    delay: float,
    *,
    speed: float = 1.0,
    lang: str = DEFAULT,
) -> str:
    """A team round by match: the teams and the score, the boards under it."""
    return ENV.get_template("team_round.html").render(
        **_frame(config, section, f"/round/{number}", delay, speed, lang),
        number=number,
        matches=_with_games(config, public, section, number),
        rounds=round_choices(public, section),
    )


def match_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    number: int,
    match: int,
    delay: float,
    *,
    speed: float = 1.0,
    lang: str = DEFAULT,
) -> str | None:
    """One match with its boards side by side; None when the round has no such match."""
    found = [m for m in _with_games(config, public, section, number) if m["match"] == match]
    if not found:
        return None
    return ENV.get_template("team_match.html").render(
        **_frame(config, section, f"/match/{number}/{match}", delay, speed, lang),
        number=number,
        m=found[0],
    )


def team_standings_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    delay: float,
    *,
    speed: float = 1.0,
    lang: str = DEFAULT,
) -> str:
    """The team standings with their tie-breaks, the board prizes, and the teams with
    their rosters."""
    return ENV.get_template("team_standings.html").render(
        **_frame(config, section, "/teams", delay, speed, lang),
        rows=teams_json.team_standings_json(public.tournament, section),
        prizes=teams_json.board_prizes_json(public.tournament, section),
        teams=teams_json.teams_json(config, section),
    )


def team_crosstable_page(
    config: EventConfig,
    public: PublicState,
    section: SectionConfig,
    delay: float,
    *,
    speed: float = 1.0,
    lang: str = DEFAULT,
) -> str:
    """The team crosstable: each team's match results against each other team."""
    return ENV.get_template("team_crosstable.html").render(
        **_frame(config, section, "/team-crosstable", delay, speed, lang),
        teams={t.number: t for t in section.teams},
        matches=teams_json.matches_json(public.tournament, section, public.book),
    )
