"""PGN exports: tags, clocks, forfeits, unplayed games, byes, odd starts and corrections,
and that everything reads back with python-chess."""

from __future__ import annotations

import dataclasses

import chess
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.export.pgn import (
    UNPLAYED,
    event_pgn,
    game_headers,
    game_pgn,
    round_pgn,
    section_pgn,
)
from broadcast.fide.berger import berger_round
from broadcast.fide.pairing import Pairing
from broadcast.games.book import GameBook
from broadcast.games.game_events import (
    BoardAttached,
    LineCorrected,
    ResultConfirmed,
    StartPositionSet,
)
from broadcast.games.game_state import GameState, PlayerRef
from broadcast.games.ids import GameKey
from broadcast.tournament.tournament_events import PlayersRegistered, ResultRecorded, RoundPaired
from tests.support.export import T0, event, move_events, paired, play, random_line, read_all

SEVEN = ["Event", "Site", "Date", "Round", "White", "Black", "Result"]
MASTERS = "Masters"


def masters_round1() -> tuple[GameBook, object]:
    cfg = event()
    state = paired(cfg, MASTERS, 1, list(berger_round(8, 1)))
    # Give two players FIDE ids (the example has none) to see the tags.
    section = state.section(MASTERS)
    players = tuple(
        dataclasses.replace(p, fide_id=str(2_200_000 + p.number)) if p.number in (1, 8) else p
        for p in section.players.values()
    )
    state = state.apply(PlayersRegistered(MASTERS, players))
    return GameBook().synced(state), state


def ids(round_number: int = 1) -> list[str]:
    return [GameKey(MASTERS, round_number, b).id for b in range(1, 5)]


def test_round_pgn_has_every_tag_in_order_and_reads_back() -> None:
    cfg = event()
    book, _ = masters_round1()
    b1, b2, b3, b4 = ids()
    book = play(book, b1, random_line(1, 40))
    book = book.apply(ResultConfirmed(b1, "1-0", "resignation", T0 + 5000))
    book = play(book, b2, random_line(2, 25))  # still being played
    book = book.apply(ResultConfirmed(b3, "+/-", "default-time", T0 + 1800))
    book = book.apply(ResultConfirmed(b4, "-/-", "default-time", T0 + 1800))

    text = round_pgn(book, cfg, MASTERS, 1)
    games = read_all(text)
    assert [g.headers["Board"] for g in games] == ["1", "2", "3", "4"]
    first = games[0]
    assert list(first.headers.keys())[:7] == SEVEN
    h = first.headers
    assert h["Event"] == "Pamplona Masters"
    assert h["Site"] == "Iruña Park Hotel, Pamplona"
    assert h["Date"] == "2025.12.22"
    assert h["Round"] == "1.1"
    assert h["White"] == "Errazkin, Mikel" and h["WhiteTitle"] == "GM"
    assert h["WhiteElo"] == "2612" and h["WhiteFideId"] == "2200001"
    assert h["BlackFideId"] == "2200008"
    assert h["TimeControl"] == "7200+30"
    assert (h["UTCDate"], h["UTCTime"]) == ("2025.12.22", "16:00:00")  # 17:00 in Madrid
    assert h["Termination"] == "normal" and h["Result"] == "1-0"
    assert h["GameId"] == b1
    nodes = list(first.mainline())
    assert len(nodes) == 40
    assert all(n.clock() is not None and n.emt() is not None for n in nodes)
    assert nodes[0].emt() == 30 and nodes[0].clock() == 7200

    ongoing = games[1].headers
    assert ongoing["Result"] == "*" and "Termination" not in ongoing
    forfeit, double = games[2].headers, games[3].headers
    assert (forfeit["Result"], forfeit["Termination"]) == ("1-0", UNPLAYED)
    assert (double["Result"], double["Termination"]) == ("0-0", UNPLAYED)
    assert games[3].end().board().fen() == chess.STARTING_FEN
    assert text.count("\n\n[Event ") == 3  # one blank line between games


def test_double_forfeit_is_tagged_0_0_but_movetext_ends_with_star() -> None:
    cfg = event()
    book, _ = masters_round1()
    b1 = ids()[0]
    text = game_pgn(book.apply(ResultConfirmed(b1, "-/-", "arbiter", T0)).get(b1), cfg)
    assert '[Result "0-0"]' in text
    assert text.rstrip().endswith("*")  # "0-0" in movetext reads as castling


def test_fewer_than_two_plies_on_an_e_board_is_unplayed_whatever_the_result() -> None:
    cfg = event()
    book, _ = masters_round1()
    b1 = ids()[0]
    followed = book.apply(BoardAttached(b1, "10001", T0))
    one = play(followed, b1, ["e2e4"])
    one = one.apply(ResultConfirmed(b1, "1-0", "flag-fall", T0 + 4000))
    (game,) = read_all(game_pgn(one.get(b1), cfg))
    assert game.headers["Termination"] == UNPLAYED
    # (A game with a result takes no more moves: the two-ply game is played first.)
    two = play(followed, b1, ["e2e4", "e7e5"])
    two = two.apply(ResultConfirmed(b1, "1-0", "flag-fall", T0 + 4000))
    (game,) = read_all(game_pgn(two.get(b1), cfg))
    assert game.headers["Termination"] == "time forfeit"


def test_without_an_e_board_a_result_is_a_played_game_whatever_the_plies() -> None:
    """No e-board followed the game: its moves are on the scoresheet only, so a result
    entered at the desk is a played game, with no moves or one; a forfeit stays unplayed."""
    cfg = event()
    book, _ = masters_round1()
    b1, b2 = ids()[:2]
    for line in ([], ["e2e4"]):
        done = play(book, b1, line).apply(ResultConfirmed(b1, "1-0", "flag-fall", T0 + 4000))
        (game,) = read_all(game_pgn(done.get(b1), cfg))
        assert (game.headers["Result"], game.headers["Termination"]) == ("1-0", "time forfeit")
    forfeit = book.apply(ResultConfirmed(b2, "+/-", "forfeit", T0 + 1800))
    (game,) = read_all(game_pgn(forfeit.get(b2), cfg))
    assert (game.headers["Result"], game.headers["Termination"]) == ("1-0", UNPLAYED)


def test_forfeit_entered_only_as_a_tournament_result() -> None:
    cfg = event()
    book, state = masters_round1()
    b2 = ids()[1]
    white = book.get(b2).white
    assert white is not None
    state = state.apply(ResultRecorded(MASTERS, 1, white.start, "-+"))
    (alone,) = read_all(game_pgn(book.get(b2), cfg))
    assert alone.headers["Result"] == "*"  # without the tournament: nothing known
    (game,) = read_all(game_pgn(book.get(b2), cfg, tournament=state))
    assert (game.headers["Result"], game.headers["Termination"]) == ("0-1", UNPLAYED)
    # The round export with the tournament writes every paired game, even from an empty book.
    games = read_all(round_pgn(GameBook(), cfg, MASTERS, 1, tournament=state))
    assert len(games) == 4 and games[1].headers["Result"] == "0-1"


def test_non_standard_start_writes_setup_fen_and_black_first() -> None:
    cfg = event()
    book, _ = masters_round1()
    b1 = ids()[0]
    fen = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 3 12"
    book = book.apply(StartPositionSet(b1, fen, T0))
    line = random_line(3, 9, fen)
    book = play(book, b1, line)
    text = game_pgn(book.get(b1), cfg)
    assert "\n\n12... " in text
    (game,) = read_all(text)
    assert game.headers["SetUp"] == "1" and game.headers["FEN"] == fen
    assert [m.uci() for m in game.mainline_moves()] == line


def test_correction_replaces_the_line_with_no_stale_moves() -> None:
    cfg = event()
    book, _ = masters_round1()
    b1 = ids()[0]
    book = play(book, b1, ["e2e4", "e7e5", "g1f3", "b8c6"])
    book = book.apply(LineCorrected(b1, ("e2e4", "c7c5", "g1f3", "d7d6"), T0 + 500))
    text = game_pgn(book.get(b1), cfg)
    (game,) = read_all(text)
    assert [m.uci() for m in game.mainline_moves()] == ["e2e4", "c7c5", "g1f3", "d7d6"]
    assert "e5" not in text and "Nc6" not in text
    assert all(not node.variations[1:] for node in game.mainline())
    nodes = list(game.mainline())
    assert nodes[0].clock() is not None  # the kept first move keeps its clock
    assert nodes[1].clock() is None  # a corrected move has no clock reading to show


def test_byes_are_not_games() -> None:
    cfg = event("sestao-2025-swiss")
    pairs = [Pairing(b, 2 * b - 1, 2 * b) for b in range(1, 12)]
    pairs.append(Pairing(0, 23, None))  # the pairing bye; player 24 left out (a zero bye)
    state = paired(cfg, "Open", 1, pairs)
    state = state.apply(ResultRecorded("Open", 1, 1, "1-0"))
    text = round_pgn(GameBook(), cfg, "Open", 1, tournament=state)
    games = read_all(text)
    assert len(games) == 11
    assert games[0].headers["Event"] == "Sestao 2025"  # a single section: no suffix
    assert games[0].headers["TimeControl"] == "5400+30"
    names = {g.headers["White"] for g in games} | {g.headers["Black"] for g in games}
    assert len(names) == 22


def test_several_sections_name_the_section_and_event_pgn_has_them_all() -> None:
    cfg = event("donostia-2009-round-robin")
    state = paired(cfg, cfg.sections[0].name, 1, list(berger_round(10, 1)))
    second = cfg.sections[1].name
    state = state.apply(RoundPaired(second, 1, tuple(berger_round(10, 1)), "test"))
    book = GameBook().synced(state)
    games = read_all(event_pgn(book, cfg, live={s.name: 1 for s in cfg.sections}))
    assert len(games) == 10
    assert games[0].headers["Event"] == f"{cfg.name} - {cfg.sections[0].name}"
    assert games[-1].headers["Event"] == f"{cfg.name} - {second}"
    assert len(read_all(section_pgn(book, cfg, second))) == 5
    with pytest.raises(KeyError, match="no section"):
        round_pgn(book, cfg, "Nope", 1)


def test_tag_values_are_escaped() -> None:
    cfg = event()
    game = GameState(
        GameKey(MASTERS, 1, 1), PlayerRef(1, 'O"Brien, \\Pat'), PlayerRef(2, "Line\nBreak")
    )
    text = game_pgn(game, cfg)
    assert '[White "O\\"Brien, \\\\Pat"]' in text  # PGN 8.1.1 escapes
    (read,) = read_all(text)
    assert read.headers["Result"] == "*"  # python-chess keeps escapes literally, no error
    assert read.headers["Black"] == "Line Break"


def test_headers_without_players_and_schedule_entry() -> None:
    cfg = event()
    game = GameState(GameKey(MASTERS, 9, 1), None, None)  # round 9 is not scheduled
    tags = dict(game_headers(game, cfg))
    assert tags["White"] == tags["Black"] == "?"
    assert tags["Date"] == "????.??.??" and "UTCDate" not in tags
    read_all(game_pgn(game, cfg))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    plies=st.integers(0, 160),
    black_first=st.booleans(),
    result=st.sampled_from([None, "1-0", "0-1", "1/2-1/2", "+/-", "-/+", "-/-"]),
)
def test_any_game_round_trips(seed: int, plies: int, black_first: bool, result: str | None) -> None:
    cfg = event()
    fen = chess.STARTING_FEN
    if black_first:
        fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    game = GameState(GameKey(MASTERS, 1, 1), PlayerRef(1, "A"), PlayerRef(8, "B"))
    if black_first:
        game = game.apply(StartPositionSet(game.id, fen, T0))
    line = random_line(seed, plies, fen)
    for e in move_events(game, line):
        game = game.apply(e)
    if result is not None:
        game = game.apply(ResultConfirmed(game.id, result, "arbiter", T0))  # type: ignore[arg-type]
    (read,) = read_all(game_pgn(game, cfg))
    assert [m.uci() for m in read.mainline_moves()] == line
    clocks = [n.clock() for n in read.mainline()]
    assert clocks == [round(m.remaining or 0) for m in game.moves]
