"""A whole team Swiss, round by round, as the service does it: the 40-team, 4-board example
(examples/euskadi-team-open-2026.toml) against an individual Swiss of 160 players.

For each of the 9 rounds, on the section's state (no journal, no web): the teams paired by
the team Swiss (C.04.6, `actions.team_swiss.swiss_matches`), the boards composed from the
fallback lineups (`tournament.team_rounds`), the 80 games' results folded in, and the
team standings computed (`fide.teams.standings.team_standings` on the spine's view). The
reference in the same run: the FIDE Dutch on 160 players (the same players, as
individuals), paired, folded and ranked the same way (`final_standings.section_standings`).
Results are seeded (an Elo expectation, a third of the games drawn), the same every run.
Printed: median and spread (min-max) of `--runs` whole events, each phase apart, and the
team event's time over the individual one. Figures only; nothing is asserted.

    .venv/bin/python bench/bench_team_event.py [--runs 7] [--seed 1]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from broadcast.actions.pairings import dutch_pairings
from broadcast.actions.team_swiss import swiss_matches
from broadcast.config import load_event
from broadcast.config.model import EventConfig, PairingSource, SectionConfig
from broadcast.fide.pairing import Pairing
from broadcast.fide.teams.standings import team_standings
from broadcast.tournament.final_standings import section_standings
from broadcast.tournament.team_events import MatchesPaired
from broadcast.tournament.team_rounds import compose_round, fallback_lineups
from broadcast.tournament.teams import team_view
from broadcast.tournament.tournament_events import PlayersRegistered, ResultRecorded, RoundPaired
from broadcast.tournament.tournament_state import SectionState, TournamentState

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "euskadi-team-open-2026.toml"
PHASES = ("pair", "compose", "fold", "standings")
AT = dt.datetime(2026, 7, 4, 12, 0, tzinfo=dt.UTC)  # before every round: lineups fall back


def _fresh(config: EventConfig, section: SectionConfig) -> SectionState:
    state = TournamentState.new(config).section(section.name)
    return state.apply(PlayersRegistered(section.name, section.players))


def _results(
    state: SectionState, number: int, pairings: tuple[Pairing, ...], rng: random.Random
) -> SectionState:
    """A seeded result for every game of the round: the Elo expectation, a third drawn."""
    ratings = {p.number: p.rating or 1800 for p in state.config.players}
    for p in pairings:
        if p.black is None:
            continue
        expected = 1 / (1 + 10 ** ((ratings[p.black] - ratings[p.white]) / 400))
        draw = rng.random() < 1 / 3
        result = "1/2-1/2" if draw else ("1-0" if rng.random() < expected else "0-1")
        state = state.apply(ResultRecorded(state.name, number, p.white, result))
    return state


Phases = dict[str, float]


def _timed(times: Phases, phase: str, work: Callable[[], SectionState]) -> SectionState:
    start = time.perf_counter()
    state = work()
    times[phase] += time.perf_counter() - start
    return state


def _pair_teams(state: SectionState, number: int) -> SectionState:
    matches = swiss_matches(state, number)
    return state.apply(MatchesPaired(state.name, number, matches, "team-swiss", "bench"))


def _compose(state: SectionState, number: int) -> SectionState:
    for lineup in fallback_lineups(state.config, state, number, AT, "bench"):
        state = state.apply(lineup)
    pairings = compose_round(state.config, state, number)
    return state.apply(RoundPaired(state.name, number, pairings, "teams"))


def _team_standings(state: SectionState) -> SectionState:
    team_standings(team_view(state.config, state))
    return state


def _pair_dutch(state: SectionState, number: int) -> SectionState:
    pairings = dutch_pairings(state, number)
    return state.apply(RoundPaired(state.name, number, pairings, "dutch"))


def _standings(state: SectionState) -> SectionState:
    section_standings(state)
    return state


def team_event(config: EventConfig, seed: int) -> Phases:
    """The 40-team Swiss played through: seconds spent in each phase."""
    section = config.sections[0]
    state, rng = _fresh(config, section), random.Random(seed)
    times: Phases = defaultdict(float)
    for number in range(1, section.rounds + 1):
        state = _timed(times, "pair", partial(_pair_teams, state, number))
        state = _timed(times, "compose", partial(_compose, state, number))
        pairings = state.rounds[number].pairings
        state = _timed(times, "fold", partial(_results, state, number, pairings, rng))
        state = _timed(times, "standings", partial(_team_standings, state))
    return times


def individual_config(config: EventConfig, players: int) -> EventConfig:
    """The same event as a Swiss of individuals: the first `players` players, FIDE Dutch."""
    section = dataclasses.replace(
        config.sections[0],
        name="Open",
        teams=(),
        team_rules=None,
        tiebreaks=("BH-C1", "SB"),
        players=config.sections[0].players[:players],
        pairing=PairingSource("dutch"),
    )
    return dataclasses.replace(config, sections=(section,), boards=())


def individual_event(config: EventConfig, seed: int) -> Phases:
    """The 160-player Swiss played through the same way (no compose phase)."""
    section = config.sections[0]
    state, rng = _fresh(config, section), random.Random(seed)
    times: Phases = defaultdict(float)
    times["compose"] = 0.0
    for number in range(1, section.rounds + 1):
        state = _timed(times, "pair", partial(_pair_dutch, state, number))
        pairings = state.rounds[number].pairings
        state = _timed(times, "fold", partial(_results, state, number, pairings, rng))
        state = _timed(times, "standings", partial(_standings, state))
    return times


def _figures(runs: list[Phases], phase: str | None) -> list[float]:
    return [sum(r.values()) if phase is None else r[phase] for r in runs]


def spread(values: list[float]) -> str:
    ms = [v * 1000 for v in values]
    return f"median {statistics.median(ms):8.1f} ms   spread {min(ms):8.1f}-{max(ms):8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    teams = load_event(EXAMPLE)
    individuals = individual_config(teams, 160)
    team_runs: list[Phases] = []
    individual_runs: list[Phases] = []
    for run in range(args.runs):  # interleaved: a busy machine slows both alike
        team_runs.append(team_event(teams, args.seed + run))
        individual_runs.append(individual_event(individuals, args.seed + run))
    section = teams.sections[0]
    print(
        f"{len(section.teams)} teams x {section.team_rules.boards if section.team_rules else 0}"
        f" boards, {section.rounds} rounds, against 160 individuals; {args.runs} runs"
    )
    for name, runs in (("team Swiss", team_runs), ("Dutch, 160", individual_runs)):
        for phase in (*PHASES, None):
            print(f"  {name:10}  {phase or 'event':9}  {spread(_figures(runs, phase))}")
    ratio = statistics.median(_figures(team_runs, None)) / statistics.median(
        _figures(individual_runs, None)
    )
    print(f"  the team event takes {ratio:.2f} times the individual one (medians)")


if __name__ == "__main__":
    main()
