"""The three regulations applied at runtime, each played through the service: imports,
desk actions and board events, asserting standings, pairing eligibility, alerts and
exports (Sestao: byes and no-shows; Pamplona: elimination; Donostia: play-off)."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from broadcast.config import load_event
from broadcast.config.model import EventConfig, WithdrawalRules
from broadcast.export.pgn import game_pgn
from broadcast.export.trf import section_trf
from broadcast.fide.crosstable import Bye, Game, Player, ResultCode, build_crosstable
from broadcast.fide.pairing import Pairing
from broadcast.fide.standings import Standings
from broadcast.fide.trf import write_trf
from broadcast.games.ids import GameKey
from broadcast.journal.store import Journal
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.final_standings import playoff_now, section_prizes, section_standings
from broadcast.tournament.playoff import PlayoffStatus, time_control_for
from broadcast.tournament.prizes import PrizeList
from broadcast.tournament.tournament_events import (
    ByeGranted,
    ByeRequested,
    PlayerWithdrawn,
    PlayoffGamePaired,
)
from broadcast.tournament.tournament_state import TournamentState
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT

MADRID = ZoneInfo("Europe/Madrid")
ARBITER = "arbiter:ana"


def at(text: str) -> float:
    """Epoch seconds of a Madrid wall-clock time."""
    return dt.datetime.fromisoformat(text).replace(tzinfo=MADRID).timestamp()


def service_for(tmp_path: Path, name: str, start: str) -> tuple[EventService, ManualTime]:
    config = load_event(ROOT / "examples" / name)
    time_source = ManualTime(at(start))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    return service, time_source


def standings_of(tournament: TournamentState, section: str) -> Standings:
    """The section's standings as its regulations rank them."""
    return section_standings(tournament.section(section), tournament.event.tiebreak_edition)


def prizes_of(tournament: TournamentState, section: str) -> PrizeList | None:
    """The section's prize list (None without [section.prizes])."""
    return section_prizes(tournament.section(section), tournament.event.tiebreak_edition)


def playoff_of(tournament: TournamentState, section: str) -> PlayoffStatus | None:
    """Where the section's play-off for first stands (None without a tie)."""
    return playoff_now(tournament.section(section), tournament.event.tiebreak_edition)


def alert_kinds(service: EventService) -> list[str]:
    return [a.kind for a in service.alerts()]


def row_of(service: EventService, section: str, start: int) -> dict[str, object]:
    rows = standings_of(service.tournament, section).as_json()
    return next(r for r in rows if r["start"] == start)


# -- Sestao (Swiss, Vega) ----------------------------------------------------------------


def vega_round1(config: EventConfig) -> str:
    """Vega's TRF after pairing round 1: players 1-22 paired in order, 23 asked for a
    half-point bye (H), 24 not paired (Z)."""
    section = config.sections[0]
    players = [Player(p.number, p.name) for p in section.players]
    games = [Game(1, w, w + 1, None) for w in range(1, 22, 2)]
    byes = [Bye(1, 23, ResultCode.HALF_BYE), Bye(1, 24, ResultCode.ZERO_BYE)]
    return write_trf(build_crosstable(players, 9, games, byes))


def test_sestao_byes_no_shows_and_the_draw_rule(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "sestao-2025-swiss.toml", "2025-09-10T12:00:00")
    open_ = "Open"

    # Art. 5: byes through the policy. Up to 3, before the previous round's start.
    for rnd in (3, 4, 5):
        acting.request_bye(service, open_, rnd, 5, ARBITER)
    with pytest.raises(ActionError, match="already has 3 of the 3"):
        acting.request_bye(service, open_, 6, 5, ARBITER)
    with pytest.raises(ActionError, match="no byes in round 8"):
        acting.request_bye(service, open_, 8, 6, ARBITER)
    with pytest.raises(ActionError, match="no byes in round 9"):
        acting.request_bye(service, open_, 9, 6, ARBITER)
    # A request refused at the desk is answered there: nothing journaled, no alert.
    assert "bye-refused" not in alert_kinds(service)
    requests = [e.event for e in service.journal.read() if isinstance(e.event, ByeRequested)]
    assert [r.round for r in requests] == [3, 4, 5]
    # The chief arbiter may still decide otherwise: journaled and flagged.
    done = acting.request_bye(service, open_, 6, 5, ARBITER, override=True)
    assert acting.journaled(done, ByeGranted).override.startswith("the player already has 3")
    assert "arbiter-override" in alert_kinds(service)
    assert service.tournament.section(open_).byes_of(5) == {3, 4, 5, 6}
    # A cancellation before the deadline frees the round.
    acting.cancel_bye(service, open_, 6, 5, ARBITER)
    assert 6 not in service.tournament.section(open_).byes_of(5)

    # Round 1 as Vega paired it: the H bye scores half a point.
    acting.publish_imported(service, open_, 1, vega_round1(service.config), ARBITER)
    assert service.tournament.section(open_).rounds[1].bye_codes[23] == "H"
    # ...and counts towards the maximum of 3.
    assert 1 in service.tournament.section(open_).byes_of(23)

    # Round 1 is played. A late bye request (round 2 closes at round 1's start) is refused.
    time_source.set(at("2025-09-12T17:00:00"))
    with pytest.raises(ActionError, match="too late"):
        acting.request_bye(service, open_, 2, 7, ARBITER)

    # An early draw entered at the desk is checked like one from the board.
    early = acting.set_result(service, GameKey(open_, 1, 1).id, "1/2-1/2", ARBITER)
    assert [a.kind for a in early.raised] == ["early-draw"]
    # A draw the arbiter gives for another reason (a claim) is not an agreement.
    claim = acting.set_result(service, GameKey(open_, 1, 2).id, "1/2-1/2", ARBITER, "arbiter")
    assert claim.raised == ()
    with pytest.raises(ActionError, match="needs the reason forfeit"):
        acting.set_result(service, GameKey(open_, 1, 3).id, "+/-", ARBITER, "arbiter")

    # Art. 6: absent at the start of round 1 (Black of board 3 is player 6): excluded.
    acting.set_result(service, GameKey(open_, 1, 3).id, "+/-", ARBITER)
    section = service.tournament.section(open_)
    assert section.no_shows[6] == (1,) and section.withdrawn[6] == 2
    assert "withdraw-from-pairing" in alert_kinds(service)
    assert 6 not in {
        p
        for pair in acting.dutch_pairings(service, open_, 2, override=True)
        for p in pair.players()
    }

    # The rest of round 1: board results from the board's own signal and the desk.
    time_source.advance(3 * 3600)
    for board in range(4, 12):
        acting.set_result(service, GameKey(open_, 1, board).id, "1-0", ARBITER, "resignation")
    rows = standings_of(service.tournament, open_).as_json()
    assert next(r for r in rows if r["start"] == 23)["points"] == 0.5
    assert (
        next(r for r in rows if r["start"] == 6)["note"]
        == "withdrawn from round 2 (absent in round 1)"
    )

    # Round 2, paired by hand; a single absence disqualifies unless the player asks to go on.
    players = sorted(set(section.players) - {5, 6})
    pairs = [
        Pairing(i, w, b)
        for i, (w, b) in enumerate(zip(players[::2], players[1::2], strict=True), 1)
    ]
    with pytest.raises(ActionError, match="cannot be paired"):
        acting.publish_pairings(service, open_, 2, [Pairing(1, 6, 1)], "arbiter", ARBITER)
    acting.publish_pairings(service, open_, 2, pairs, "arbiter", ARBITER)
    time_source.set(at("2025-09-13T10:00:00"))
    # Round 3's byes closed at round 2's start: cancelling one is too late now.
    with pytest.raises(ActionError, match="too late to cancel"):
        acting.cancel_bye(service, open_, 3, 5, ARBITER)
    absent_white = pairs[0].white
    acting.set_result(service, GameKey(open_, 2, 1).id, "-/+", ARBITER, "forfeit")
    assert "absence-disqualifies" in alert_kinds(service)
    assert absent_white in service.tournament.section(open_).absent_for(3)
    acting.continue_after_absence(service, open_, 2, absent_white, ARBITER)
    assert absent_white not in service.tournament.section(open_).absent_for(3)
    # Player 2 also forfeits in round 2 and does not ask in time.
    other = pairs[1]
    acting.set_result(service, GameKey(open_, 2, 2).id, "+/-", ARBITER, "forfeit")
    for board in range(3, len(pairs) + 1):
        acting.set_result(service, GameKey(open_, 2, board).id, "0-1", ARBITER, "resignation")
    round3 = acting.dutch_pairings(service, open_, 3)
    assert other.black not in {p for pair in round3 for p in pair.players()}
    acting.publish_pairings(service, open_, 3, round3, "dutch", ARBITER)
    with pytest.raises(ActionError, match="already paired"):
        acting.continue_after_absence(service, open_, 2, other.black, ARBITER)
    assert row_of(service, open_, other.black)["note"] == "disqualified: absent in round 2"

    # Exports: the TRF carries the H bye, the forfeits and who is out.
    trf = section_trf(service.tournament, service.config, open_)
    line23 = next(line for line in trf.splitlines() if line.startswith("001   23"))
    assert line23[91:99] == "0000 - H"
    line6 = next(line for line in trf.splitlines() if line.startswith("001    6"))
    assert line6[91:99].endswith("-")
    assert "###    6 withdrawn from round 2 (absent in round 1)" in trf.splitlines()

    # A restart replays the journal into the same state and raises nothing twice.
    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    assert again.tournament.section(open_).withdrawn == {6: 2}
    assert len(again.alerts()) == len(service.rules.open_alerts())


# -- Pamplona (round robin, zero default time) --------------------------------------------


def test_pamplona_two_missed_games_eliminate_and_forfeit_the_rest(tmp_path: Path) -> None:
    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T16:00:00")
    masters = "Masters"
    # Round 1 (1-8, 2-7, 3-6, 4-5): player 5 (Black on board 4) never comes. With a zero
    # default time the rules ask the arbiter to check, and the arbiter records the forfeit.
    time_source.set(at("2025-12-22T17:06:00"))
    service.tick()
    assert "check-presence" in alert_kinds(service)
    acting.set_result(service, GameKey(masters, 1, 4).id, "+/-", ARBITER)
    assert service.tournament.section(masters).no_shows == {5: (1,)}
    for board, result in ((1, "1-0"), (2, "0-1"), (3, "1-0")):
        acting.set_result(service, GameKey(masters, 1, board).id, result, ARBITER, "resignation")

    # Round 2 (8-5 on board 1): a second missed game eliminates player 5 (art. 8).
    time_source.set(at("2025-12-23T16:10:00"))
    acting.set_result(service, GameKey(masters, 2, 1).id, "+/-", ARBITER, "forfeit")
    section = service.tournament.section(masters)
    assert section.no_shows[5] == (1, 2)
    assert section.withdrawn[5] == 3
    assert "withdraw-from-pairing" in alert_kinds(service)
    # Every later game of player 5 is a forfeit won by the opponent, on every page...
    for number in range(3, 8):
        pairing = section.rounds[number].game_of(5)
        assert pairing is not None and pairing.black is not None
        game = service.book.get(GameKey(masters, number, pairing.board).id)
        assert game.result == ("-/+" if pairing.white == 5 else "+/-")
        recorded = section.rounds[number].results[pairing.white].result
        assert recorded == ("-+" if pairing.white == 5 else "+-")
    # ...and in the PGN export,
    forfeited = section.rounds[4].game_of(5)
    assert forfeited is not None
    pgn = game_pgn(service.book.get(GameKey(masters, 4, forfeited.board).id), service.config)
    expected = "0-1" if forfeited.white == 5 else "1-0"
    assert f'[Result "{expected}"]' in pgn and '[Termination "Unplayed"]' in pgn
    # ...and they are not more no-shows.
    assert section.no_shows[5] == (1, 2)
    assert service.public_state().tournament.section(masters).withdrawn[5] == 3
    row = row_of(service, masters, 5)
    # Out before playing a game (0 of 7, under half): FIDE's withdrawal rule (Pamplona
    # art. 1) leaves 5's results, and those against 5, out of the standings.
    assert row["note"] == (
        "withdrawn from round 3 (2 no-shows); "
        "results left out: 0 of 7 games played, under half (FIDE withdrawal rule)"
    )
    assert row["points"] == 0.0 and row["excluded"]

    # The rest of the event: everybody else draws, except player 1 who wins every game.
    for number in range(2, 8):
        for pairing in section.rounds[number].pairings:
            game = service.book.get(GameKey(masters, number, pairing.board).id)
            if game.result is not None:
                continue
            if 1 in pairing.players():
                result = "1-0" if pairing.white == 1 else "0-1"
                acting.set_result(service, game.id, result, ARBITER, "resignation")
            else:
                acting.set_result(service, game.id, "1/2-1/2", ARBITER, "agreement")
    standings = standings_of(service.tournament, masters)
    # 1 won all 7, one by forfeit against 5: that one is left out with 5's results.
    assert standings.rows[0].start == 1 and standings.rows[0].points == 6.0
    assert standings.rows[-1].start == 5 and standings.rows[-1].excluded
    prizes = prizes_of(service.tournament, masters)
    assert prizes is not None and not prizes.provisional
    by_player = {p.start: p for p in prizes.lines}
    assert by_player[1].place == 2000.0
    # Wins: player 1 six (the forfeit against 5 is left out, as are the other forfeit
    # wins against 5), 7 and 3 one each in round 1: 8 wins share 3500.
    assert by_player[1].pool == pytest.approx(3500 * 6 / 8, abs=0.01)
    assert sum(p.pool for p in prizes.lines) == pytest.approx(3500.0, abs=0.05)  # cents
    # Tied players share the place prizes of the places they occupy.
    assert sum(p.place for p in prizes.lines) == pytest.approx(3500.0)

    # The TRF export: 5's rounds are forfeits, and the comment says why.
    trf = section_trf(service.tournament, service.config, masters)
    assert "###    5 withdrawn from round 3 (2 no-shows)" in trf.splitlines()

    # A restart rebuilds the same event from the journal, raising nothing again.
    again = EventService(service.config, service.journal, time_source=time_source, delay=0)
    again.load()
    assert again.tournament.section(masters) == service.tournament.section(masters)
    assert [a.id for a in again.alerts()] == [a.id for a in service.alerts()]
    assert again.rules.tick(time_source.now() + 60, again.state) == []


def test_a_withdrawal_at_the_desk_forfeits_the_remaining_games(tmp_path: Path) -> None:
    service, _ = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T20:00:00")
    acting.set_result(service, GameKey("Masters", 1, 1).id, "1-0", ARBITER, "resignation")
    done = acting.withdraw(service, "Masters", 1, ARBITER, reason="illness (art. 7)")
    assert acting.journaled(done, PlayerWithdrawn).from_round == 2
    with pytest.raises(ActionError, match="already withdrawn"):
        acting.withdraw(service, "Masters", 1, ARBITER)
    section = service.tournament.section("Masters")
    assert section.rounds[1].results[1].result == "1-0"  # played games stand
    for number in range(2, 8):
        pairing = section.rounds[number].game_of(1)
        assert pairing is not None
        assert section.rounds[number].results[pairing.white].result in ("+-", "-+")
    assert section.no_shows == {}


# -- Donostia (round robin, play-off for first) ------------------------------------------


def tie_one_and_two(service: EventService, name: str) -> None:
    """Every round of the section played: 1 and 2 beat everybody else and draw each other
    (a tie for first); every other game is drawn."""
    section = service.tournament.section(name)
    for number in range(1, section.config.rounds + 1):
        for pairing in section.rounds[number].pairings:
            top = {1, 2} & set(pairing.players())
            result = "1/2-1/2"
            if len(top) == 1:
                result = "1-0" if pairing.white in top else "0-1"
            acting.set_result(service, GameKey(name, number, pairing.board).id, result, ARBITER)


def test_donostia_tie_for_first_goes_to_a_playoff_on_the_boards(tmp_path: Path) -> None:
    service, time_source = service_for(
        tmp_path, "donostia-2009-round-robin.toml", "2009-07-16T20:00:00"
    )
    name = "Diputacion Foral"
    section = service.tournament.section(name)
    for number in range(1, 10):
        for pairing in section.rounds[number].pairings:
            game_id = GameKey(name, number, pairing.board).id
            top = {1, 2} & set(pairing.players())
            if len(top) == 1:  # 1 and 2 beat everybody else, draw each other
                winner = top.pop()
                result = "1-0" if pairing.white == winner else "0-1"
                acting.set_result(service, game_id, result, ARBITER, "resignation")
            else:
                acting.set_result(service, game_id, "1/2-1/2", ARBITER, "agreement")
        if number == 8:  # 1 and 2 lead together, but a round is left: no play-off yet
            live = standings_of(service.tournament, name).rows
            assert live[0].points == live[1].points and not live[0].undecided
    rows = standings_of(service.tournament, name).rows
    assert [(r.start, r.rank, r.undecided) for r in rows[:3]] == [
        (rows[0].start, 1, True),
        (rows[1].start, 1, True),
        (rows[2].start, 3, False),
    ]
    assert {rows[0].start, rows[1].start} == {1, 2}
    assert rows[0].note == "play-off for 1st pending"

    # Two blitz games on the section's first board, broadcast like any game.
    with pytest.raises(ActionError, match="only players still in the play-off"):
        acting.pair_playoff_game(service, name, 1, 3, ARBITER)
    first = acting.pair_playoff_game(service, name, 1, 2, ARBITER)
    assert acting.journaled(first, PlayoffGamePaired).kind == "blitz"
    game1 = acting.playoff_game(service, name, 1)
    assert game1 == "diputacion-foral-r10-b1"
    assert service.live_rounds()[name] == 10
    assert service.hall[1].game == game1
    assert service.public_state().book.get(game1).white is not None
    with pytest.raises(ActionError, match="still being played"):
        acting.pair_playoff_game(service, name, 2, 1, ARBITER)
    acting.set_result(service, game1, "1-0", ARBITER, "resignation")
    time_source.advance(900)
    acting.pair_playoff_game(service, name, 2, 1, ARBITER)
    game2 = acting.playoff_game(service, name, 2)
    assert service.hall[1].game == game2
    acting.set_result(service, game2, "1-0", ARBITER, "flag-fall")
    # Still level: the Armageddon (5 minutes for White, 4 for Black) on the same board.
    time_source.advance(900)
    armageddon = acting.pair_playoff_game(service, name, 1, 2, ARBITER)
    assert acting.journaled(armageddon, PlayoffGamePaired).kind == "armageddon"
    game3 = acting.playoff_game(service, name, 3)
    state = service.tournament.section(name)
    tc = time_control_for(state.config, state, state.playoff_round(3))
    assert (tc.initial_seconds("white"), tc.initial_seconds("black")) == (300, 240)
    assert service.hall[1].game == game3
    assert standings_of(service.tournament, name).rows[0].undecided  # not played yet
    # A draw: Black (player 2) wins the play-off and first place.
    acting.set_result(service, game3, "1/2-1/2", ARBITER, "agreement")
    rows = standings_of(service.tournament, name).rows
    assert [(r.start, r.rank, r.undecided) for r in rows[:2]] == [(2, 1, False), (1, 2, False)]
    assert rows[0].note == "1st by play-off"
    with pytest.raises(ActionError, match="decided"):
        acting.pair_playoff_game(service, name, 1, 2, ARBITER)
    # The play-off games are in the PGN like any game, with their own time control.
    pgn = game_pgn(service.book.get(game1), service.config, tournament=service.tournament)
    assert '[TimeControl "300"]' in pgn and '[Result "1-0"]' in pgn
    # The TRF ranks by the play-off too, and the crosstable holds only the 9 rounds.
    trf = section_trf(service.tournament, service.config, name).splitlines()
    line2 = next(line for line in trf if line.startswith("001    2"))
    assert line2[85:89].strip() == "1"
    assert service.tournament.section(name).to_crosstable().rounds == 9


def test_standings_cli_shows_the_status_and_the_prizes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from broadcast.cli import main

    service, time_source = service_for(tmp_path, "pamplona-masters.toml", "2025-12-22T20:00:00")
    acting.set_result(service, GameKey("Masters", 1, 4).id, "+/-", ARBITER)
    time_source.set(at("2025-12-23T20:00:00"))
    acting.set_result(service, GameKey("Masters", 2, 1).id, "+/-", ARBITER)
    service.journal.close()
    event, db = ROOT / "examples" / "pamplona-masters.toml", tmp_path / "j.sqlite"
    assert main(["standings", "--event", str(event), "--db", str(db), "--prizes"]) == 0
    text = capsys.readouterr().out
    assert "[withdrawn from round 3 (2 no-shows); results left out: 0 of 7" in text
    assert "Prizes" in text and "(amounts in EUR)" in text
    args = ["standings", "--event", str(event), "--db", str(db), "--prizes", "--json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    pools = sum(p["pool"] for p in data["Masters"]["prizes"]["prizes"])
    # Both wins so far are forfeits against 5, whose results FIDE's withdrawal rule
    # leaves out (no game played): nobody has a win for the pool yet.
    assert pools == 0


def test_a_withdrawal_can_remove_the_remaining_games_instead(tmp_path: Path) -> None:
    config = load_event(ROOT / "examples" / "pamplona-masters.toml")
    masters = dataclasses.replace(
        config.sections[0], withdrawal=WithdrawalRules(remaining_games="remove")
    )
    config = dataclasses.replace(config, sections=(masters,))
    time_source = ManualTime(at("2025-12-22T20:00:00"))
    service = EventService(config, Journal(tmp_path / "j.sqlite"), time_source=time_source, delay=0)
    service.load()
    acting.withdraw(service, "Masters", 8, ARBITER, from_round=3)
    section = service.tournament.section("Masters")
    assert section.rounds[2].game_of(8) is not None  # before the withdrawal: kept
    for number in range(3, 8):
        assert section.rounds[number].game_of(8) is None
        assert section.rounds[number].results == {}
    assert section.to_crosstable().entry(8, 4).result == ResultCode.ZERO_BYE


async def test_a_playoff_game_is_played_on_a_board_and_broadcast(tmp_path: Path) -> None:
    """Donostia: the play-off's first blitz game on the section's first hall board, read
    from the (emulated) board move by move, ends by checkmate; the arbiter confirms it."""
    import asyncio

    import chess.pgn

    from broadcast.cli.simboards import start_simulated_boards
    from clocks.timesource import EpochTime

    full = load_event(ROOT / "examples" / "donostia-2009-round-robin.toml")
    name = "Diputacion Foral"
    config = dataclasses.replace(
        full,
        sections=(full.section(name),),
        boards=tuple(b for b in full.boards if b.section == name),
    )
    speed = 20.0
    time_source = EpochTime(speed)
    hall, ports = await start_simulated_boards(config, time_source)
    service = EventService(
        config,
        Journal(tmp_path / "j.sqlite"),
        time_source=time_source,
        port_overrides=ports,
        delay=0,
    )
    service.load()
    tie_one_and_two(service, name)
    acting.pair_playoff_game(service, name, 1, 2, ARBITER)
    game_id = acting.playoff_game(service, name, 1)
    mate = chess.pgn.Game()
    node: chess.pgn.GameNode = mate
    for san in ["e4", "e5", "Qh5", "Nc6", "Bc4", "Nf6", "Qxf7#"]:
        node = node.add_main_variation(node.board().parse_san(san))
    mate.headers["TimeControl"] = "300"
    runner = asyncio.ensure_future(service.run())
    try:
        await hall.play(1, mate, time_source, speed=speed, delay=1.0)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 60
        while service.book.get(game_id).proposal is None:
            assert loop.time() < deadline, "no result proposed from the board"
            await asyncio.sleep(0.05)
        game = service.book.get(game_id)
        assert game.proposal is not None and game.proposal.reason == "checkmate"
        assert [m.san for m in game.moves][-1] == "Qxf7#"
        # Broadcast (no delay) once the batch with the mate is durable: the live state may
        # be a moment ahead of it while its fsync runs.
        while service.public_state().book.get(game_id).ply != 7:
            assert loop.time() < deadline, "the mate never reached the public view"
            await asyncio.sleep(0.05)
        acting.confirm_proposal(service, game_id, ARBITER)
        playoff = service.tournament.section(name).playoff[1]
        assert playoff.result == "1-0"
        # One game of two: still undecided, the next one is blitz.
        status = playoff_of(service.tournament, name)
        assert status is not None and status.next_kind == "blitz" and not status.decided
        assert standings_of(service.tournament, name).rows[0].undecided
    finally:
        service.stop()
        await runner
        await hall.stop()
