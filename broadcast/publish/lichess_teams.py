"""A team section in Lichess's broadcast team format.

A Lichess broadcast shows a team event as matches (its "team table") when the
broadcast tournament's `teamTable` setting is on, and it knows whose team a player is
from two places: the `WhiteTeam` and `BlackTeam` tags of the pushed PGN (our PGN writes
them, `broadcast.export.pgn_teams`), and the tournament's `teams` setting, one line per
player, "Team name; player", the player being a FIDE id or the name as the PGN spells
it. This module writes that setting, for the organizer to paste into the broadcast's
form (boardwire only pushes to rounds that exist: it does not set a tournament's
settings); the pushes carry the tags.

Lichess splits each line at its semicolon and expects two parts, so a semicolon or a
line break inside a name would break the line: they become a comma and a blank.
"""

from __future__ import annotations

from broadcast.config.model import SectionConfig

__all__ = ["lichess_teams_text"]


def _clean(text: str) -> str:
    flat = "".join(ch if ch.isprintable() else " " for ch in text).replace(";", ",")
    return " ".join(flat.split())


def lichess_teams_text(section: SectionConfig) -> str:
    """The `teams` setting of a team section: "Team; FIDE id" for a player with a FIDE
    id, else "Team; Name", every roster player once, teams in their number's order and
    players in board order. Empty for a section of individuals."""
    if not section.is_team:
        return ""
    players = {p.number: p for p in section.players}
    lines: list[str] = []
    for team in sorted(section.teams, key=lambda t: t.number):
        name = _clean(team.name)
        for start in team.roster:
            player = players.get(start)
            if player is None:
                continue  # a roster number without a player entry: the config check says so
            fide_id = player.fide_id.strip()
            who = fide_id if fide_id.isascii() and fide_id.isdigit() else _clean(player.name)
            if who:
                lines.append(f"{name}; {who}")
    return "\n".join(lines)
