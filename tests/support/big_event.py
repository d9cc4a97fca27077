"""A big Swiss for tests and benchmarks: N players, R rounds paired, every game played.

Built as values (no journal): `swiss_config` (the Sestao example with N players),
`paired` (rounds 1..R paired top half against bottom half, shifted each round; not
FIDE Dutch, which would take minutes per round at this size), `played` (a random line of
`plies` plies with clock times in every game, as the fold would make it), and
`big_service` (an EventService whose public state is that event, delay 0).
"""

from __future__ import annotations

import dataclasses
import random
from pathlib import Path

import chess

from broadcast.config import load_event
from broadcast.config.model import EventConfig, PlayerEntry
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_events import GameMove
from broadcast.games.game_state import GameState
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.service.event_state import PublicState
from broadcast.tournament.tournament_events import PlayersRegistered, RoundPaired
from broadcast.tournament.tournament_state import TournamentState
from clocks.timesource import ManualTime
from tests.support.paths import ROOT

SWISS = ROOT / "examples" / "sestao-2025-swiss.toml"
T0 = 1_757_689_200.0


def swiss_config(players: int) -> EventConfig:
    base = load_event(SWISS)
    entries = tuple(
        PlayerEntry(n, f"Player {n:04d}", 2800 - n // 2, str(24_000_000 + n), "ESP")
        for n in range(1, players + 1)
    )
    section = dataclasses.replace(base.sections[0], players=entries)
    return dataclasses.replace(base, sections=(section,))


def paired(config: EventConfig, rounds: int) -> TournamentState:
    section = config.sections[0]
    n = len(section.players) // 2 * 2
    state = TournamentState.new(config).apply(PlayersRegistered(section.name, section.players))
    half = n // 2
    for r in range(1, rounds + 1):
        pairs = tuple(
            Pairing(b + 1, b + 1, half + (b + r - 1) % half + 1)
            if r % 2
            else Pairing(b + 1, half + (b + r - 1) % half + 1, b + 1)
            for b in range(half)
        )
        state = state.apply(RoundPaired(section.name, r, pairs, "bench"))
    return state


def play(game: GameState, plies: int, rng: random.Random) -> GameState:
    board = chess.Board()
    clocks = {chess.WHITE: 5400.0, chess.BLACK: 5400.0}
    t = T0
    for ply in range(1, plies + 1):
        moves = list(board.legal_moves)
        if not moves:
            break
        move = rng.choice(moves)
        san = board.san(move)
        spent = rng.uniform(2, 300)
        turn = board.turn
        clocks[turn] = max(0.0, clocks[turn] - spent) + 30
        t += spent
        board.push(move)
        game = game.apply(
            GameMove(game.id, ply, san, move.uci(), board.fen(), t, clocks[turn], spent)
        )
    return game


def played(tournament: TournamentState, plies: int, seed: int = 5) -> GameBook:
    rng = random.Random(seed)
    book = GameBook().synced(tournament)
    return GameBook({gid: play(g, plies, rng) for gid, g in book.games.items()})


def big_service(
    tmp: Path, players: int, rounds: int, plies: int
) -> tuple[EventService, PublicState]:
    """A service on the big Swiss, its public state (delay 0) being the whole event."""
    config = swiss_config(players)
    service = EventService(
        config, Journal(tmp / "big.sqlite"), time_source=ManualTime(T0), delay=0.0
    )
    service.load()
    tournament = paired(config, rounds)
    book = played(tournament, plies)
    # A state made without events (the service's state is a value: replaced whole).
    service.state = dataclasses.replace(service.state, tournament=tournament, book=book)
    state = PublicState(tournament, book, service.last_seq)
    service.public.record(T0, state)
    return service, state
