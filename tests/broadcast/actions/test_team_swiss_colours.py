"""The team Swiss's colour preference variant chosen in the config (`[section.teams]`
`swiss_colours`, C.04.6 1.7) reaches the pairing: after the same round 1 of
tests/data/teams-swiss.toml, variant A and variant B pair round 2 differently (issue 33)."""

from __future__ import annotations

from pathlib import Path

from broadcast.actions import ComposeTeamRound, PairTeamRound
from broadcast.actions.team_swiss import swiss_rules
from broadcast.config import load_event
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

SECTION = "Swiss"
# Round 1's boards 1..6 (matches 1-4, 5-2, 3-6 of two boards each).
ROUND_1 = ("0-1", "1/2-1/2", "0-1", "1/2-1/2", "1-0", "0-1")


def _round_2(folder: Path, variant: str) -> tuple[tuple[int, int | None], ...]:
    folder.mkdir()
    text = (ROOT / "tests" / "data" / "teams-swiss.toml").read_text(encoding="utf-8")
    path = folder / "event.toml"
    path.write_text(
        text.replace("[section.teams]\n", f'[section.teams]\nswiss_colours = "{variant}"\n', 1),
        encoding="utf-8",
    )
    config = load_event(path)
    assert config.sections[0].team_rules is not None
    assert config.sections[0].team_rules.swiss_colours == variant
    assert swiss_rules(config.sections[0]).colours == variant
    start = config.sections[0].schedule[0].start.timestamp()
    service = EventService(
        config, Journal(folder / "j.sqlite"), time_source=ManualTime(start + 60), delay=0
    )
    service.load()
    acting.do(service, PairTeamRound(SECTION, 1))
    acting.do(service, ComposeTeamRound(SECTION, 1))
    for game in service.book.round_games(SECTION, 1):
        result = ROUND_1[game.key.board - 1]
        acting.set_result(service, game.id, result, reason="agreement" if "/" in result else "")
    acting.do(service, PairTeamRound(SECTION, 2))
    matches = service.tournament.section(SECTION).team_rounds
    assert [(m.first, m.second) for m in matches.round_matches(1)] == [(1, 4), (5, 2), (3, 6)]
    return tuple((m.first, m.second) for m in matches.round_matches(2))


def test_variant_a_and_b_pair_round_2_differently(tmp_path: Path) -> None:
    a = _round_2(tmp_path / "a", "A")
    b = _round_2(tmp_path / "b", "B")
    assert a == ((2, 4), (1, 3), (6, 5))
    assert b == ((4, 3), (2, 1), (6, 5))
    # No preferences at all: still a pairing of every team (here it happens to be A's).
    teams = [t for m in _round_2(tmp_path / "none", "none") for t in m]
    assert sorted(t for t in teams if t is not None) == [1, 2, 3, 4, 5, 6]
