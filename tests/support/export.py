"""Builders for export tests: example events, paired rounds and games played with clocks."""

from __future__ import annotations

import io
import random

import chess
import chess.pgn

from broadcast.config import load_event
from broadcast.config.model import EventConfig
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_events import GameEvent, GameMove
from broadcast.games.game_state import GameState
from broadcast.tournament.tournament_events import RoundPaired
from broadcast.tournament.tournament_state import TournamentState, fold, registration_events
from tests.support.paths import ROOT

EXAMPLES = ROOT / "examples"
T0 = 1_766_419_200.0  # 2025-12-22 16:00:00 UTC: Pamplona round 1 (17:00 in Madrid)


def event(name: str = "pamplona-masters") -> EventConfig:
    return load_event(EXAMPLES / f"{name}.toml")


def paired(
    cfg: EventConfig, section: str, round_number: int, pairs: list[Pairing]
) -> TournamentState:
    state = fold(cfg, registration_events(cfg))
    for r in range(1, round_number + 1):
        state = state.apply(RoundPaired(section, r, tuple(pairs), "test"))
    return state


def move_events(
    game: GameState, ucis: list[str], *, t0: float = T0, think: float = 30.0, base: float = 7200.0
) -> list[GameEvent]:
    """GameMove events for `ucis` from the game's current position, with clock times."""
    board = game.board_now()
    events: list[GameEvent] = []
    clocks = {chess.WHITE: base, chess.BLACK: base}
    t = t0
    for i, uci in enumerate(ucis):
        move = chess.Move.from_uci(uci)
        san = board.san(move)
        spent = think + (i % 7)
        t += spent
        clocks[board.turn] -= spent - 30  # 30 s increment
        turn = board.turn
        board.push(move)
        events.append(
            GameMove(game.id, game.ply + i + 1, san, uci, board.fen(), t, clocks[turn], spent)
        )
    return events


def random_line(seed: int, plies: int, fen: str = chess.STARTING_FEN) -> list[str]:
    """A legal line of up to `plies` plies (shorter if the game ends first)."""
    rng = random.Random(seed)
    board = chess.Board(fen)
    out: list[str] = []
    while len(out) < plies and not board.is_game_over():
        move = rng.choice(list(board.legal_moves))
        out.append(move.uci())
        board.push(move)
    return out


def play(book: GameBook, game_id: str, ucis: list[str], **kw: float) -> GameBook:
    return book.apply_all(move_events(book.get(game_id), ucis, **kw))


def read_all(text: str) -> list[chess.pgn.Game]:
    """Every game in `text`, failing on any parse error python-chess records."""
    stream = io.StringIO(text)
    games: list[chess.pgn.Game] = []
    while True:
        game = chess.pgn.read_game(stream)
        if game is None:
            return games
        assert not game.errors, f"{game.headers}: {game.errors}"
        games.append(game)
