"""The one door for the arbiter's actions (issue 28): each action says what it removes and
asks, refuses nonsense, is journaled, and is undone by a journaled counter-action that
gives back the state before it, also across a restart.

The examples are the real events: Sestao (a Swiss: byes, late entries, the round-1
exclusion of art. 6) and Pamplona (a round robin with hall boards, prizes, and the
elimination of art. 8).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from broadcast.actions import (
    AssignBoard,
    CancelBye,
    Command,
    ConfirmationNeeded,
    CorrectLine,
    LateEntry,
    MarkPresent,
    PublishPairings,
    Reinstate,
    RejectProposal,
    ReplaceBoard,
    ReplaceMove,
    ReplacePlayer,
    RequestBye,
    SetResult,
    SetStartPosition,
    TakeBack,
    Undo,
    Withdraw,
    WithholdPrize,
    act,
)
from broadcast.actions.late_entries import particulars
from broadcast.arbiter.decisions import ActionTaken, ActionUndone
from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.fide.pairing import Pairing
from broadcast.games.game_events import GameMove, ResultProposed
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.eligibility import excluded_by_rules, prize_withheld
from broadcast.tournament.final_standings import section_prizes
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

BY = "arbiter:ana"
SESTAO = "Open"
PAMPLONA = "Masters"


def _config(name: str) -> EventConfig:
    return load_event(ROOT / "examples" / name)


def _service(folder: Path, config: EventConfig, **options: object) -> EventService:
    """The event in round 1, a minute after its start (the live round on the hall)."""
    start = config.sections[0].schedule[0].start.timestamp()
    service = EventService(
        config,
        Journal(folder / "j.sqlite"),
        time_source=ManualTime(start + 60),
        delay=0,
        **options,  # type: ignore[arg-type]
    )
    service.load()
    return service


def _restarted(folder: Path, service: EventService, **options: object) -> EventService:
    """The same journal, read again by a new service (the old one's state is its fold)."""
    again = EventService(
        service.config,
        Journal(folder / "j.sqlite"),
        time_source=ManualTime(service.time_source.now()),
        delay=0,
        **options,  # type: ignore[arg-type]
    )
    again.load()
    return again


def play(service: EventService, game_id: str, sans: list[str]) -> None:
    """Moves as a board reports them (journaled as board events, not as an action)."""
    import chess

    board = chess.Board(service.book.get(game_id).fen)
    ply = service.book.get(game_id).ply
    events = []
    for san in sans:
        move = board.parse_san(san)
        board.push(move)
        ply += 1
        events.append(
            GameMove(game_id, ply, san, move.uci(), board.fen(), service.time_source.now())
        )
    with service.batch():
        service.commit(events)


@pytest.fixture
def sestao(tmp_path: Path) -> EventService:
    service = _service(tmp_path, _config("sestao-2025-swiss.toml"))
    acting.pair_dutch(service, SESTAO, 1)
    return service


@pytest.fixture
def pamplona(tmp_path: Path) -> EventService:
    return _service(tmp_path, _config("pamplona-masters.toml"))


def _game(service: EventService, section: str, round_number: int, board: int) -> str:
    return service.book.round_games(section, round_number)[board - 1].id


# -- every action is undone to the state before it ----------------------------------------------


Scenario = Callable[[EventService], Command]


def _seen(service: EventService) -> tuple[object, ...]:
    """What the arbiter sees of the event: the fold, the open alerts, who is at the boards
    (the rules' memory: the arbiter's word that a player is present is not in the fold)."""
    presence = {g: w.presence for g, w in service.rules.watches.items()}
    return service.state, tuple(a.id for a in service.alerts()), presence


def _result(s: EventService) -> Command:
    return SetResult(_game(s, SESTAO, 1, 1), "0-1", "resignation")


def _forfeit(s: EventService) -> Command:
    return SetResult(_game(s, SESTAO, 1, 2), "-/+", "forfeit")  # Sestao art. 6: excluded


def _correction(s: EventService) -> Command:
    game = _game(s, SESTAO, 1, 3)
    play(s, game, ["e4", "e5", "Nf3", "Nc6", "Bb5"])
    return CorrectLine(game, ("e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5"))


def _takeback(s: EventService) -> Command:
    game = _game(s, SESTAO, 1, 3)
    play(s, game, ["d4", "d5", "c4"])
    return TakeBack(game, 2)


def _replace_move(s: EventService) -> Command:
    game = _game(s, SESTAO, 1, 3)
    play(s, game, ["d4", "Nf6", "c4", "e6"])
    return ReplaceMove(game, 2, "d5")  # 1...d5: 2.c4 stays, 2...e6 stays


def _start_position(s: EventService) -> Command:
    game = _game(s, SESTAO, 1, 4)
    play(s, game, ["e4", "c5"])
    fen = "bqnrkrnb/pppppppp/8/8/8/8/PPPPPPPP/BQNRKRNB w KQkq - 0 1"
    return SetStartPosition(game, fen, on_purpose=True)


def _withdrawal(s: EventService) -> Command:
    return Withdraw(SESTAO, 5, reason="ill")  # paired in round 1: the game is forfeited


def _reinstatement(s: EventService) -> Command:
    acting.withdraw(s, SESTAO, 5)
    return Reinstate(SESTAO, 5)


def _bye(s: EventService) -> Command:
    return RequestBye(SESTAO, 4, 7, override=True)


def _bye_cancelled(s: EventService) -> Command:
    acting.request_bye(s, SESTAO, 4, 7, override=True)
    return CancelBye(SESTAO, 4, 7, override=True)


def _prize(s: EventService) -> Command:
    return WithholdPrize(SESTAO, 2, "art. 14: not collected")


def _late_entry(s: EventService) -> Command:
    return LateEntry(SESTAO, particulars({"name": "Zabala, Itziar", "rating": 1700}))


def _replacement(s: EventService) -> Command:
    return ReplacePlayer(SESTAO, 8, particulars({"name": "Urkiola, Maite", "rating": 1650}))


def _pairing(s: EventService) -> Command:
    acting.set_result(s, _game(s, SESTAO, 1, 1), "1-0", reason="resignation")
    pairings = s.tournament.section(SESTAO).rounds[1].pairings
    swapped = (
        Pairing(1, pairings[0].white, pairings[1].black),
        Pairing(2, pairings[1].white, pairings[0].black),
        *pairings[2:],
    )
    return PublishPairings(SESTAO, 1, swapped, "arbiter")  # drops a played game


def _proposal_rejected(s: EventService) -> Command:
    game = _game(s, SESTAO, 1, 6)
    play(s, game, ["e4", "e5"])
    s.commit([ResultProposed(game, "1/2-1/2", "kings-signal", s.time_source.now())])
    return RejectProposal(game)


def _presence(s: EventService) -> Command:
    return MarkPresent(_game(s, SESTAO, 1, 9), "black")


SESTAO_ACTIONS: dict[str, Scenario] = {
    "result": _result,
    "forfeit": _forfeit,
    "correction": _correction,
    "takeback": _takeback,
    "replace-move": _replace_move,
    "start-position": _start_position,
    "withdrawal": _withdrawal,
    "reinstatement": _reinstatement,
    "bye": _bye,
    "bye-cancelled": _bye_cancelled,
    "prize-withheld": _prize,
    "late-entry": _late_entry,
    "replacement": _replacement,
    "re-pairing": _pairing,
    "rejected-proposal": _proposal_rejected,
    "presence": _presence,
}


@pytest.mark.parametrize("name", sorted(SESTAO_ACTIONS))
def test_each_action_is_undone_to_the_state_before_it(
    tmp_path: Path, sestao: EventService, name: str
) -> None:
    command = SESTAO_ACTIONS[name](sestao)
    before = _seen(sestao)
    done = acting.do(sestao, command)
    assert _seen(sestao) != before, f"{name} changed nothing"
    undo = acting.undo(sestao, done)
    assert _seen(sestao) == before
    # The journal keeps both: the action's record, and the counter-action that undid it.
    records = [e for e in sestao.journal.read() if isinstance(e.event, ActionTaken)]
    assert [r.seq for r in records][-2:] == [done.seq, undo.seq]
    assert records[-1].event.undoes == done.seq  # type: ignore[union-attr]
    if done.record.changes:  # what it changed in the fold is put back by ActionUndone
        assert any(isinstance(e.event, ActionUndone) for e in sestao.journal.read(done.seq))
    assert sestao.action_log.undone_by(done.seq) == undo.seq
    # Across a restart (a full replay, and from a snapshot): the same state.
    assert _restarted(tmp_path, sestao, snapshots=False).state == sestao.state
    assert sestao.snapshots.take_now(sestao)
    from_snapshot = _restarted(tmp_path, sestao)
    assert from_snapshot.snapshots.restore() is not None and from_snapshot.replayed == 0
    assert from_snapshot.state == sestao.state


def test_a_board_swap_is_undone_too(pamplona: EventService) -> None:
    game = _game(pamplona, PAMPLONA, 1, 1)
    before = pamplona.state
    with pytest.raises(ActionError, match="in play: a swap moves both games"):
        acting.do(pamplona, ReplaceBoard(game, 2))
    done = acting.do(pamplona, ReplaceBoard(game, 2, swap=True))
    assert pamplona.book.get(game).hall_board == 2
    assert pamplona.hall[2].game == game and pamplona.hall[1].game != game
    acting.undo(pamplona, done)
    assert pamplona.state == before
    assert pamplona.hall[1].game == game


def test_an_undo_undone_is_a_redo(sestao: EventService) -> None:
    game = _game(sestao, SESTAO, 1, 1)
    done = acting.set_result(sestao, game, "0-1", reason="resignation")
    after = sestao.state
    undo = acting.undo(sestao, done)
    redo = acting.undo(sestao, undo)
    assert sestao.state == after
    assert sestao.action_log.undone_by(undo.seq) == redo.seq
    assert sestao.action_log.undone_by(done.seq) == 0  # in force again
    with pytest.raises(ActionError, match=f"was undone by action {redo.seq}"):
        act(sestao, Undo(undo.seq), BY, confirm=True)


# -- what removes something says what, and asks ---------------------------------------------------


def test_a_correction_says_which_plies_it_removes_and_asks(sestao: EventService) -> None:
    game = _game(sestao, SESTAO, 1, 2)
    play(sestao, game, ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6"])
    before = sestao.state
    command = CorrectLine(game, ("e4", "e5", "Nf3", "Nf6"))
    with pytest.raises(ConfirmationNeeded) as asked:
        act(sestao, command, BY)
    plan = asked.value.plan
    white, black = (p.name for p in (sestao.book.get(game).white, sestao.book.get(game).black))  # type: ignore[union-attr]
    assert plan.removes == (
        f"plies 4-6 (2...Nc6 to the end) of round 1 board 2 ({white} – {black})",
    )
    assert sestao.state == before  # asking changed nothing
    # A confirmation for other words is none: the state changed, so did the words.
    play(sestao, game, ["Ba4"])
    with pytest.raises(ConfirmationNeeded) as again:
        act(sestao, command, BY, confirm=plan.token)
    assert again.value.stale and again.value.plan.removes[0].startswith("plies 4-7 ")
    act(sestao, command, BY, confirm=again.value.plan.token)
    assert [m.san for m in sestao.book.get(game).moves] == ["e4", "e5", "Nf3", "Nf6"]


def test_nonsense_is_refused(sestao: EventService) -> None:
    game = _game(sestao, SESTAO, 1, 2)
    play(sestao, game, ["e4", "e5"])
    before = sestao.state
    with pytest.raises(ActionError, match="an empty line would remove all 2 plies"):
        act(sestao, CorrectLine(game, ()), BY, confirm=True)
    # The same line again: on a game its board follows, that board must show it again
    # (a knocked-over piece); with no board following it, it is nothing.
    again = act(sestao, CorrectLine(game, ("e4", "e5")), BY)
    assert again.summary.endswith("must show the game's position again (ply 2)")
    assert sestao.book.get(game).awaiting_correction
    before = sestao.state
    with pytest.raises(ActionError, match="a start position removes them all"):
        act(sestao, SetStartPosition(game, "8/8/8/8/8/8/8/K1k5 w - - 0 1"), BY, confirm=True)
    with pytest.raises(ActionError, match="take back 1 to 2 plies"):
        act(sestao, TakeBack(game, 3), BY, confirm=True)
    assert sestao.state == before


def test_the_same_line_on_a_game_no_board_follows_is_nothing(pamplona: EventService) -> None:
    later = _game(pamplona, PAMPLONA, 2, 1)  # round 2: not on the boards yet
    play(pamplona, later, ["d4"])
    with pytest.raises(ActionError, match=r"is the line of .* already"):
        act(pamplona, CorrectLine(later, ("d4",)), BY, confirm=True)


def test_a_played_round_is_paired_again_only_with_what_it_drops_said(
    sestao: EventService,
) -> None:
    played = _game(sestao, SESTAO, 1, 1)
    play(sestao, played, ["e4", "e5", "Nf3"])
    acting.set_result(sestao, played, "1-0", reason="resignation")
    game = sestao.book.get(played)
    pairings = sestao.tournament.section(SESTAO).rounds[1].pairings
    swapped = (
        Pairing(1, pairings[0].white, pairings[1].black),
        Pairing(2, pairings[1].white, pairings[0].black),
        *pairings[2:],
    )
    with pytest.raises(ConfirmationNeeded) as asked:
        act(sestao, PublishPairings(SESTAO, 1, swapped, "dutch"), BY)
    names = f"{game.white.name} – {game.black.name}"  # type: ignore[union-attr]
    assert asked.value.plan.removes == (f"round 1 board 1 ({names}) (3 plies, 1-0)",)
    act(sestao, PublishPairings(SESTAO, 1, swapped, "dutch"), BY, confirm=asked.value.plan.token)
    # The played game is nobody else's: board 1 starts afresh, its moves kept aside.
    assert sestao.book.get(played).moves == () and sestao.book.get(played).result is None
    assert sestao.book.removed[played].moves == game.moves
    assert 1 not in sestao.tournament.section(SESTAO).rounds[1].results


def test_a_busy_board_is_a_swap_chosen_on_purpose_and_never_the_games_own(
    pamplona: EventService,
) -> None:
    game = _game(pamplona, PAMPLONA, 1, 1)
    with pytest.raises(ActionError, match="is on board 1 already"):
        act(pamplona, ReplaceBoard(game, 1), BY, confirm=True)
    with pytest.raises(ConfirmationNeeded) as asked:
        act(pamplona, ReplaceBoard(game, 3, swap=True), BY)
    assert len(asked.value.plan.removes) == 2  # both games lose their board
    assert asked.value.plan.summary.endswith("moves from board 1 to board 3 (a swap)")


def test_a_table_swap_is_said_and_undone(pamplona: EventService) -> None:
    white = pamplona.tournament.section(PAMPLONA).rounds[3].pairings[0].white
    before = pamplona.state
    with pytest.raises(ConfirmationNeeded) as asked:
        act(pamplona, AssignBoard(PAMPLONA, 3, white, 4), BY)
    assert asked.value.plan.removes[0].startswith("table 1 from round 3 board 1")
    done = act(pamplona, AssignBoard(PAMPLONA, 3, white, 4), BY, confirm=True)
    acting.undo(pamplona, done)
    assert pamplona.state == before


# -- a forfeit that no longer stands counts nothing (regulations review D1) -----------------------


def _forfeit_against(service: EventService, round_number: int, player: int, by: str = BY) -> str:
    game = next(
        g
        for g in service.book.round_games(PAMPLONA, round_number)
        if player in (g.white.start, g.black.start)  # type: ignore[union-attr]
    )
    result = "-/+" if game.white.start == player else "+/-"  # type: ignore[union-attr]
    acting.set_result(service, game.id, result, by, reason="forfeit")
    return game.id


def test_a_corrected_forfeit_lifts_the_elimination_and_gives_back_the_games_and_prize(
    pamplona: EventService,
) -> None:
    # Pamplona art. 8: two missed games eliminate; R5-R7 become forfeits, the prize goes.
    first = _forfeit_against(pamplona, 2, 6)
    _forfeit_against(pamplona, 4, 6)
    section = pamplona.tournament.section(PAMPLONA)
    assert section.withdrawn == {6: 5} and section.withdrawn_by[6] == "rules"
    later = [
        g.id
        for r in (5, 6, 7)
        for g in pamplona.book.round_games(PAMPLONA, r)
        if 6 in (g.white.start, g.black.start)  # type: ignore[union-attr]
    ]
    assert all(pamplona.book.get(g).result_reason == "withdrawal" for g in later)
    assert prize_withheld(section, 6) == "eliminated by the no-show rules"
    # The round-2 forfeit was entered on the wrong board: corrected to the played result.
    acting.set_result(pamplona, first, "0-1", reason="resignation")
    section = pamplona.tournament.section(PAMPLONA)
    assert section.no_shows == {6: (4,)}
    assert 6 not in section.withdrawn
    assert all(pamplona.book.get(g).result is None for g in later)
    assert prize_withheld(section, 6) == ""
    alerts = [a for a in pamplona.alerts() if a.kind == "withdraw-from-pairing"]
    assert alerts == []  # the alert that asked about the elimination closed with it
    prizes = section_prizes(section)
    assert prizes is not None


def test_an_undone_forfeit_lifts_the_round_1_exclusion(sestao: EventService) -> None:
    # Sestao art. 6: absent in round 1, excluded; the forfeit was on the wrong board.
    game = sestao.book.get(_game(sestao, SESTAO, 1, 7))
    absent = game.white.start  # type: ignore[union-attr]
    done = acting.set_result(sestao, game.id, "-/+", reason="forfeit")
    section = sestao.tournament.section(SESTAO)
    assert section.withdrawn[absent] == 2 and excluded_by_rules(section, absent)
    with pytest.raises(ActionError, match="bye refused"):
        act(sestao, RequestBye(SESTAO, 3, absent), BY)
    acting.undo(sestao, done)
    section = sestao.tournament.section(SESTAO)
    assert absent not in section.withdrawn and not section.no_shows
    acting.request_bye(sestao, SESTAO, 3, absent)
    assert 3 in sestao.tournament.section(SESTAO).byes_of(absent)


def test_an_older_forfeit_undone_reinstates_a_player_a_later_one_eliminated(
    pamplona: EventService,
) -> None:
    # Not the newest action: the elimination came with the round-4 forfeit, and goes when
    # the round-2 one is taken back (the rules take their own withdrawal back).
    first = _forfeit_against(pamplona, 2, 6)
    record = next(
        a.seq for a in pamplona.action_log.recent() if a.summary.startswith("round 2 board")
    )
    _forfeit_against(pamplona, 4, 6)
    assert 6 in pamplona.tournament.section(PAMPLONA).withdrawn
    acting.undo(pamplona, record)
    section = pamplona.tournament.section(PAMPLONA)
    assert 6 not in section.withdrawn and section.no_shows == {6: (4,)}
    assert pamplona.book.get(first).result is None


# -- an undo never overwrites a later decision ----------------------------------------------------


def test_an_undo_refuses_to_overwrite_a_later_action_and_names_it(sestao: EventService) -> None:
    game = _game(sestao, SESTAO, 1, 1)
    first = acting.set_result(sestao, game, "1-0", reason="resignation")
    second = acting.set_result(sestao, game, "0-1", reason="resignation")
    with pytest.raises(ActionError, match=f"action {second.seq} .* changed it; undo that first"):
        act(sestao, Undo(first.seq), BY, confirm=True)
    acting.undo(sestao, second)
    acting.undo(sestao, first)
    assert sestao.book.get(game).result is None


def test_an_undone_correction_drops_the_plies_played_since_and_says_so(
    sestao: EventService,
) -> None:
    game = _game(sestao, SESTAO, 1, 2)
    play(sestao, game, ["e4", "e5", "Nf3"])
    done = acting.correct_line(sestao, game, ["d4", "d5"])
    play(sestao, game, ["c4", "e6"])
    with pytest.raises(ConfirmationNeeded) as asked:
        act(sestao, Undo(done.seq), BY)
    assert any(r.startswith("plies 3-4 (2.c4 to the end)") for r in asked.value.plan.removes)
    act(sestao, Undo(done.seq), BY, confirm=True)
    assert [m.san for m in sestao.book.get(game).moves] == ["e4", "e5", "Nf3"]


# -- a played result is a played game, whatever its source (D3) -----------------------------------


def test_a_result_entered_for_a_table_without_an_eboard_is_exported_as_played(
    sestao: EventService,
) -> None:
    from broadcast.export.pgn import game_pgn
    from broadcast.export.trf import section_trf

    game = _game(sestao, SESTAO, 1, 1)
    acting.set_result(sestao, game, "1-0", reason="resignation")
    record = sestao.tournament.section(SESTAO).rounds[1].results
    white = sestao.book.get(game).white.start  # type: ignore[union-attr]
    assert not record[white].under_one_move
    pgn = game_pgn(sestao.book.get(game), sestao.config, tournament=sestao.tournament)
    assert '[Termination "normal"]' in pgn and "Unplayed" not in pgn
    trf = section_trf(sestao.tournament, sestao.config, SESTAO)
    line = next(r for r in trf.splitlines() if r.startswith(f"001 {white:4d}"))
    assert line.rstrip().endswith(" w 1")  # played: 1, not the unrated W
