"""Play one round of the 60-table Sestao hall through, in virtual time, and export it.

    .venv/bin/python examples/rehearse_hall.py [--out DIR] [--round-start now]

The event is `sestao-2025-swiss-hall.toml` as a rehearsal sees it (its schedule moved so
that round 1 starts now: `broadcast.config.rehearsal`); time is a manual clock, so a
four-hour round takes a few seconds. Everything the arbiter and the players do goes
through the one door (`broadcast.actions.act`), as the desk, the hall view, the results
table, the table page and the API do:

- the 12 wired tables: the e-boards' moves (the reconstruction's `GameMove` events, from
  the sample games), the result signalled on the board and confirmed by the arbiter;
- the 48 tables without an e-board: at the start the players check in on the table page
  (`MarkPresent(check_in=True)`), the arbiter's hall walk at the default time marks the
  rest present and one absentee (`MarkAbsent`: a forfeit, confirmed); the results come
  from the players' entries on the table page (`ProposeAtTable` + `ConfirmAtTable`) and
  from the arbiter's results table (`SetResult`); after the round every scoresheet is
  typed in (`EnterScoresheet`, PGN text).

It writes round-1.pgn, event.trf and summary.txt to `--out` and prints the summary. The
test `tests/test_rehearsal_hall.py` runs it and checks the exports are complete. For the
real thing on emulated boards (in real time, with the desk), see docs/event-day.md:
`boardwire serve examples/sestao-2025-swiss-hall.toml --sim ...`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

ROOT = Path(__file__).resolve().parent.parent
EVENT = ROOT / "examples" / "sestao-2025-swiss-hall.toml"
GAMES = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
BY = "arbiter:rehearsal"
SECTION = "Open"
ABSENT_TABLE = 40  # its Black does not come: a forfeit at the default time
PLAYERS_ENTER = range(13, 31)  # these tables' players enter their result on the table page


@dataclass
class Round:
    """What one played round left: its exports and counts."""

    pgn: str
    trf: str
    games: int
    wired: int
    scoresheets: int
    by_players: int
    forfeits: int


def _sample_games() -> list[chess.pgn.Game]:
    games = []
    with GAMES.open(encoding="utf-8") as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    return games


def _result_of(game: chess.pgn.Game) -> str:
    result = game.headers.get("Result", "*")
    return result if result in ("1-0", "0-1", "1/2-1/2") else "1/2-1/2"


def _reason(result: str) -> str:
    return "agreement" if result == "1/2-1/2" else "resignation"


def play_round(service, time_source, games: list[chess.pgn.Game] | None = None) -> Round:  # type: ignore[no-untyped-def]
    """Round 1 of the hall on `service` (an `EventService` on the hall's config, round 1
    paired or not) with `time` its `ManualTime`, from round 1's start to its exports."""
    from broadcast.actions import (
        ConfirmProposal,
        EnterScoresheet,
        MarkPresent,
        SetResult,
        act,
    )
    from broadcast.actions.alerts import MarkAbsent
    from broadcast.actions.pairings import pair_unpaired
    from broadcast.actions.table import ConfirmAtTable, ProposeAtTable
    from broadcast.config.tables import table_of
    from broadcast.export.pgn import round_pgn
    from broadcast.export.trf import section_trf
    from broadcast.games.game_events import GameMove, ResultProposed

    games = games or _sample_games()
    config = service.config

    def do(command: object, by: str = BY) -> None:
        act(service, command, by, confirm=True)  # type: ignore[arg-type]

    pair_unpaired(service, by=BY)
    section = config.section(SECTION)
    start = section.round_start(1).start.timestamp()
    if time_source.now() < start:
        time_source.set(start)
    round_games = list(service.book.round_games(SECTION, 1))
    wired_tables = {b.table or b.number for b in config.boards}
    played: dict[str, chess.pgn.Game] = {}
    wired = [g for g in round_games if table_of(config, SECTION, g.key.board) in wired_tables]
    unwired = [g for g in round_games if g not in wired]
    absent = next(g for g in unwired if table_of(config, SECTION, g.key.board) == ABSENT_TABLE)

    # The start: players check in at their table (half of them; the hall walk does the rest).
    time_source.advance(60)
    for n, game in enumerate(unwired):
        if game is absent or n % 2:
            continue
        do(MarkPresent(game.id, "both", check_in=True), f"player:{SECTION}:{game.white.start}")

    # The e-boards: each wired table plays a sample game, move by move, as its board reads it.
    for n, game in enumerate(wired):
        sample = games[n % len(games)]
        played[game.id] = sample
        board = chess.Board()
        events = []
        t = time_source.now()
        for move in sample.mainline_moves():
            san = board.san(move)
            board.push(move)
            t += 45.0
            events.append(GameMove(game.id, len(board.move_stack), san, move.uci(), board.fen(), t))
        with service.batch():
            service.commit(events)

    # The default time: the arbiter's hall walk (the hall view, table by table).
    time_source.set(start + section.default_time_minutes * 60 + 1)
    for n, game in enumerate(unwired):
        if game is absent:
            do(MarkAbsent(game.id, "black"))
        elif n % 2:
            do(MarkPresent(game.id, "both"))
    forfeits = 0
    if service.book.get(absent.id).proposal is not None:
        do(ConfirmProposal(absent.id))
    else:
        do(SetResult(absent.id, "+/-", "default-time"))
    forfeits += 1

    # Four hours later: results. Wired tables signal them on the board; the arbiter confirms.
    time_source.set(start + 4 * 3600)
    for game in wired:
        result = _result_of(played[game.id])
        with service.batch():
            service.commit([ResultProposed(game.id, result, _reason(result), time_source.now())])
        do(ConfirmProposal(game.id))
        time_source.advance(5)
    by_players = 0
    for n, game in enumerate(unwired):
        if game is absent:
            continue
        sample = games[(n + 3) % len(games)]
        played[game.id] = sample
        result = _result_of(sample)
        table = table_of(config, SECTION, game.key.board)
        if table in PLAYERS_ENTER and result != "1/2-1/2":  # early draws go to the arbiter
            do(ProposeAtTable(game.id, "white", result), f"player:{SECTION}:{game.white.start}")
            do(ConfirmAtTable(game.id, "black"), f"player:{SECTION}:{game.black.start}")
            by_players += 1
        else:  # the arbiter's results table: the table number, one tap
            do(SetResult(game.id, result, _reason(result)))
        time_source.advance(5)

    # After the round: the scoresheets of the tables without an e-board, typed in.
    scoresheets = 0
    for game in unwired:
        if game is absent:
            continue
        text = str(played[game.id])  # the PGN as a program exports it, headers and all
        do(EnterScoresheet(game.id, text))
        scoresheets += 1

    pgn = round_pgn(service.book, config, SECTION, 1, tournament=service.tournament)
    trf = section_trf(service.tournament, config, SECTION)
    return Round(pgn, trf, len(round_games), len(wired), scoresheets, by_players, forfeits)


def rehearsal_service(db: Path, now: float):  # type: ignore[no-untyped-def]
    """The hall's event as a rehearsal at `now` (epoch seconds), on a new journal `db`."""
    from broadcast.cli.rehearsal import rehearse
    from broadcast.config import load_event
    from broadcast.journal.store import Journal
    from broadcast.service.event_service import EventService
    from clocks.timesource import ManualTime

    journal = Journal(db)
    config = rehearse(load_event(EVENT), journal, now, 1)
    time_source = ManualTime(now)
    service = EventService(config, journal, time_source=time_source, live_round=1)
    service.load()
    return service, time_source


def summary(played: Round) -> str:
    return (
        f"round 1: {played.games} games on {played.games} tables, {played.wired} wired; "
        f"{played.scoresheets} scoresheets typed in, {played.by_players} results entered by "
        f"the players, {played.forfeits} forfeit"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, help="where to write round-1.pgn and event.trf")
    args = parser.parse_args(argv)
    sys.path[:0] = [str(ROOT), str(ROOT / "hardware-sim")]
    out = args.out or Path(tempfile.mkdtemp(prefix="sestao-hall-"))
    out.mkdir(parents=True, exist_ok=True)
    now = dt.datetime.now(dt.UTC).replace(microsecond=0).timestamp()
    # A new journal each time: a round is played once per journal.
    journal = Path(tempfile.mkdtemp(prefix="sestao-hall-journal-")) / "rehearsal.sqlite"
    service, time_source = rehearsal_service(journal, now)
    played = play_round(service, time_source)
    (out / "round-1.pgn").write_text(played.pgn, encoding="utf-8")
    (out / "event.trf").write_text(played.trf, encoding="utf-8")
    text = summary(played)
    (out / "summary.txt").write_text(text + "\n", encoding="utf-8")
    print(text)
    print(f"written: {out / 'round-1.pgn'}, {out / 'event.trf'} (journal {journal})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
