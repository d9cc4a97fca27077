"""The broadcast folder: layout, atomic writes only on change, stale files removed."""

from __future__ import annotations

import stat

from broadcast.config.model import EventConfig
from broadcast.export.pgn import round_pgn
from broadcast.fide.berger import berger_round
from broadcast.fide.teams.match import Match
from broadcast.games.book import GameBook
from broadcast.games.ids import GameKey
from broadcast.publish.folder import (
    ROUND_FILE,
    TEAM_CROSSTABLE_FILE,
    export_event_folder,
    export_round_folder,
    round_folder,
    write_if_changed,
)
from broadcast.tournament.team_events import MatchesPaired
from broadcast.tournament.team_rounds import compose_round, fallback_lineups
from broadcast.tournament.tournament_events import PlayersRegistered, ResultRecorded, RoundPaired
from broadcast.tournament.tournament_state import TournamentState
from tests.support.export import event, paired, play, random_line, read_all
from tests.support.team_section import ROUND_1, SECTION, team_section

MASTERS = "Masters"


def masters_book() -> tuple[GameBook, object]:
    cfg = event()
    state = paired(cfg, MASTERS, 1, list(berger_round(8, 1)))
    return GameBook().synced(state), state


def test_round_folder_layout_and_contents(tmp_path) -> None:
    cfg = event()
    book, _ = masters_book()
    book = play(book, GameKey(MASTERS, 1, 1).id, random_line(5, 30))
    update = export_round_folder(tmp_path, book, cfg, MASTERS, 1)
    folder = tmp_path / "round-1"
    names = sorted(p.name for p in folder.iterdir())
    assert names == [
        "game-1.pgn",
        "game-2.pgn",
        "game-3.pgn",
        "game-4.pgn",
        ROUND_FILE,
        "index.json",
    ]
    assert (tmp_path / "tournament.json").exists()  # LiveChess's, at the folder's root
    assert len(update.written) == 7 and not update.unchanged and not update.removed
    round_text = (folder / ROUND_FILE).read_text(encoding="utf-8")
    assert round_text == round_pgn(book, cfg, MASTERS, 1)
    assert len(read_all(round_text)) == 4
    (one,) = read_all((folder / "game-1.pgn").read_text(encoding="utf-8"))
    assert len(list(one.mainline_moves())) == 30
    mode = stat.S_IMODE((folder / "game-1.pgn").stat().st_mode)
    assert mode == 0o644  # readable by an uploader or web server running as someone else
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # no temp files left


def test_only_changed_files_are_rewritten(tmp_path) -> None:
    cfg = event()
    book, _ = masters_book()
    export_round_folder(tmp_path, book, cfg, MASTERS, 1)
    again = export_round_folder(tmp_path, book, cfg, MASTERS, 1)
    assert again.written == () and len(again.unchanged) == 7
    game2 = tmp_path / "round-1" / "game-2.pgn"
    before = game2.stat().st_ino
    book = play(book, GameKey(MASTERS, 1, 2).id, ["d2d4", "g8f6"])
    update = export_round_folder(tmp_path, book, cfg, MASTERS, 1)
    # The game, the round, and the JSON that now shows a live game.
    written = sorted(p.name for p in update.written)
    assert written == ["game-2.pgn", ROUND_FILE, "index.json", "tournament.json"]
    assert game2.stat().st_ino != before  # replaced atomically, not rewritten in place
    assert "1. d4" in game2.read_text(encoding="utf-8")


def test_stale_board_files_are_removed(tmp_path) -> None:
    cfg = event()
    book, _ = masters_book()
    export_round_folder(tmp_path, book, cfg, MASTERS, 1)
    (tmp_path / "round-1" / "notes.txt").write_text("kept")
    smaller = GameBook({k: g for k, g in book.games.items() if g.key.board != 4})
    update = export_round_folder(tmp_path, smaller, cfg, MASTERS, 1)
    assert [p.name for p in update.removed] == ["game-4.pgn"]
    assert (tmp_path / "round-1" / "notes.txt").exists()
    assert len(read_all((tmp_path / "round-1" / ROUND_FILE).read_text(encoding="utf-8"))) == 3


def test_event_folder_with_sections(tmp_path) -> None:
    cfg = event("donostia-2009-round-robin")
    first, second = cfg.sections[0].name, cfg.sections[1].name
    state = paired(cfg, first, 2, list(berger_round(10, 1)))
    state = state.apply(RoundPaired(second, 1, tuple(berger_round(10, 1)), "test"))
    update = export_event_folder(tmp_path, GameBook(), cfg, tournament=state)
    # 3 rounds x (5 boards + games.pgn + index.json), and one tournament.json a section
    assert len(update.written) == 3 * 7 + 2
    folder = round_folder(tmp_path, cfg, second, 1)
    assert folder == tmp_path / "euskal-xake-eskola" / "round-1"
    assert (round_folder(tmp_path, cfg, first, 2) / "game-5.pgn").exists()
    assert len(read_all((folder / ROUND_FILE).read_text(encoding="utf-8"))) == 5


def test_write_if_changed_replaces_a_file_it_cannot_read(tmp_path) -> None:
    path = tmp_path / "x.pgn"
    path.write_bytes(b"\xff\xfe garbage")
    assert write_if_changed(path, "text\n") is True
    assert write_if_changed(path, "text\n") is False
    assert path.read_text(encoding="utf-8") == "text\n"


def test_a_team_section_has_its_crosstable_beside_its_rounds(tmp_path) -> None:
    """A team section's folder carries the team crosstable the public state gives, and
    it changes when a result comes in."""
    section = team_section()
    cfg = EventConfig("League", "", "Europe/Madrid", 0, 2024, "confirm", (section,), ())
    state = TournamentState.new(cfg)
    state = state.apply(PlayersRegistered(SECTION, section.players))
    state = state.apply(MatchesPaired(SECTION, 1, (Match(1, 1, 2), Match(2, 3, 4))))
    for lineup in fallback_lineups(section, state.section(SECTION), 1, ROUND_1, by="rules"):
        state = state.apply(lineup)
    pairings = compose_round(section, state.section(SECTION), 1)
    state = state.apply(RoundPaired(SECTION, 1, pairings))
    book = GameBook().synced(state)
    export_round_folder(tmp_path, book, cfg, SECTION, 1, tournament=state)
    table = tmp_path / TEAM_CROSSTABLE_FILE
    before = table.read_text(encoding="utf-8")
    assert "Team 1" in before and "Team 4" in before
    for pairing in pairings:
        state = state.apply(ResultRecorded(SECTION, 1, pairing.white, "1-0"))
    update = export_round_folder(
        tmp_path, GameBook().synced(state), cfg, SECTION, 1, tournament=state
    )
    after = table.read_text(encoding="utf-8")
    assert table in update.written and after != before
    # White wins every board: with White on the first team's odd boards, each match is
    # drawn 1-1, one match point each, and every team shares first place.
    rows = [line.split() for line in after.splitlines()[2:]]
    assert [(row[0], row[-2], row[-1]) for row in rows] == [("1", "1", "1")] * 4
