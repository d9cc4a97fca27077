"""Test helper: a played round of the team league (tests/data/teams-league.toml) and the TRF
our export writes of it, for the tests of importing a pairing program's team TRF.

    service, trf = played_round_trf(folder)      # round 1 played, team 3 one player short
    unknown_team(trf)                           # team 1 neither by name nor roster
"""

from __future__ import annotations

from pathlib import Path

from broadcast.export.trf import section_trf
from broadcast.games.ids import GameKey
from broadcast.service.event_service import EventService
from tests.support import acting
from tests.support.league_service import LEAGUE, compose, league_service, pair_teams

__all__ = ["played_round_trf", "unknown_team"]


def played_round_trf(folder: Path) -> tuple[EventService, str]:
    """Round 1 of the league played (team 3 one player short: an empty board 4), and the
    TRF our export writes of it."""
    folder.mkdir()
    service = league_service(folder)
    pair_teams(service)
    compose(service, {1: (1, 2, 3, 4), 2: (6, 7, 9, 10), 3: (11, 12, 13), 4: (16, 18, 19, 20)})
    pairings = service.tournament.section(LEAGUE).rounds[1].pairings
    for p, result in zip(
        (p for p in pairings if p.black is not None),
        ("1-0", "1/2-1/2", "0-1", "1-0", "0-1", "1-0", "1/2-1/2"),
        strict=True,
    ):
        acting.set_result(service, GameKey(LEAGUE, 1, p.board).id, result, reason="arbiter")
    return service, section_trf(service.tournament, service.config, LEAGUE)


def unknown_team(trf: str) -> str:
    """The TRF with team 1 renamed and its reserve (player 5) left out of its 013 record:
    neither its name nor its roster is the section's."""
    lines = []
    for line in trf.splitlines():
        if line.startswith("013") and "Arrasate" in line:
            line = line.replace("Arrasate Xake Taldea", "Mondragon Unknown  ").rstrip()
            line = line[: -len("    5")].rstrip()
        lines.append(line)
    return "\n".join(lines) + "\n"
