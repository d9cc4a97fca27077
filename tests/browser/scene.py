"""A round worth looking at, for the layout tests and the screenshot set.

The Pamplona example with the longest real-world names, titles and ratings we could
find, round 1 half-played: a game in progress with both clocks, a checkmate, a flag fall
whose result waits for the arbiter, a draw by agreement. The state is built by
committing events to a real service (virtual time), as the boards would; the pages show
the views' own `flag` and `pending_result`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import chess
import chess.pgn

from broadcast.analysis.engine import EngineSettings, find_engine
from broadcast.analysis.evaluator import Evaluator
from broadcast.arbiter.alerts import Alert
from broadcast.config import load_event
from broadcast.games import game_events
from broadcast.games.game_events import GameClock, GameMove, ResultConfirmed, ResultProposed
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from clocks.timesource import ManualTime

ROOT = Path(__file__).resolve().parents[2]


@dataclass
class Site:
    """The scene served by a web server: its service, its virtual clock, its address."""

    service: EventService
    clock: ManualTime
    url: str


EXAMPLE = ROOT / "examples" / "pamplona-masters.toml"
GAMES = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"
T0 = 1_766_419_000.0  # shortly before round 1 (2025-12-22 17:00 Madrid)

# Fictional example players -> long real-world names, titles and federations.
NAMES = {
    '"Errazkin, Mikel"': '"Rameshbabu, Praggnanandhaa"',
    '"Vallverdú, Clara"': '"Vachier-Lagrave, Maxime"',
    '"Okonkwo, Daniel"': '"Abdusattorov, Nodirbek"',
    '"Lindqvist, Sara"': '"Nepomniachtchi, Ian Alexandrovich"',
    '"Ferreira, Tomás"': '"Mamedyarov, Shakhriyar Hamid oglu"',
    '"Hadžić, Emir"': '"Maghsoodloo, Parham"',
    '"Moreau, Hélène"': '"Gunina, Valentina Evgenyevna"',
    '"Sarasola, Iñigo"': '"Duda, Jan-Krzysztof"',
    'federation = "ESP"': 'federation = "FID"',
}

GAME_ON = "masters-r1-b1"  # in progress, both clocks
GAME_MATE = "masters-r1-b2"  # 1-0 checkmate... as played, confirmed
GAME_FLAG = "masters-r1-b3"  # Black's flag fell: 1-0 pending the arbiter
GAME_DRAW = "masters-r1-b4"  # 1/2-1/2 by agreement

SIZES = {"phone": (390, 844), "desktop": (1366, 768)}
# The pages also seen in dark mode (prefers-color-scheme: dark).
DARK = ("home", "round", "game-live", "game-mate", "standings", "embed-round")
# Every page without a login (name -> path); the desk needs one and is visited apart.
PAGES = {
    "home": "/",
    "round": "/round/1",
    "game-live": f"/game/{GAME_ON}",
    "game-mate": f"/game/{GAME_MATE}",
    "game-flag": f"/game/{GAME_FLAG}",
    "game-draw": f"/game/{GAME_DRAW}",
    "game-flipped": f"/game/{GAME_ON}?flip=1",
    "game-shared-move10": f"/game/{GAME_ON}?ply=19",
    "standings": "/standings",
    "embed-game": f"/embed/game/{GAME_ON}",
    "embed-round": "/embed/round/1",
    "arbiter-login": "/arbiter/login",
    "not-found": "/game/no-such-game",
}

# The spectators' other languages, and the pages seen in each (web/locale/).
LANGUAGES = ("es", "eu")
TRANSLATED = ("home", "round", "game-live", "game-flag", "standings", "embed-round")


def with_lang(path: str, lang: str) -> str:
    """`path` with the switcher's `lang=` added."""
    return f"{path}{'&' if '?' in path else '?'}lang={lang}"


def long_names_event(tmp: Path) -> Path:
    """The example event with long names, written to `tmp`."""
    text = EXAMPLE.read_text(encoding="utf-8")
    for old, new in NAMES.items():
        assert old in text, f"the example no longer has {old}"
        text = text.replace(old, new)
    path = tmp / "long-names.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _sample_games() -> list[chess.pgn.Game]:
    games = []
    with GAMES.open(encoding="utf-8") as f:
        while (g := chess.pgn.read_game(f)) is not None:
            games.append(g)
    return games


def _play(
    service: EventService,
    clock: ManualTime,
    game_id: str,
    game: chess.pgn.Game,
    plies: int,
    *,
    stopped: bool = False,
) -> None:
    board = game.board()
    white, black = 7200.0, 7200.0
    for ply, move in enumerate(game.mainline_moves(), 1):
        if ply > plies:
            break
        think = 30.0 + (ply * 37) % 200
        clock.advance(think)
        san = board.san(move)
        board.push(move)
        if ply % 2:
            white = white - think + 30
            left = white
        else:
            black = black - think + 30
            left = black
        service.commit(
            [GameMove(game_id, ply, san, move.uci(), board.fen(), clock.now(), left, think)]
        )
    running = None if stopped else "white" if board.turn == chess.WHITE else "black"
    service.commit([GameClock(game_id, round(white), round(black), running, clock.now())])


def build(tmp: Path) -> tuple[EventService, ManualTime]:
    """A service (no delay) on the long-names event with round 1 half-played."""
    clock = ManualTime(T0)
    service = EventService(
        load_event(long_names_event(tmp)),
        Journal(tmp / "journal.sqlite"),
        time_source=clock,
        live_round=1,
        delay=0.0,
    )
    service.load()
    clock.advance(120)
    games = _sample_games()
    _play(service, clock, GAME_ON, games[0], 41)
    mate = chess.pgn.read_game(io.StringIO("1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7# 1-0"))
    assert mate is not None
    _play(service, clock, GAME_MATE, mate, 7, stopped=True)
    service.commit([ResultConfirmed(GAME_MATE, "1-0", "checkmate", clock.now())])
    _play(service, clock, GAME_FLAG, games[2], 31)
    flag_fell: list[Any] = []
    game_flag = getattr(game_events, "GameFlag", None)  # the rules' flag fact, where it exists
    if game_flag is not None:
        flag_fell.append(game_flag(GAME_FLAG, "black", clock.now()))
    service.commit(
        [
            GameClock(GAME_FLAG, 1805, 0, None, clock.now()),
            *flag_fell,
            ResultProposed(GAME_FLAG, "1-0", "flag-fall", clock.now()),
        ]
    )
    _play(service, clock, GAME_DRAW, games[3], 40, stopped=True)
    service.commit([ResultConfirmed(GAME_DRAW, "1/2-1/2", "agreement", clock.now())])
    service.commit([long_alert(clock.now())])
    return service, clock


def long_alert(t: float) -> Alert:
    """An alert carrying a long unbroken position string (the desk must wrap it)."""
    return Alert(
        "scene-fen",
        "out-of-sync",
        "critical",
        "Masters",
        1,
        1,
        GAME_ON,
        (),
        "board 1 shows r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR_w_KQkq_-_4_4"
        "/and-nothing-else-matches-the-game-since-move-21",
        t,
    )


def evaluator(service: EventService) -> Evaluator:
    """Stockfish evaluating the scene's public positions (start it on the service's
    supervisor: `service.supervisor.start("the engine evaluation", evaluator.run)`).
    Stockfish is installed by .ci/run: missing, it is an error, not a reason to skip."""
    command = find_engine()
    if command is None:
        raise RuntimeError("Stockfish is missing: apt-get install stockfish (.ci/run does)")
    return Evaluator(service.public_state, EngineSettings(command, depth=12), poll=0.05)
