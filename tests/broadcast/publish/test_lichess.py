"""The Lichess push relay against a local stand-in for the push endpoint.

The stand-in checks what Lichess would check (the bearer token, a text/plain body of PGN
games separated by blank lines), answers one entry per game like Lichess does, and can
fail the first requests (5xx, 429 with Retry-After, a dropped connection)."""

from __future__ import annotations

import io
import logging
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import chess.pgn
import pytest
from aiohttp import web

from broadcast.export.pgn import round_game_texts
from broadcast.fide.berger import berger_round
from broadcast.games.book import GameBook
from broadcast.games.game_events import ResultConfirmed
from broadcast.games.ids import GameKey
from broadcast.publish.lichess import (
    TOKEN_ENV,
    LichessPusher,
    LichessPushError,
    LichessRelayConfig,
)
from tests.support.export import T0, event, paired, play, random_line

TOKEN = "lip_secretTOKEN123"
ROUND = "AbCd1234"


@dataclass
class StandIn:
    """What the stand-in received, and how it should misbehave."""

    fail: list[tuple[int, dict[str, str]]] = field(default_factory=list)  # (status, headers)
    drop: int = 0  # connections to drop before answering
    refuse: set[str] = field(default_factory=set)  # White names to answer with an error
    bodies: list[list[chess.pgn.Game]] = field(default_factory=list)
    requests: int = 0
    url: str = ""

    def sent_whites(self) -> list[list[str]]:
        return [[g.headers["White"] for g in body] for body in self.bodies]


STATE = web.AppKey("state", StandIn)


async def _push(request: web.Request) -> web.StreamResponse:
    state = request.app[STATE]
    state.requests += 1
    if state.drop:
        state.drop -= 1
        assert request.transport is not None
        request.transport.close()  # the client sees a dropped connection
        return web.Response()
    if state.fail:
        status, headers = state.fail.pop(0)
        return web.Response(status=status, text="stand-in failure", headers=headers)
    if request.headers.get("Authorization") != f"Bearer {TOKEN}":
        return web.json_response({"error": "No such token"}, status=401)
    if request.match_info["round"] != ROUND:
        return web.json_response({"error": "Not found"}, status=404)
    assert request.content_type == "text/plain"
    text = await request.text()
    assert "\n\n\n" not in text  # exactly one blank line between games
    stream = io.StringIO(text)
    games: list[chess.pgn.Game] = []
    answers: list[dict[str, object]] = []
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
        tags = {k: game.headers[k] for k in ("White", "Black", "Round")}
        if game.errors or game.headers["White"] in state.refuse:
            answers.append({"tags": tags, "error": "Invalid move: Nxe5"})
        else:
            answers.append({"tags": tags, "moves": len(list(game.mainline_moves()))})
    assert 1 <= len(games) <= 100
    state.bodies.append(games)
    return web.json_response({"games": answers})


@pytest.fixture
async def standin() -> AsyncIterator[StandIn]:
    state = StandIn()
    app = web.Application()
    app[STATE] = state
    app.router.add_post("/api/broadcast/round/{round}/push", _push)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    server = site._server
    assert server is not None and server.sockets  # type: ignore[attr-defined]
    port = server.sockets[0].getsockname()[1]  # type: ignore[attr-defined]
    state.url = f"http://127.0.0.1:{port}"
    yield state
    await runner.cleanup()


class Sleeps:
    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def pusher(state: StandIn, sleeps: Sleeps | None = None, **options: object) -> LichessPusher:
    config = LichessRelayConfig(ROUND, TOKEN, base_url=state.url, **options)  # type: ignore[arg-type]
    return LichessPusher(config, sleep=sleeps or Sleeps())


def masters_games() -> tuple[GameBook, dict[str, str]]:
    cfg = event()
    book = GameBook().synced(paired(cfg, "Masters", 1, list(berger_round(8, 1))))
    for board in (1, 2, 3, 4):
        book = play(book, GameKey("Masters", 1, board).id, random_line(board, 10 + board))
    return book, round_game_texts(book, cfg, "Masters", 1)


def synthetic(n: int, result: str = "*") -> dict[str, str]:
    return {
        f"g{i}": f'[Event "E"]\n[Round "1.{i}"]\n[White "W{i}"]\n[Black "B{i}"]\n'
        f'[Result "{result}"]\n\n1. e4 e5 {result}\n'
        for i in range(1, n + 1)
    }


async def test_first_push_sends_every_game_with_the_token(
    standin: StandIn, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    _, games = masters_games()
    async with pusher(standin) as relay:
        report = await relay.push(games)
        assert TOKEN not in repr(relay) and TOKEN not in repr(relay.config)
    assert standin.requests == 1 and len(standin.bodies[0]) == 4
    assert [a.moves for a in report.answers] == [11, 12, 13, 14]
    assert [a.game_id for a in report.answers] == list(games)
    assert all(a.ok for a in report.answers)
    assert [g.headers["Board"] for g in standin.bodies[0]] == ["1", "2", "3", "4"]
    for game_id in games:
        assert f"{game_id} (" in caplog.text  # one log line per game
    assert TOKEN not in caplog.text


async def test_only_changed_games_are_pushed(standin: StandIn) -> None:
    cfg = event()
    book, games = masters_games()
    async with pusher(standin) as relay:
        await relay.push(games)
        again = await relay.push(games)
        assert again.requests == 0 and again.unchanged == 4
        assert standin.requests == 1
        b2 = GameKey("Masters", 1, 2).id
        book = play(book, b2, random_line(99, 2, book.get(b2).fen))
        report = await relay.push(round_game_texts(book, cfg, "Masters", 1))
        assert [a.game_id for a in report.answers] == [b2]
        assert report.unchanged == 3
        assert len(standin.bodies[-1]) == 1
        relay.forget()
        assert len((await relay.push(round_game_texts(book, cfg, "Masters", 1))).answers) == 4


async def test_a_push_of_finished_games_carries_an_unfinished_one(standin: StandIn) -> None:
    """Lichess closes a round when every game of a push has a result."""
    cfg = event()
    book, games = masters_games()
    async with pusher(standin) as relay:
        await relay.push(games)
        b3 = GameKey("Masters", 1, 3).id
        book = book.apply(ResultConfirmed(b3, "1/2-1/2", "agreement", T0 + 9000))
        report = await relay.push(round_game_texts(book, cfg, "Masters", 1))
    last = standin.bodies[-1]
    assert [g.headers["Result"] for g in last] == ["1/2-1/2", "*"]
    assert report.answers[0].game_id == b3


async def test_batches_of_at_most_100(standin: StandIn) -> None:
    games = synthetic(250)
    async with pusher(standin) as relay:
        report = await relay.push(games)
    assert [len(b) for b in standin.bodies] == [100, 100, 50]
    assert report.requests == 3 and report.sent == 250
    assert standin.sent_whites()[2][-1] == "W250"


async def test_full_batch_of_finished_games_makes_room_for_an_unfinished_one(
    standin: StandIn,
) -> None:
    games = synthetic(150, "1-0")
    games["live"] = '[Event "E"]\n[White "Live"]\n[Black "X"]\n[Result "*"]\n\n1. d4 *\n'
    async with pusher(standin) as relay:
        report = await relay.push(games)
    assert [len(b) for b in standin.bodies] == [100, 52]
    assert standin.sent_whites()[0][-1] == "Live"
    assert all(len(set(w)) == len(w) for w in standin.sent_whites())
    assert report.sent == 152  # the carried game is answered again in the second batch


async def test_retries_5xx_with_exponential_backoff(standin: StandIn) -> None:
    standin.fail = [(503, {}), (502, {}), (500, {})]
    sleeps = Sleeps()
    _, games = masters_games()
    async with pusher(standin, sleeps, backoff_initial=0.5) as relay:
        report = await relay.push(games)
    assert sleeps.waits == [0.5, 1.0, 2.0]
    assert report.attempts == 4 and standin.requests == 4
    assert all(a.ok for a in report.answers)


async def test_429_honours_retry_after_and_defaults_to_a_minute(standin: StandIn) -> None:
    standin.fail = [(429, {"Retry-After": "7"}), (429, {})]
    sleeps = Sleeps()
    _, games = masters_games()
    async with pusher(standin, sleeps) as relay:
        await relay.push(games)
    assert sleeps.waits == [7.0, 60.0]


async def test_dropped_connections_are_retried(standin: StandIn) -> None:
    standin.drop = 2
    sleeps = Sleeps()
    _, games = masters_games()
    async with pusher(standin, sleeps) as relay:
        report = await relay.push(games)
    assert len(sleeps.waits) == 2 and report.sent == 4


async def test_gives_up_after_max_attempts(standin: StandIn) -> None:
    standin.fail = [(503, {})] * 10
    _, games = masters_games()
    async with pusher(standin, max_attempts=3) as relay:
        with pytest.raises(LichessPushError, match="after 3 attempts") as info:
            await relay.push(games)
        assert info.value.status == 503
        assert relay.changed(games) == list(games)  # nothing counted as accepted
    assert standin.requests == 3


async def test_bad_token_and_unknown_round_are_not_retried(standin: StandIn) -> None:
    _, games = masters_games()
    config = LichessRelayConfig(ROUND, "lip_wrong", base_url=standin.url)
    async with LichessPusher(config, sleep=Sleeps()) as relay:
        with pytest.raises(LichessPushError, match="study:write") as info:
            await relay.push(games)
    assert info.value.status == 401 and "lip_wrong" not in str(info.value)
    other = LichessRelayConfig("Zzzz9999", TOKEN, base_url=standin.url)
    async with LichessPusher(other, sleep=Sleeps()) as relay:
        with pytest.raises(LichessPushError, match="check the round id"):
            await relay.push(games)
    assert standin.requests == 2


async def test_refused_games_are_logged_and_sent_again(
    standin: StandIn, caplog: pytest.LogCaptureFixture
) -> None:
    _, games = masters_games()
    standin.refuse = {"Errazkin, Mikel"}
    async with pusher(standin) as relay:
        report = await relay.push(games)
        (bad,) = report.errors
        assert bad.game_id == GameKey("Masters", 1, 1).id
        assert bad.error == "Invalid move: Nxe5" and bad.tags["White"] == "Errazkin, Mikel"
        assert "refused: Invalid move" in caplog.text
        standin.refuse = set()
        again = await relay.push(games)
    assert [a.game_id for a in again.answers] == [bad.game_id]
    assert again.answers[0].ok


def test_config_checks_and_token_from_environment() -> None:
    with pytest.raises(ValueError, match="8 letters"):
        LichessRelayConfig("https://lichess.org/broadcast/x", TOKEN)
    with pytest.raises(ValueError, match=TOKEN_ENV):
        LichessRelayConfig.from_env(ROUND, environ={})
    with pytest.raises(ValueError, match="batch_size"):
        LichessRelayConfig(ROUND, TOKEN, batch_size=101)
    config = LichessRelayConfig.from_env(ROUND, environ={TOKEN_ENV: TOKEN})
    assert config.token == TOKEN and TOKEN not in repr(config)
    assert config.push_url == f"https://lichess.org/api/broadcast/round/{ROUND}/push"
    assert LichessRelayConfig.from_env(ROUND, token="lip_x", environ={}).token == "lip_x"
