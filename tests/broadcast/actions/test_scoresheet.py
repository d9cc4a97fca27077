"""The moves of a game without an e-board, from its scoresheet (issue 30).

After the round the arbiter pastes the scoresheet's moves (PGN movetext or SAN) into the
game: illegal moves are refused naming the move, the game's result stays, no board is
needed, replacing moves asks first; the desk has a form for it and the API a route, and
the exported PGN and TRF then have the game's moves and say it was played.
"""

from __future__ import annotations

import io
import re
from base64 import b64encode
from pathlib import Path

import chess.pgn
import pytest
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.actions import ConfirmationNeeded, EnterScoresheet, Undo, act, plan_of
from broadcast.actions.scoresheet import scoresheet_moves
from broadcast.export.pgn import game_pgn
from broadcast.export.trf import section_trf_file
from broadcast.fide.crosstable import ResultCode
from broadcast.games.game_events import BoardAttached, ResultConfirmed
from broadcast.service.event_service import ActionError, EventService
from tests.support import acting
from tests.support.web_app import CREDENTIALS, make_service, play_moves
from web.app import build_app

BY = "arbiter:ana"
START = chess.STARTING_FEN
GAME = "masters-r1-b3"  # Pamplona round 1: a table the tests leave without a board
SCORESHEET = """[Event "Pamplona Masters"]
[White "Somebody"]
[Result "1-0"]

1. e4 {[%clk 1:59:50]} e5 2. Nf3 Nc6 (2... d6 3. d4 {the main line}) 3. Bb5 $1 a6
4. Ba4 Nf6 5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8?! 10. d4 Nbd7 1-0
"""
SAN_TEXT = (
    "1.e4 e5 2.Nf3 Nc6 3.Bb5 a6 4.Ba4 Nf6 5.0-0 Be7 6.Re1 b5 7.Bb3 d6 8.c3 0-0 9.h3 Nb8 10.d4 Nbd7"
)


def _unwired(service: EventService, game_id: str) -> None:
    """The table has no e-board (as most tables of a hall)."""
    assert service.book.get(game_id).board is None


# -- parsing -------------------------------------------------------------------------------


def test_pgn_movetext_and_plain_san_give_the_same_moves() -> None:
    pgn, result = scoresheet_moves(START, SCORESHEET)
    san, none = scoresheet_moves(START, SAN_TEXT)
    assert pgn == san and len(pgn) == 20 and pgn[:2] == ["e2e4", "e7e5"]
    assert (result, none) == ("1-0", None)
    # UCI and move numbers stuck to the moves, ½-½, en-dashes: as typed or exported.
    ucis, drawn = scoresheet_moves(START, "1.e2e4 e7e5 2.g1f3 ½–½")
    assert ucis == ["e2e4", "e7e5", "g1f3"] and drawn == "1/2-1/2"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 4. Bxe8", "4.Bxe8"),
        ("1. e4 e5 2. Nf3 Nf9", "2...Nf9"),
        ("1. d4 d5 2. c4 e6 3. Nc3 Nf6 4. Bg5 Be7 5. e3 O-O 6. Nf3 h6 7. Bh4 b6 8. Kd3", "8.Kd3"),
    ],
)
def test_an_illegal_move_is_refused_naming_its_move_number(text: str, words: str) -> None:
    with pytest.raises(ActionError, match="^" + re.escape(words) + ": "):
        scoresheet_moves(START, text)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("1. e4 {a comment never closed 1... e5", "never closed"),
        ("1. e4 (1. d4 d5 e5", "never closed"),
        ("1. e4 e5 1-0 2. Nf3", "goes on after its result"),
        ("x" * 20_001, "at most 20000"),
    ],
)
def test_what_would_hide_moves_is_refused(text: str, why: str) -> None:
    with pytest.raises(ActionError, match=why):
        scoresheet_moves(START, text)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_any_text_gives_moves_or_a_reason(text: str) -> None:
    try:
        ucis, _ = scoresheet_moves(START, text)
    except ActionError as exc:
        assert str(exc)
        return
    board = chess.Board()
    for uci in ucis:
        move = chess.Move.from_uci(uci)
        assert move in board.legal_moves
        board.push(move)


# -- through the door ----------------------------------------------------------------------


def test_a_scoresheet_completes_a_game_without_a_board_and_keeps_its_result(
    tmp_path: Path,
) -> None:
    service, time = make_service(tmp_path, delay=0)
    _unwired(service, GAME)
    time.advance(4 * 3600)
    acting.set_result(service, GAME, "0-1", BY, "resignation")
    command = EnterScoresheet(GAME, SCORESHEET)
    plan = plan_of(service, command, BY)
    assert not plan.asks  # nothing to replace
    assert "20 plies" in plan.summary
    assert any("the scoresheet says 1-0; the game's result 0-1 stays" in n for n in plan.notes)
    done = act(service, command, BY)
    game = service.book.get(GAME)
    assert game.ply == 20 and game.moves[-1].san == "Nbd7"
    assert (game.result, game.result_reason) == ("0-1", "resignation")
    # The same sheet again is no change.
    with pytest.raises(ActionError, match="already"):
        act(service, command, BY)
    # The PGN has the moves and the result; it is a played game in the TRF.
    pgn = game_pgn(game, service.config, tournament=service.tournament)
    read = chess.pgn.read_game(io.StringIO(pgn))
    assert read is not None and len(list(read.mainline_moves())) == 20
    assert read.headers["Result"] == "0-1" and read.headers.get("Termination") != "Unplayed"
    assert "%emt" not in pgn and "%clk" not in pgn  # a scoresheet has no times
    white = game.white.start if game.white else 0
    crosstable = section_trf_file(service.tournament, service.config, "Masters").crosstable
    assert crosstable.entry(white, 1).result is ResultCode.LOSS
    # Undone like any action.
    acting.do(service, Undo(done.seq))
    assert service.book.get(GAME).ply == 0 and service.book.get(GAME).result == "0-1"


def test_replacing_moves_asks_and_names_what_goes(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0)
    play_moves(service, GAME, ["e4", "e5", "Nf3", "Nf6", "Nxe5"])
    command = EnterScoresheet(GAME, SAN_TEXT)
    plan = plan_of(service, command, BY)
    assert plan.asks and plan.removes == (
        "plies 4-5 (2...Nf6 to the end) of round 1 board 3 "
        f"({service.book.get(GAME).white.name} – {service.book.get(GAME).black.name})",  # type: ignore[union-attr]
    )
    assert any("the game has no result yet" in n for n in plan.notes)
    with pytest.raises(ConfirmationNeeded):
        act(service, command, BY)
    act(service, command, BY, confirm=plan.token)
    assert service.book.get(GAME).ply == 20


def test_a_game_its_board_saw_unplayed_is_played_once_its_scoresheet_is_in(
    tmp_path: Path,
) -> None:
    """A board lost at the start (fewer than two plies read), the result entered: not
    played (TRF unrated, PGN "Unplayed"); with the scoresheet's moves: played."""
    service, time = make_service(tmp_path, delay=0)
    wired = "masters-r1-b1"
    with service.batch():
        service.commit([BoardAttached(wired, "10001", time.now())])
    game = service.book.get(wired)
    assert game.board is not None
    play_moves(service, wired, ["d4"])
    acting.set_result(service, wired, "1-0", BY, "resignation")
    white = game.white.start if game.white else 0
    before = section_trf_file(service.tournament, service.config, "Masters").crosstable
    assert before.entry(white, 1).result is ResultCode.UNRATED_WIN
    done = acting.do(service, EnterScoresheet(wired, "1. d4 d5 2. c4 e6 3. Nc3 Nf6 1-0"))
    assert any(isinstance(e, ResultConfirmed) for e in done.plan.events)
    after = section_trf_file(service.tournament, service.config, "Masters").crosstable
    assert after.entry(white, 1).result is ResultCode.WIN
    pgn = game_pgn(service.book.get(wired), service.config, tournament=service.tournament)
    assert "Unplayed" not in pgn and '[Termination "normal"]' in pgn
    read = chess.pgn.read_game(io.StringIO(pgn))
    assert read is not None and len(list(read.mainline_moves())) == 6


def test_an_empty_scoresheet_is_refused(tmp_path: Path) -> None:
    service, _ = make_service(tmp_path, delay=0)
    with pytest.raises(ActionError, match="no moves in that scoresheet"):
        acting.do(service, EnterScoresheet(GAME, '[Event "x"]\n\n*'))


# -- the API and the desk ------------------------------------------------------------------

BASIC = {"Authorization": "Basic " + b64encode(":".join(CREDENTIALS).encode()).decode()}


async def test_the_api_and_the_desk_take_a_scoresheet(tmp_path: Path) -> None:
    from tests.web.test_regulations_pages import _login

    service, _ = make_service(tmp_path, delay=0)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        url = f"/api/v1/arbiter/games/{GAME}/scoresheet"
        bad = await client.post(url, json={"text": "1. e4 e5 2. Ke3"}, headers=BASIC)
        assert bad.status == 422 and "2.Ke3" in (await bad.json())["error"]
        assert (await client.post(url, json={"text": 5}, headers=BASIC)).status == 400
        ok = await client.post(url, json={"text": "1. e4 e5 2. Nf3"}, headers=BASIC)
        assert ok.status == 200, await ok.text()
        assert service.book.get(GAME).ply == 3
        spec = await (await client.get("/api/v1/openapi.json")).json()
        assert "/api/v1/arbiter/games/{game}/scoresheet" in spec["paths"]
        # The desk: a textarea on the game, in the arbiter's language.
        assert await _login(client)
        page = await (await client.get("/arbiter?lang=es")).text()
        assert 'action="/arbiter/act/scoresheet"' in page and "Introducir la planilla" in page
        desk = await (await client.get("/arbiter")).text()
        csrf = re.search(r'name="csrf" value="([^"]+)"', desk)
        assert csrf is not None
        form = {"csrf": csrf.group(1), "game": "masters-r1-b4", "text": SAN_TEXT}
        answer = await client.post("/arbiter/act/scoresheet", data=form, allow_redirects=False)
        assert answer.status in (302, 303), await answer.text()
        assert service.book.get("masters-r1-b4").ply == 20
    finally:
        await client.close()
