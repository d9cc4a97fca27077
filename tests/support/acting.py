"""Test helper: the arbiter's actions as one-liners, each through the one door
(`broadcast.actions.act`) and confirmed (a test says what it wants; the confirmations
themselves are tested in test_action_door.py and the web tests).

    acting.set_result(service, "open-r1-b1", "1-0", reason="resignation")
    acting.withdraw(service, "Open", 23)
    done = acting.do(service, SomeCommand(...))        # any command
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TypeVar

from broadcast.actions import (
    Acknowledge,
    AssignBoard,
    CancelBye,
    Command,
    ConfirmProposal,
    ContinueAfterAbsence,
    CorrectLine,
    Done,
    LateEntry,
    MarkPresent,
    PairPlayoffGame,
    PublishPairings,
    Reinstate,
    RejectProposal,
    ReplaceBoard,
    ReplacePlayer,
    RequestBye,
    RestorePrize,
    SetResult,
    SetStartPosition,
    Undo,
    Withdraw,
    WithholdPrize,
    act,
)
from broadcast.actions.late_entries import particulars
from broadcast.actions.pairings import dutch_pairings as _dutch
from broadcast.actions.pairings import imported_round
from broadcast.fide.pairing import Pairing
from broadcast.games.game_events import BoardReplaced
from broadcast.games.ids import GameKey
from broadcast.service.event_service import EventService

BY = "arbiter:test"

E = TypeVar("E")


def do(service: EventService, command: Command, by: str = BY) -> Done:
    """`command` through the door, confirmed."""
    return act(service, command, by, confirm=True)


def journaled(done: Done, kind: type[E]) -> E:
    """The (first) event of type `kind` the action's plan journaled (not the rules'
    answers to it)."""
    return next(e for e in done.plan.events if isinstance(e, kind))


def set_result(
    service: EventService, game: str, result: str, by: str = BY, reason: str | None = None
) -> Done:
    return do(service, SetResult(game, result, reason), by)


def confirm_proposal(service: EventService, game: str, by: str = BY) -> Done:
    return do(service, ConfirmProposal(game), by)


def reject_proposal(service: EventService, game: str, by: str = BY) -> Done:
    return do(service, RejectProposal(game), by)


def mark_present(service: EventService, game: str, colour: str, by: str = BY) -> Done:
    return do(service, MarkPresent(game, colour), by)


def acknowledge(service: EventService, alert: str, by: str = BY) -> None:
    if not service.health.acknowledge(alert):
        do(service, Acknowledge(alert), by)


def correct_line(service: EventService, game: str, moves: Sequence[str], by: str = BY) -> Done:
    return do(service, CorrectLine(game, tuple(moves)), by)


def set_start_fen(service: EventService, game: str, fen: str, by: str = BY) -> Done:
    return do(service, SetStartPosition(game, fen, on_purpose=True), by)


def replace_board(
    service: EventService,
    game: str,
    board: int,
    by: str = BY,
    *,
    swap: bool = True,
    white_seconds: float | None = None,
    black_seconds: float | None = None,
) -> list[BoardReplaced]:
    done = do(
        service,
        ReplaceBoard(
            game, board, swap=swap, white_seconds=white_seconds, black_seconds=black_seconds
        ),
        by,
    )
    return [e for e in done.plan.events if isinstance(e, BoardReplaced)]


def assign_board(
    service: EventService, section: str, round_number: int, white: int, board: int, by: str = BY
) -> Done:
    return do(service, AssignBoard(section, round_number, white, board, swap=True), by)


def dutch_pairings(
    service: EventService, section: str, round_number: int, *, override: bool = False
) -> tuple[Pairing, ...]:
    return _dutch(service.tournament.section(section), round_number, override=override)


def publish_pairings(
    service: EventService,
    section: str,
    round_number: int,
    pairings: Sequence[Pairing],
    source: str = "arbiter",
    by: str = BY,
    *,
    override: bool = False,
) -> Done:
    command = PublishPairings(section, round_number, tuple(pairings), source, override=override)
    return do(service, command, by)


def pair_dutch(service: EventService, section: str, round_number: int, by: str = BY) -> Done:
    """Round `round_number` paired with FIDE Dutch and published."""
    return publish_pairings(
        service, section, round_number, dutch_pairings(service, section, round_number), "dutch", by
    )


def publish_imported(
    service: EventService,
    section: str,
    round_number: int,
    trf: str,
    by: str = BY,
    *,
    accept_byes: bool = False,
) -> Done:
    """The pairing program's round, its byes through the policy (or accepted as they are)."""
    pairings, byes = imported_round(trf, round_number)
    command = PublishPairings(
        section, round_number, pairings, "import", byes, accept_byes=accept_byes
    )
    return do(service, command, by)


def request_bye(
    service: EventService,
    section: str,
    round_number: int,
    player: int,
    by: str = BY,
    *,
    override: bool = False,
) -> Done:
    return do(service, RequestBye(section, round_number, player, override), by)


def cancel_bye(
    service: EventService,
    section: str,
    round_number: int,
    player: int,
    by: str = BY,
    *,
    override: bool = False,
) -> Done:
    return do(service, CancelBye(section, round_number, player, override), by)


def withdraw(
    service: EventService,
    section: str,
    player: int,
    by: str = BY,
    *,
    from_round: int | None = None,
    reason: str = "",
) -> Done:
    return do(service, Withdraw(section, player, from_round, reason), by)


def reinstate(service: EventService, section: str, player: int, by: str = BY) -> Done:
    return do(service, Reinstate(section, player), by)


def continue_after_absence(
    service: EventService, section: str, round_number: int, player: int, by: str = BY
) -> Done:
    return do(service, ContinueAfterAbsence(section, round_number, player), by)


def withhold_prize(
    service: EventService, section: str, player: int, by: str = BY, reason: str = "art. 9"
) -> Done:
    return do(service, WithholdPrize(section, player, reason), by)


def restore_prize(
    service: EventService, section: str, player: int, by: str = BY, reason: str = ""
) -> Done:
    return do(service, RestorePrize(section, player, reason), by)


def enter_late(
    service: EventService,
    section: str,
    fields: Mapping[str, object],
    by: str = BY,
    *,
    config_player: int | None = None,
    from_round: int | None = None,
    missed_points: float | None = None,
) -> Done:
    command = LateEntry(
        section,
        particulars(fields),
        config_player=config_player,
        from_round=from_round,
        missed_points=missed_points,
    )
    return do(service, command, by)


def replace_player(
    service: EventService,
    section: str,
    player: int,
    fields: Mapping[str, object],
    by: str = BY,
    *,
    override: str = "",
    missed_points: float | None = None,
) -> Done:
    command = ReplacePlayer(
        section, player, particulars(fields), override=override, missed_points=missed_points
    )
    return do(service, command, by)


def pair_playoff_game(
    service: EventService, section: str, white: int, black: int, by: str = BY, *, board: int = 1
) -> Done:
    return do(service, PairPlayoffGame(section, white, black, board), by)


def undo(service: EventService, done: Done | int, by: str = BY) -> Done:
    """Take back `done` (or the action with that record number)."""
    seq = done if isinstance(done, int) else done.seq
    return do(service, Undo(seq), by)


def playoff_game(service: EventService, section: str, number: int) -> str:
    """The game id of play-off game `number` of `section`."""
    state = service.tournament.section(section)
    return GameKey(state.name, state.playoff_round(number), state.playoff[number].board).id
