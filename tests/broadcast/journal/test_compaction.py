"""Compaction: behind each snapshot, the superseded clock readings of finished games leave
the journal (the first and last of each stretch of one clock state stay, and everything
after the result); a full replay of the compacted journal ends in the same games and
tournament, and a restart from the snapshot in the same state as before."""

from __future__ import annotations

import shutil
from pathlib import Path

from boards.driver_events import ClockSeen
from broadcast.config.loader import load_event
from broadcast.games.game_events import BoardAttached, GameClock, ResultConfirmed
from broadcast.journal.compaction import ClockRows
from broadcast.journal.store import Journal
from broadcast.service.event_service import EventService
from broadcast.service.event_state import EventState
from clocks.reading import ClockReading, NoClock
from clocks.timesource import ManualTime
from tests.support import acting
from tests.support.paths import ROOT
from tests.support.service_feed import PAMPLONA, load_games, run_round

GAMES = ROOT / "examples" / "games" / "worldcup2025-sample.pgn"


def _clock(t: float, running: str | None) -> GameClock:
    return GameClock("g", 100, 100, running, t)  # type: ignore[arg-type]


def _seen(t: float, running: bool, right: bool = False) -> ClockSeen:
    return ClockSeen(t, "01001", ClockReading(100, 100, running, right))


def test_the_first_and_last_of_each_stretch_stay() -> None:
    rows = ClockRows()
    rows.note(1, BoardAttached("g", "01001", 0.0))
    events = [
        _clock(1, "white"),  # 2: a stretch of white running: 2..5
        _clock(2, "white"),
        _clock(3, "white"),
        _clock(4, "white"),
        _clock(5, "black"),  # 6: black's stretch 6..7
        _clock(6, "black"),
        _seen(7, True),  # 8: the board's own readings: 8..10, then another state
        _seen(8, True),
        _seen(9, True),
        ClockSeen(10, "01001", NoClock()),  # 11
        _seen(11, True, right=True),  # 12
        _seen(12, True, right=True),  # 13
        _seen(13, True, right=True),  # 14
        _clock(14, "black"),  # 15
    ]
    for seq, event in enumerate(events, 2):
        rows.note(seq, event)
    assert list(rows.take_ready()) == []  # the game is not over: nothing goes
    rows.note(16, ResultConfirmed("g", "1-0", "resignation", 15.0))
    rows.note(17, _clock(16, None))  # after the result: kept
    rows.note(18, _clock(17, None))
    rows.note(19, _clock(18, None))
    assert sorted(rows.take_ready()) == [3, 4, 7, 9, 13]
    assert list(rows.take_ready()) == []


def test_a_compacted_journal_folds_to_the_same_games(tmp_path: Path) -> None:
    service, time_source = run_round(tmp_path, load_games(GAMES, 4), seed=5)
    for game in service.book.round_games("Masters", 1):
        if game.result is None:
            if game.proposal is not None:
                acting.confirm_proposal(service, game.id, "arbiter:test")
            else:
                acting.set_result(service, game.id, "1/2-1/2", "arbiter:test", "agreement")
    path = Path(service.journal.path)
    kept = tmp_path / "uncompacted.sqlite"
    service.journal.close()
    shutil.copyfile(path, kept)
    config = load_event(PAMPLONA)

    def fold(where: Path) -> EventState:
        journal = Journal(where, readonly=True)
        state = EventState.new(config)
        for entry in journal.read():
            state = state.apply(entry.event, entry.seq)
        journal.close()
        return state

    before = fold(kept)
    live = EventService(config, Journal(path), time_source=ManualTime(time_source.now()), delay=0.0)
    live.load()
    clocks = sum(1 for e in live.journal.read() if isinstance(e.event, ClockSeen | GameClock))
    assert live.snapshots.take_now(live)
    gone = live.snapshots.compacted[-1][1]
    assert gone > 0.8 * clocks, (gone, clocks)
    after = fold(path)
    assert after.book == before.book and after.tournament == before.tournament
    assert after.memory == before.memory and after.white_sides == before.white_sides
    live.journal.close()
    again = EventService(
        config, Journal(path), time_source=ManualTime(time_source.now()), delay=0.0
    )
    again.load()  # from the snapshot, with nothing after it
    assert again.replayed == 0
    assert _games(again.state) == _games(before) and again.tournament == before.tournament
    # A full replay of the compacted journal: the same games, results and open alerts.
    slow = EventService(
        config, Journal(path), time_source=ManualTime(time_source.now()), delay=0.0, snapshots=False
    )
    slow.load()
    assert _games(slow.state) == _games(again.state) and slow.tournament == again.tournament
    assert [a.id for a in slow.rules.open_alerts()] == [a.id for a in again.rules.open_alerts()]


def _games(state: EventState) -> dict[str, object]:
    return {
        g.id: (g.moves, g.result, g.white_clock, g.black_clock, g.first_activity)
        for g in state.book.games.values()
    }
