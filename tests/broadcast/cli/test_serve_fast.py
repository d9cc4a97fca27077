"""`serve --sim` at forty times human speed records every move on every board.

The reported failure: at 40x, `serve` recorded no move at all on any of four boards,
while at 5x it worked. The emulated players started on a fixed real-time head start (3 s),
and a service slower than that to come up (imports, journal, web, handshakes on a loaded
machine) first saw each board in the middle of its game, 120 s of play later, with no
start position to follow from. Here the web start is made slow on purpose: the players
must wait until the service follows every board.
"""

from __future__ import annotations

import argparse
import asyncio
import io
from pathlib import Path

import chess.pgn
import pytest

import web.app
from broadcast.cli import serve as cli_serve
from broadcast.service.event_service import EventService
from tests.support.paths import ROOT

EVENT = ROOT / "examples" / "pamplona-masters.toml"
SAMPLE = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
SPEED = 40.0
PLIES = 16
SLOW_START = 3.5  # real seconds: longer than the old fixed head start of the players


def short_games(path: Path, count: int) -> list[list[str]]:
    """The sample's openings, without clock comments (5 s of sim time per move)."""
    games, out = [], io.StringIO()
    with SAMPLE.open(encoding="utf-8") as f:
        while len(games) < count and (game := chess.pgn.read_game(f)) is not None:
            moves = list(game.mainline_moves())[:PLIES]
            short = chess.pgn.Game()
            short.headers["TimeControl"] = "900+10"
            short.add_line(moves)
            games.append([m.uci() for m in moves])
            print(short, file=out, end="\n\n")
    path.write_text(out.getvalue(), encoding="utf-8")
    return games


async def test_serve_at_40x_records_every_move_even_when_it_starts_slowly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    played = short_games(tmp_path / "games.pgn", 4)
    real_start_web = web.app.start_web

    async def slow_start_web(*args: object, **kw: object) -> object:
        await asyncio.sleep(SLOW_START)  # a loaded machine: everything takes longer
        return await real_start_web(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(web.app, "start_web", slow_start_web)
    args = argparse.Namespace(
        event=EVENT,
        db=tmp_path / "j.sqlite",
        host="127.0.0.1",
        port=0,
        board=[],
        sim=True,
        speed=SPEED,
        games=tmp_path / "games.pgn",
        round=1,
        delay=0.0,
    )
    up: asyncio.Future[EventService] = asyncio.get_running_loop().create_future()
    serving = asyncio.ensure_future(cli_serve.serve(args, credentials=None, started=up.set_result))
    try:
        service = await asyncio.wait_for(asyncio.shield(up), 60)

        def recorded() -> list[list[str]]:
            return [
                [m.uci for m in service.book.get(f"masters-r1-b{n}").moves] for n in range(1, 5)
            ]

        loop = asyncio.get_running_loop()
        deadline = loop.time() + 75  # generous: a loaded machine; not a timing goal
        while recorded() != played and loop.time() < deadline:
            await asyncio.sleep(0.1)
        assert recorded() == played
        service.stop()
        assert await asyncio.wait_for(serving, 30) == 0
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
