"""Tournament state as a fold of events: pairings, edits, results, byes, withdrawals,
no-shows, and the crosstable it hands to standings."""

from __future__ import annotations

import dataclasses
import datetime as dt
from zoneinfo import ZoneInfo

import pytest

from broadcast.config import EventConfig, load_event
from broadcast.config.model import NoShowRules
from broadcast.fide.berger import berger_round
from broadcast.fide.crosstable import ResultCode
from broadcast.fide.dutch import pair_round
from broadcast.fide.pairing import Pairing
from broadcast.tournament.eligibility import is_active
from broadcast.tournament.section import StateError
from broadcast.tournament.tournament_events import (
    BoardAssigned,
    ByeCancelled,
    ByeGranted,
    ByeRefused,
    ByeRequested,
    NoShowCounted,
    PairingEdited,
    PlayerWithdrawn,
    ResultRecorded,
    RoundPaired,
)
from broadcast.tournament.tournament_state import TournamentState, fold, registration_events
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
MADRID = ZoneInfo("Europe/Madrid")


@pytest.fixture(scope="module")
def pamplona() -> EventConfig:
    return load_event(EXAMPLES / "pamplona-masters.toml")


@pytest.fixture(scope="module")
def sestao() -> EventConfig:
    return load_event(EXAMPLES / "sestao-2025-swiss.toml")


def test_round_robin_fold_and_crosstable(pamplona: EventConfig) -> None:
    events = [
        *registration_events(pamplona),
        RoundPaired("Masters", 1, berger_round(8, 1), "berger"),
        ResultRecorded("Masters", 1, 1, "1-0"),
        ResultRecorded("Masters", 1, 2, "1/2-1/2"),
        ResultRecorded("Masters", 1, 3, "0-1"),
        ResultRecorded("Masters", 1, 4, "+-"),
        ResultRecorded("Masters", 1, 1, "1/2-1/2"),  # the arbiter corrects board 1
    ]
    state = fold(pamplona, events)
    section = state.section("Masters")
    assert section.rounds[1].complete
    ct = section.to_crosstable()
    assert ct.system == "round-robin" and ct.rounds == 7
    assert ct.score(1) == 0.5 and ct.score(8) == 0.5 and ct.score(6) == 1 and ct.score(4) == 1
    assert ct.entry(5, 1).result == ResultCode.FORFEIT_LOSS
    assert ct.entry(2, 1).colour == "w" and ct.entry(7, 1).opponent == 2
    assert ct.validate() == []
    # Same events, same state: the fold is deterministic.
    assert fold(pamplona, events).section("Masters").to_crosstable() == ct


def test_unplayed_under_one_move_is_counted_but_unrated(pamplona: EventConfig) -> None:
    state = fold(
        pamplona,
        [
            *registration_events(pamplona),
            RoundPaired("Masters", 1, berger_round(8, 1)),
            ResultRecorded("Masters", 1, 1, "1-0", under_one_move=True),
        ],
    )
    ct = state.section("Masters").to_crosstable()
    assert ct.entry(1, 1).result == ResultCode.UNRATED_WIN and ct.score(1) == 1


def test_invalid_events_are_refused_and_leave_state_unchanged(pamplona: EventConfig) -> None:
    state = fold(
        pamplona, [*registration_events(pamplona), RoundPaired("Masters", 1, berger_round(8, 1))]
    )
    bad = [
        RoundPaired("Masters", 1, berger_round(8, 1)),  # already paired
        RoundPaired("Masters", 3, berger_round(8, 3)),  # round 2 first
        ResultRecorded("Masters", 1, 8, "1-0"),  # 8 is Black
        ResultRecorded("Masters", 1, 1, "2-0"),
        ResultRecorded("Masters", 1, 1, "+-", under_one_move=True),
        ResultRecorded("Masters", 2, 1, "1-0"),  # not paired
        RoundPaired("Masters", 2, (Pairing(1, 1, 2), Pairing(1, 3, 4))),  # board twice
        RoundPaired("Masters", 2, (Pairing(1, 1, 2), Pairing(2, 2, 3))),  # player twice
        RoundPaired("Masters", 2, (Pairing(1, 1, 99),)),  # unknown player
        ByeGranted("Masters", 1, 1, dt.datetime(2025, 12, 1, tzinfo=MADRID)),  # paired
        ResultRecorded("Other", 1, 1, "1-0"),
    ]
    for event in bad:
        with pytest.raises(StateError):
            state.apply(event)
    assert state.section("Masters").rounds[1].results == {}


def test_pairing_edits_and_board_moves(pamplona: EventConfig) -> None:
    state = fold(
        pamplona,
        [
            *registration_events(pamplona),
            RoundPaired("Masters", 1, berger_round(8, 1)),
            ResultRecorded("Masters", 1, 1, "1-0"),
            ResultRecorded("Masters", 1, 2, "0-1"),
            # The arbiter swaps colours on board 2 and keeps board 1's result.
            PairingEdited(
                "Masters",
                1,
                (Pairing(1, 1, 8), Pairing(2, 7, 2), Pairing(3, 3, 6), Pairing(4, 4, 5)),
                "colours on board 2 were wrong",
            ),
            BoardAssigned("Masters", 1, 4, 1),  # 4-5 moves to board 1, 1-8 takes board 4
        ],
    )
    rnd = state.section("Masters").rounds[1]
    assert dict(rnd.results) == {1: rnd.results[1]} and rnd.results[1].result == "1-0"
    boards = {p.white: p.board for p in rnd.pairings}
    assert boards[4] == 1 and boards[1] == 4 and boards[7] == 2


def test_byes_requests_decisions_and_swiss_pairing(sestao: EventConfig) -> None:
    name = "Open"
    state = fold(sestao, registration_events(sestao))
    section = state.section(name)
    before = dt.datetime(2025, 9, 10, 12, 0, tzinfo=MADRID)
    request = ByeRequested(name, 1, 24, before)
    decision = section.decide_bye(request)
    assert isinstance(decision, ByeGranted)
    state = state.apply(request).apply(decision)
    late = ByeRequested(name, 2, 23, dt.datetime(2025, 9, 12, 17, 0, tzinfo=MADRID))
    refusal = state.section(name).decide_bye(late)
    assert isinstance(refusal, ByeRefused) and "too late" in refusal.reason
    assert isinstance(state.section(name).decide_bye(ByeRequested(name, 8, 5, before)), ByeRefused)
    state = state.apply(late).apply(refusal)
    state = state.apply(PlayerWithdrawn(name, 23, 1, "illness"))
    section = state.section(name)
    assert section.absent_for(1) == {23, 24}
    pairings = pair_round(section.to_crosstable(), 1, total_rounds=9, absent=section.absent_for(1))
    paired = {x for p in pairings for x in p.players()}
    assert paired == set(range(1, 23)) and not any(p.is_bye for p in pairings)
    state = state.apply(RoundPaired(name, 1, pairings, "dutch"))
    with pytest.raises(StateError, match="withdrawn"):
        state.apply(PairingEdited(name, 1, (*pairings[:-1], Pairing(11, 23, 22)), ""))
    ct = state.section(name).to_crosstable()
    assert ct.entry(24, 1).result == ResultCode.HALF_BYE and ct.score(24) == 0.5
    assert ct.entry(23, 1).result == ResultCode.ZERO_BYE


def test_cancelled_bye_and_pairing_bye_result(sestao: EventConfig) -> None:
    name = "Open"
    at = dt.datetime(2025, 9, 1, tzinfo=MADRID)
    state = fold(
        sestao,
        [
            *registration_events(sestao),
            ByeGranted(name, 1, 3, at),
            ByeCancelled(name, 1, 3, at),
            PlayerWithdrawn(name, 24, 1),
        ],
    )
    section = state.section(name)
    assert section.absent_for(1) == {24}
    pairings = pair_round(section.to_crosstable(), 1, total_rounds=9, absent=section.absent_for(1))
    bye = [p for p in pairings if p.is_bye]
    assert len(bye) == 1
    state = state.apply(RoundPaired(name, 1, pairings))
    ct = state.section(name).to_crosstable()
    assert ct.entry(bye[0].white, 1).result == ResultCode.PAIRING_BYE
    with pytest.raises(StateError):
        state.apply(ByeCancelled(name, 1, 3, at))


def test_no_show_limit_excludes_from_later_rounds(sestao: EventConfig) -> None:
    # The limit alone (the example's single-absence rule is tested in test_regulations).
    section_config = dataclasses.replace(sestao.sections[0], no_shows=NoShowRules())
    sestao = dataclasses.replace(sestao, sections=(section_config,))
    state = TournamentState.new(sestao)
    for event in registration_events(sestao):
        state = state.apply(event)
    state = state.apply(NoShowCounted("Open", 1, 7)).apply(NoShowCounted("Open", 1, 7))
    assert is_active(state.section("Open"), 7, 3)
    state = state.apply(NoShowCounted("Open", 2, 7))
    section = state.section("Open")
    assert section.no_shows[7] == (1, 2)
    assert is_active(section, 7, 2) and not is_active(section, 7, 3)
    assert 7 in section.absent_for(3)
