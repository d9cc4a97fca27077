"""`replay --event`: captures from the simulator's arbiter scenarios, run as a board's game
in a round of the Sestao example, give exactly the alerts and proposals expected."""

from __future__ import annotations

import json
from pathlib import Path

import chess.pgn
import pytest

from boards.capture import Capture, read_capture
from boardsim.scenarios import (
    Scenario,
    agreed_draw,
    arrives_late,
    battery_running_down,
    capture_lines,
    flag_fall,
    never_arrives,
    unplugged,
    write_capture,
)
from broadcast.arbiter import Alert
from broadcast.cli import main
from broadcast.cli.replay import EventReplay, ReplayEventError, replay_event, replay_round
from broadcast.games.game_events import GameMove, ResultProposed
from tests.support.arbiter import EXAMPLES, SESTAO, start_of

ROUND_START = SESTAO.sections[0].round_start(1).start
START = start_of(SESTAO, 1)


def sample_line() -> list[str]:
    with (EXAMPLES / "games" / "worldcup2025-sample.pgn").open(encoding="utf-8") as f:
        game = chess.pgn.read_game(f)
    assert game is not None
    line = [m.uci() for m in game.mainline_moves()]
    assert len(line) >= 60
    return line


LINE = sample_line()


def capture_of(scenario: Scenario, tmp_path: Path, name: str = "c.jsonl") -> Capture:
    path = tmp_path / name
    write_capture(str(path), scenario, ROUND_START)
    return read_capture(path)


def seen(result: EventReplay) -> list[tuple[str, str, float]]:
    """(what, detail, seconds after the round start) for every alert and proposal."""
    out = []
    for e in result.events:
        if isinstance(e, Alert):
            out.append((f"alert:{e.kind}", e.severity, round(e.t - START, 1)))
        elif isinstance(e, ResultProposed):
            out.append((f"proposed:{e.result}", e.reason, round(e.t - START, 1)))
    return out


def test_player_who_never_arrives(tmp_path: Path) -> None:
    result = replay_event(
        capture_of(never_arrives("black", LINE, end_after=2000), tmp_path), SESTAO, 1, 1
    )
    assert seen(result) == [
        ("alert:late", "warning", 900.0),
        ("alert:late", "warning", 1500.0),
        ("alert:late", "warning", 1740.0),
        ("proposed:+/-", "default-time", 1800.0),
        ("alert:result-proposed", "warning", 1800.0),  # the desk is asked to confirm
    ]


@pytest.mark.parametrize(("minutes", "forfeit"), [(29, False), (31, True)])
def test_arrival_29_or_31_minutes_late(tmp_path: Path, minutes: int, forfeit: bool) -> None:
    scenario = arrives_late("black", minutes, LINE[:10], end_after=2400)
    result = replay_event(capture_of(scenario, tmp_path), SESTAO, 1, 1)
    proposals = [p for p in seen(result) if p[0].startswith("proposed")]
    assert proposals == ([("proposed:+/-", "default-time", 1800.0)] if forfeit else [])
    assert [a[2] for a in seen(result) if a[0] == "alert:late"] == [900.0, 1500.0, 1740.0]
    assert len([e for e in result.events if isinstance(e, GameMove)]) == 10  # the game goes on


def test_flag_fall(tmp_path: Path) -> None:
    scenario = flag_fall("white", LINE[:20], base=600, increment=0, end_after=100)
    result = replay_event(capture_of(scenario, tmp_path), SESTAO, 1, 1)
    [proposal] = result.proposals
    assert (proposal.result, proposal.reason) == ("0-1", "flag-fall")
    at = round(proposal.t - START, 1)
    assert seen(result) == [
        ("proposed:0-1", "flag-fall", at),
        ("alert:result-proposed", "warning", at),
    ]


def test_board_unplugged_mid_game(tmp_path: Path) -> None:
    result = replay_event(
        capture_of(unplugged(600, LINE[:40], end_after=1000), tmp_path), SESTAO, 1, 1
    )
    assert seen(result) == [
        ("alert:board-not-responding", "critical", 660.0)
    ]  # last reading at 599 s


def test_battery_running_down(tmp_path: Path) -> None:
    scenario = battery_running_down(24, 20, LINE[:30], end_after=3 * 3600)
    result = replay_event(capture_of(scenario, tmp_path), SESTAO, 1, 1)
    # 24 % draining 20 %/hour, polled each minute, rounded: 20 % at 11 min, 5 % at 56 min
    assert seen(result) == [
        ("alert:battery-low", "warning", 660.0),
        ("alert:battery-low", "critical", 3360.0),
    ]


def test_agreed_draw_at_move_12(tmp_path: Path) -> None:
    result = replay_event(capture_of(agreed_draw(12, LINE, end_after=1200), tmp_path), SESTAO, 1, 1)
    labels = [(what, detail) for what, detail, _ in seen(result)]
    assert labels == [
        ("proposed:1/2-1/2", "kings-signal"),
        ("alert:early-draw", "warning"),
        ("alert:result-proposed", "warning"),
    ]


def test_sestao_scripted_round(tmp_path: Path) -> None:
    """One no-show, one late arrival inside the default time, one flag fall, one result
    signal; every capture runs three hours. Exactly these alerts and proposals."""
    hours = 3 * 3600
    scenarios = {
        1: never_arrives("black", LINE, end_after=hours, serial="10001"),
        2: arrives_late("black", 28, LINE[:30], end_after=hours, serial="10002"),
        3: flag_fall("white", LINE[:40], end_after=hours, serial="10003"),
        4: Scenario(
            moves=tuple(LINE[:62]),
            think=70.0,
            draw_at_move=31,
            signal_result="1-0",
            end_after=hours,
            serial="10004",
        ),
    }
    captures = {b: capture_of(s, tmp_path, f"b{b}.jsonl") for b, s in scenarios.items()}
    result = replay_round(captures, SESTAO, 1)
    by_game: dict[str, list[tuple[str, str]]] = {}
    for e in result.events:
        if isinstance(e, Alert | ResultProposed):
            what = f"alert:{e.kind}" if isinstance(e, Alert) else f"proposed:{e.result}:{e.reason}"
            by_game.setdefault(e.game, []).append((what, str(round(e.t - START))))
    flag = next(p for p in result.proposals if p.game == "open-r1-b3")
    signal = next(p for p in result.proposals if p.game == "open-r1-b4")
    assert by_game == {
        "open-r1-b1": [
            ("alert:late", "900"),
            ("alert:late", "1500"),
            ("alert:late", "1740"),
            ("proposed:+/-:default-time", "1800"),
            ("alert:result-proposed", "1800"),
        ],
        "open-r1-b2": [("alert:late", "900"), ("alert:late", "1500")],
        "open-r1-b3": [
            ("proposed:0-1:flag-fall", str(round(flag.t - START))),
            ("alert:result-proposed", str(round(flag.t - START))),
        ],
        "open-r1-b4": [
            ("proposed:1-0:kings-signal", str(round(signal.t - START))),
            ("alert:result-proposed", str(round(signal.t - START))),
        ],
    }
    assert 5000 < flag.t - START < 7000  # 90 min + 20 increments, minus 20 moves' thinking
    assert signal.t - START > 3600


def test_missing_started_at_is_explained() -> None:
    with pytest.raises(ReplayEventError, match="started_at"):
        replay_event(Capture({}, ()), SESTAO, 1, 1)


def test_cli_writes_alerts_and_proposals(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capture = tmp_path / "noshow.jsonl"
    capture.write_text(
        "\n".join(capture_lines(never_arrives("white", end_after=1900), ROUND_START)) + "\n"
    )
    events = tmp_path / "events.jsonl"
    code = main(
        [
            "replay",
            str(capture),
            "--event",
            str(EXAMPLES / "sestao-2025-swiss.toml"),
            "--round",
            "1",
            "--board",
            "2",
            "--events",
            str(events),
        ]
    )
    assert code == 0
    rows = [json.loads(line) for line in events.read_text().splitlines()]
    alerts = [r for r in rows if r["type"] == "alert"]
    proposals = [r for r in rows if r["type"] == "result-proposed"]
    assert [a["kind"] for a in alerts] == ["late"] * 3 + ["result-proposed"]
    assert (alerts[-1]["result"], alerts[-1]["reason"]) == ("-/-", "default-time")
    assert [(p["result"], p["reason"], p["game"]) for p in proposals] == [
        ("-/-", "default-time", "open-r1-b2")
    ]
    out = capsys.readouterr().out
    assert "seed order assumed" in out and "proposed -/- (default-time)" in out


def test_cli_needs_round_and_board(tmp_path: Path) -> None:
    capture = tmp_path / "c.jsonl"
    capture.write_text("\n".join(capture_lines(Scenario(end_after=10), ROUND_START)) + "\n")
    assert main(["replay", str(capture), "--event", str(EXAMPLES / "sestao-2025-swiss.toml")]) == 2


def test_the_replay_is_the_live_pipeline_flags_included(tmp_path: Path) -> None:
    """`replay --event` runs the real service: a flag fall is a game fact (GameFlag), as
    on `serve`, not only the rules' proposal (the old copy of the wiring had none)."""
    from broadcast.games.game_events import GameFlag

    scenario = flag_fall("white", LINE[:20], base=600, increment=0, end_after=100)
    result = replay_event(capture_of(scenario, tmp_path), SESTAO, 1, 1)
    [flag] = [e for e in result.events if isinstance(e, GameFlag)]
    [proposal] = result.proposals
    assert (flag.game, flag.colour) == (proposal.game, "white")
    assert flag.t <= proposal.t


def test_ticking_up_to_t_never_spins_on_a_deadline_that_does_not_move() -> None:
    from boards.reconstruction.drive import deadlines_until

    moving = iter([1.0, 2.0, 5.0])
    assert list(deadlines_until(lambda: next(moving, None), 4.0)) == [1.0, 2.0]
    assert list(deadlines_until(lambda: 3.0, 10.0)) == [3.0, 10.0]  # stuck: t once, then stop
    assert list(deadlines_until(lambda: None, 10.0)) == []
