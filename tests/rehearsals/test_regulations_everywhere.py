"""The regulations seen the same way on every path: removed games gone from every list,
page and feed; play-off games with their own time control (and the Armageddon odds) in
every PGN; standings pushed to a play-off round's page; a refused bye in the
regulation's words; one bye form at the desk."""

from __future__ import annotations

import dataclasses
import html
import io
import re
from pathlib import Path
from urllib.parse import unquote

import chess.pgn
import pytest
from aiohttp.test_utils import TestClient, TestServer

from broadcast.config import load_event
from broadcast.config.model import WithdrawalRules
from broadcast.export.pgn import event_pgn, round_pgn
from broadcast.fide.pairing import Pairing
from broadcast.games.game_events import GameMove, GameSync
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.publish.folder import export_round_folder
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.eligibility import out_reason
from broadcast.tournament.tournament_events import ByeGranted, ByeRequested
from clocks.timesource import ManualTime
from tests.broadcast.tournament.test_regulations_applied import (
    ARBITER,
    ROOT,
    alert_kinds,
    at,
    service_for,
    standings_of,
    tie_one_and_two,
    vega_round1,
)
from tests.support import acting
from tests.support.web_app import CREDENTIALS
from tests.web.test_regulations_pages import _login
from web.app import build_app
from web.hub import Frame, diff

MASTERS = "Masters"
AFTER_E4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"


def _e4(game_id: str, t: float) -> GameMove:
    return GameMove(game_id, 1, "e4", "e2e4", AFTER_E4, t)


def _removing_service(tmp_path: Path) -> tuple[EventService, ManualTime]:
    """Pamplona with `remaining_games = "remove"`, round 1 about to start."""
    config = load_event(ROOT / "examples" / "pamplona-masters.toml")
    masters = dataclasses.replace(
        config.sections[0], withdrawal=WithdrawalRules(remaining_games="remove")
    )
    config = dataclasses.replace(config, sections=(masters,), broadcast_delay_seconds=0)
    time_source = ManualTime(at("2025-12-22T16:00:00"))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    return service, time_source


def _games_of(service: EventService, player: int) -> set[str]:
    """Ids of the games that name `player`, in the (live) game list."""
    return {
        g.id
        for g in service.book.games.values()
        if player in {p.start for p in (g.white, g.black) if p is not None}
    }


async def test_removed_games_leave_every_list_page_and_feed(tmp_path: Path) -> None:
    service, time_source = _removing_service(tmp_path)
    name = service.tournament.section(MASTERS).players[8].name
    before = _games_of(service, 8)
    assert len(before) == 7
    acting.set_result(service, GameKey(MASTERS, 1, 1).id, "1-0", ARBITER, "resignation")
    old = Frame(service.public_state().tournament, service.public_state().book)
    acting.withdraw(service, MASTERS, 8, ARBITER, reason="illness (art. 7)")
    gone = before - _games_of(service, 8)
    assert len(gone) == 6  # rounds 2-7; round 1 was played and stands
    section = service.tournament.section(MASTERS)
    for number in range(2, 8):
        assert section.rounds[number].game_of(8) is None
        assert len(service.book.round_games(MASTERS, number)) == 3
    # The spectators' websocket is told each game is gone (not left as an empty card).
    public = service.public_state()
    removed = [
        d.message["game"]
        for d in diff(service.config, old, Frame(public.tournament, public.book))
        if d.message["type"] == "removed"
    ]
    assert set(removed) == gone
    # The organisers' exports (with the tournament) do not bring them back either.
    full = event_pgn(service.book, service.config, tournament=service.tournament)
    assert full.count(name) == 1  # round 1 only
    export_round_folder(
        tmp_path / "out", service.book, service.config, MASTERS, 3, tournament=service.tournament
    )
    folder = tmp_path / "out" / "round-3"
    assert len(list(folder.glob("game-*.pgn"))) == 3
    assert name not in (folder / "games.pgn").read_text()
    # A board still reporting on a removed game changes nothing anyone sees.
    lost = sorted(gone)[0]
    service.commit([_e4(lost, time_source.now())])
    assert lost not in service.book.games
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        for number in range(2, 8):
            games = (await (await client.get(f"/api/v1/rounds/{number}")).json())["games"]
            assert len(games) == 3 and name not in str(games)
            pgn = await (await client.get(f"/api/v1/rounds/{number}.pgn")).text()
            assert pgn.count("[Event ") == 3 and name not in pgn
            page = await (await client.get(f"/round/{number}")).text()
            assert name not in page
        for game_id in gone:
            assert (await client.get(f"/api/v1/games/{game_id}")).status == 404
            assert (await client.get(f"/api/v1/games/{game_id}.pgn")).status == 404
            assert (await client.get(f"/game/{game_id}")).status == 404
        assert (await (await client.get("/api/v1/event.pgn")).text()).count(name) == 1
        pairings = await (await client.get("/api/v1/pairings")).json()
        assert all(name not in str(r["pairings"]) for r in pairings if r["round"] >= 2)
    finally:
        await client.close()
    # A restart folds the journal (the stray move included) into the same lists.
    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    assert set(again.book.games) == set(service.book.games)


def test_a_game_paired_again_comes_back_with_its_moves(tmp_path: Path) -> None:
    service, _ = _removing_service(tmp_path)
    game_id = GameKey(MASTERS, 1, 4).id
    service.commit([_e4(game_id, service.time_source.now())])
    round1 = service.tournament.section(MASTERS).rounds[1].pairings
    acting.publish_pairings(service, MASTERS, 1, round1[:3], "arbiter", ARBITER)
    assert game_id not in service.book.games
    assert len(service.public_state().book.round_games(MASTERS, 1)) == 3
    acting.publish_pairings(service, MASTERS, 1, round1, "arbiter", ARBITER)
    assert [m.uci for m in service.book.get(game_id).moves] == ["e2e4"]


# -- Donostia: the play-off games' PGN on every path ---------------------------------------

KUTXA = "Kutxa"


def _play_to_armageddon(service: EventService) -> list[str]:
    """Players 1 and 2 tie for first; two blitz games 1-1; the Armageddon is paired.
    Returns the three play-off game ids."""
    tie_one_and_two(service, KUTXA)
    ids: list[str] = []
    for white, black in ((1, 2), (2, 1), (1, 2)):
        acting.pair_playoff_game(service, KUTXA, white, black, ARBITER)
        ids.append(acting.playoff_game(service, KUTXA, len(ids) + 1))
        if len(ids) < 3:
            acting.set_result(service, ids[-1], "1-0", ARBITER, "resignation")
    return ids


def _read(text: str) -> list[chess.pgn.Game]:
    stream, games = io.StringIO(text), []
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    return games


async def test_playoff_games_carry_their_time_control_in_every_pgn(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00")
    blitz, _, armageddon = _play_to_armageddon(service)
    acting.set_result(service, armageddon, "1/2-1/2", ARBITER, "agreement")
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        texts = {
            "round 10": await (await client.get("/api/v1/sections/kutxa/rounds/10.pgn")).text(),
            "round 12": await (await client.get("/api/v1/sections/kutxa/rounds/12.pgn")).text(),
            "game 1": await (await client.get(f"/api/v1/games/{blitz}.pgn")).text(),
            "game 3": await (await client.get(f"/api/v1/games/{armageddon}.pgn")).text(),
        }
        event = _read(await (await client.get("/api/v1/event.pgn")).text())
        page = await (await client.get(f"/game/{armageddon}")).text()
    finally:
        await client.close()
    for what in ("round 10", "game 1"):
        (game,) = _read(texts[what])
        assert game.headers["TimeControl"] == "300", what
        assert game.comment == "Play-off for first place, game 1 (blitz)"
    for what in ("round 12", "game 3"):
        (game,) = _read(texts[what])
        # PGN's TimeControl has one side: White's; the odds go in the opening comment.
        assert game.headers["TimeControl"] == "300", what
        assert game.headers["Result"] == "1/2-1/2"
        assert "Armageddon, White 300 s, Black 240 s" in game.comment
        assert "a draw counts as a win for Black" in game.comment
    # It was played when the arbiter paired it (20:00 in the hall), not on a schedule.
    assert (game.headers["Date"], game.headers["UTCTime"]) == ("2009.07.16", "18:00:00")
    by_id = {g.headers["GameId"]: g for g in event}
    assert by_id[armageddon].headers["TimeControl"] == "300"
    assert "Armageddon" in by_id[armageddon].comment
    assert by_id[GameKey(KUTXA, 9, 1).id].headers["TimeControl"] == "5400+30"
    assert "a draw counts as a win for Black" in page
    # The organisers' folder and relay texts from the public state say the same.
    public = service.public_state()
    export_round_folder(
        tmp_path / "out", public.book, service.config, KUTXA, 12, pairings=public.tournament
    )
    folder_text = next((tmp_path / "out").rglob("round-12/game-1.pgn")).read_text()
    assert "Armageddon" in folder_text
    plain = round_pgn(public.book, service.config, KUTXA, 12, pairings=public.tournament)
    assert plain == texts["round 12"]
    # Black won the play-off with the draw.
    rows = standings_of(service.tournament, KUTXA).rows
    assert (rows[0].start, rows[0].note) == (2, "1st by play-off")


def test_standings_reach_the_playoff_rounds_page(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00")
    _, _, armageddon = _play_to_armageddon(service)
    old = Frame(service.tournament, service.book)
    acting.set_result(service, armageddon, "1-0", ARBITER, "resignation")  # White wins it
    deltas = diff(service.config, old, Frame(service.tournament, service.book))
    standings = [d for d in deltas if d.message["type"] == "standings"]
    assert len(standings) == 1
    for round_number in (9, 10, 11, 12):  # the last round's page and each play-off game's
        assert f"round:kutxa:{round_number}" in standings[0].keys
    assert standings[0].message["rows"][0]["note"] == "1st by play-off"


def test_a_playoff_game_is_watched_like_a_round_in_play(tmp_path: Path) -> None:
    """The rules take a play-off game for the round being played: a board that stops
    matching it raises the same alert as in any round."""
    service, time_source = service_for(
        tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00"
    )
    _, _, armageddon = _play_to_armageddon(service)
    time_source.advance(60)
    service.commit(
        [GameSync(armageddon, False, time_source.now(), fen="8/8/8/8/8/8/8/8 w - - 0 1")]
    )
    time_source.advance(31)
    service.tick()
    assert [a.game for a in service.alerts() if a.kind == "out-of-sync"] == [armageddon]


# -- Sestao: a bye refused in the regulation's words ------------------------------------------


def _sestao_round(service: EventService, number: int) -> list[Pairing]:
    """Round `number` paired by hand, in starting order (the last one alone: the
    pairing bye)."""
    state = service.tournament.section("Open")
    players = sorted(set(state.players) - state.absent_for(number))
    alone = players.pop() if len(players) % 2 else None
    pairs = [
        Pairing(i, w, b)
        for i, (w, b) in enumerate(zip(players[::2], players[1::2], strict=True), 1)
    ]
    if alone is not None:
        pairs.append(Pairing(0, alone, None))
    acting.publish_pairings(service, "Open", number, pairs, "arbiter", ARBITER)
    return pairs


def test_a_bye_for_a_player_who_must_ask_to_continue_says_so(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-12T12:00:00")
    _sestao_round(service, 1)
    time_source.set(at("2025-09-12T20:00:00"))
    for board in range(1, 13):
        acting.set_result(service, GameKey("Open", 1, board).id, "1-0", ARBITER, "resignation")
    round2 = _sestao_round(service, 2)
    time_source.set(at("2025-09-13T10:40:00"))
    absent = round2[0].white
    acting.set_result(service, GameKey("Open", 2, 1).id, "-/+", ARBITER, "forfeit")
    # Art. 6: out unless they ask to continue; a bye for round 4 is refused for that.
    with pytest.raises(ActionError) as refused:
        acting.request_bye(service, "Open", 4, absent, ARBITER)
    text = str(refused.value)
    assert "withdrawn" not in text
    assert "absent in round 2" in text and "ask in writing to continue" in text
    # Refused at the desk, it is answered there: no alert, nothing journaled.
    assert "bye-refused" not in alert_kinds(service)
    assert not any(isinstance(e.event, ByeRequested) for e in service.journal.read())
    # Pairing them meanwhile is refused with the same reason.
    with pytest.raises(ActionError, match="cannot be paired: the player was absent in round 2"):
        acting.publish_pairings(service, "Open", 3, [Pairing(1, absent, 24)], "arbiter", ARBITER)
    # Once the request to continue is recorded, the bye goes through the policy.
    acting.continue_after_absence(service, "Open", 2, absent, ARBITER)
    acting.request_bye(service, "Open", 4, absent, ARBITER)
    answer = service.tournament.section("Open").bye_log[-1]
    assert isinstance(answer, ByeGranted) and (answer.round, answer.player) == (4, absent)
    assert 4 in service.tournament.section("Open").byes_of(absent)


def test_a_round_one_no_show_at_the_default_time_excludes_the_player(tmp_path: Path) -> None:
    """Sestao art. 6 from the clock's side: nobody at Black's seat at 17:30 (30 minutes),
    the rules propose the forfeit, the arbiter confirms it: excluded, and every output
    says it was a forfeit."""
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-12T12:00:00")
    vega = vega_round1(service.config)
    acting.publish_imported(service, "Open", 1, vega, ARBITER)
    game = GameKey("Open", 1, 1).id
    black = service.book.get(game).black
    assert black is not None
    time_source.set(at("2025-09-12T17:02:00"))
    for board in range(1, 12):
        acting.mark_present(service, GameKey("Open", 1, board).id, "white", ARBITER)
        if board > 1:
            acting.mark_present(service, GameKey("Open", 1, board).id, "black", ARBITER)
    time_source.set(at("2025-09-12T17:30:01"))
    service.tick()
    proposal = service.book.get(game).proposal
    assert proposal is not None and (proposal.result, proposal.reason) == ("+/-", "default-time")
    assert [a.game for a in service.alerts() if a.kind == "result-proposed"] == [game]
    acting.confirm_proposal(service, game, ARBITER)
    state = service.tournament.section("Open")
    assert state.withdrawn[black.start] == 2 and state.no_shows[black.start] == (1,)
    assert "withdraw-from-pairing" in alert_kinds(service)
    assert "absent in round 1" in out_reason(state, black.start, 2)
    pgn = _read(round_pgn(service.book, service.config, "Open", 1))
    read = next(g for g in pgn if g.headers["GameId"] == game)
    assert read.headers["Result"] == "1-0" and read.headers["Termination"] == "Unplayed"
    assert read.comment == "White wins by forfeit (default time)"


def test_withdrawal_forfeits_say_so_in_the_pgn(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    acting.withdraw(service, MASTERS, 8, ARBITER, reason="illness (art. 7)")
    games = _read(round_pgn(service.book, service.config, MASTERS, 1))
    forfeit = next(g for g in games if g.headers["GameId"] == GameKey(MASTERS, 1, 1).id)
    assert forfeit.headers["Result"] == "1-0"
    assert forfeit.comment == "White wins by forfeit (withdrawal)"


# -- the desk: one bye form ---------------------------------------------------------------


async def test_the_desk_has_one_bye_request_form_with_the_override(tmp_path: Path) -> None:
    config = load_event(ROOT / "examples" / "sestao-2025-swiss.toml")
    time_source = ManualTime(at("2025-09-10T12:00:00"))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    try:
        assert await _login(client)
        desk = await (await client.get("/arbiter")).text()
        forms = re.findall(r'<form method="post" action="([^"]+)"', desk)
        assert [f for f in forms if "bye" in f] == [
            "/arbiter/regs/bye-request",
            "/arbiter/regs/bye-cancel",
        ]
        request_form = desk[desk.index('action="/arbiter/regs/bye-request"') :]
        request_form = request_form[: request_form.index("</form>")]
        assert 'name="override"' in request_form
        csrf = re.search(r'name="csrf" value="([^"]+)"', desk)
        assert csrf is not None
        old = await client.post(
            "/arbiter/act/bye",
            data={"section": "open", "round": "3", "player": "5", "csrf": csrf.group(1)},
            allow_redirects=False,
        )
        assert old.status == 404
        form = {"section": "open", "player": "5", "csrf": csrf.group(1)}
        for rnd in ("3", "4", "5"):
            await client.post(
                "/arbiter/regs/bye-request", data={**form, "round": rnd}, allow_redirects=False
            )
        refused = await client.post(
            "/arbiter/regs/bye-request", data={**form, "round": "6"}, allow_redirects=False
        )
        assert unquote(refused.headers["Location"]).endswith(
            "Not done: bye refused: the player already has 3 of the 3 byes allowed"
        )
        forced = await client.post(
            "/arbiter/regs/bye-request",
            data={**form, "round": "6", "override": "on"},
            allow_redirects=False,
        )
        assert "flagged" in forced.headers["Location"]
        assert service.tournament.section("Open").byes_of(5) == {3, 4, 5, 6}
        # The older API route still answers as documented, through the policy.
        body = {"section": "open", "round": 7, "player": 5}
        token = {"X-CSRF-Token": csrf.group(1)}  # the desk's session: its CSRF token
        answer = await client.post("/api/v1/arbiter/byes", json=body, headers=token)
        assert answer.status == 422
        assert "already has 4 of the 3" in (await answer.json())["error"]
    finally:
        await client.close()


def _text(page: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", page))


async def test_the_desk_says_where_the_playoff_stands(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00")
    _, _, armageddon = _play_to_armageddon(service)
    client = TestClient(TestServer(build_app(service, CREDENTIALS)))
    await client.start_server()
    players = service.tournament.section(KUTXA).players
    first, second = f"1 {players[1].name}", f"2 {players[2].name}"
    try:
        assert await _login(client)
        desk = _text(await (await client.get("/arbiter")).text())
        assert f"Kutxa: tie for first between {first}, {second}" in desk
        assert "a play-off game is being played: record its result" in desk
        assert "Kutxa · round 12 · play-off game 3 (armageddon) (live)" in desk
        acting.set_result(service, armageddon, "1/2-1/2", ARBITER, "agreement")
        desk = _text(await (await client.get("/arbiter")).text())
        assert f"decided: {second} is first" in desk
    finally:
        await client.close()


def test_byes_granted_before_a_withdrawal_score_nothing_after_it(tmp_path: Path) -> None:
    """Sestao: player 5 holds byes for rounds 3-5, then withdraws after round 2; the
    rounds paired without them are zero, not half points."""
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    for rnd in (3, 4, 5):
        acting.request_bye(service, "Open", rnd, 5, ARBITER)
    _sestao_round(service, 1)
    time_source.set(at("2025-09-12T20:00:00"))
    for board in range(1, 13):
        acting.set_result(service, GameKey("Open", 1, board).id, "1/2-1/2", ARBITER, "arbiter")
    acting.withdraw(service, "Open", 5, ARBITER, reason="left the event")
    for number in (2, 3):
        _sestao_round(service, number)
        state = service.tournament.section("Open")
        for pairing in state.rounds[number].pairings:
            if pairing.black is not None:
                game = GameKey("Open", number, pairing.board).id
                acting.set_result(service, game, "1-0", ARBITER, "resignation")
    row = next(r for r in standings_of(service.tournament, "Open").rows if r.start == 5)
    assert row.points == 0.5  # round 1's draw only; round 3's bye came after the withdrawal
    assert row.note == "withdrawn from round 2 (left the event)"
