"""Every CLI error on a bad argument, port or file is one clear line and a non-zero exit,
without -v and without a traceback; a subcommand's bad option prints its own usage."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from broadcast.cli import main
from broadcast.journal.store import Journal
from tests.support.paths import ROOT

EVENT = ROOT / "examples" / "pamplona-masters.toml"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own errors
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    return code, err


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_a_subcommand_typo_prints_the_subcommand_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err = _run(["serve", str(EVENT), "--speeed", "2"], capsys)
    assert code == 2
    assert "usage: boardwire serve" in err and "unrecognized arguments: --speeed" in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--port", "99999"], "a port is a number from 1 to 65535"),
        (["--port", "0"], "a port is a number"),
        (["--delay", "-5"], "must be 0 or more"),
        (["--delay", "nan"], "finite"),
        (["--delay", "inf"], "finite"),
        (["--speed", "inf"], "finite"),
        (["--speed", "0"], "more than 0"),
        (["--round", "0"], "from 1"),
        (["--round", "-1"], "from 1"),
    ],
)
def test_serve_refuses_bad_values_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, err = _run(["serve", str(EVENT), "--db", str(tmp_path / "j.sqlite"), *extra], capsys)
    assert code == 2 and message in err
    assert "usage: boardwire serve" in err
    assert not (tmp_path / "j.sqlite").exists()  # nothing started


@pytest.mark.parametrize(
    ("games", "message"),
    [
        ("missing.pgn", "cannot read PGN file"),
        ("empty.pgn", "holds no PGN games"),
        ("bad.pgn", "does not parse"),
        ("latin1.pgn", "--games"),
    ],
)
def test_serve_refuses_bad_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], games: str, message: str
) -> None:
    (tmp_path / "empty.pgn").write_text("")
    (tmp_path / "bad.pgn").write_text('[Event "x"]\n\n1. e4 e5 2. Kxe8 *\n')
    (tmp_path / "latin1.pgn").write_bytes('[White "Ibáñez"]\n\n1. e4 *\n'.encode("latin-1"))
    argv = ["serve", str(EVENT), "--sim", "--games", str(tmp_path / games)]
    code, err = _run([*argv, "--db", str(tmp_path / "j.sqlite")], capsys)
    assert code == 2 and message in _one_line(err)


def test_serve_round_beyond_the_event(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(
        ["serve", str(EVENT), "--round", "999", "--db", str(tmp_path / "j.sqlite")], capsys
    )
    assert code == 2 and "the event has 7 rounds" in _one_line(err)


def test_serve_on_a_port_in_use(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, err = _run(
            ["serve", str(EVENT), "--port", str(port), "--db", str(tmp_path / "j.sqlite")],
            capsys,
        )
    assert code == 2 and "the port is in use" in _one_line(err)


def test_serve_on_a_bad_host(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(
        ["serve", str(EVENT), "--host", "no.such.host.invalid", "--db", str(tmp_path / "j")],
        capsys,
    )
    assert code == 2 and "cannot listen on no.such.host.invalid" in _one_line(err)


def test_serve_refuses_another_events_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "j.sqlite"
    journal = Journal(db)
    journal.set_meta("event", "Some Other Open")
    journal.close()
    code, err = _run(["serve", str(EVENT), "--db", str(db)], capsys)
    assert code == 2 and "belongs to the event 'Some Other Open'" in _one_line(err)


def test_serve_with_a_foreign_db_leaves_it_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = tmp_path / "accounts.sqlite"
    shutil.copy(ROOT / "tests" / "data" / "rr-forfeit.trf", foreign)  # not even SQLite
    before = foreign.read_bytes()
    code, err = _run(["serve", str(EVENT), "--db", str(foreign)], capsys)
    assert code == 2 and "not a boardwire journal" in _one_line(err)
    assert foreign.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["accounts.sqlite"]


def test_serve_with_a_missing_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["serve", str(tmp_path / "nope.toml")], capsys)
    # A config error lists its problems, one a line, under one heading line.
    assert code == 2 and err.startswith("boardwire: 1 problem") and "file not found" in err


@pytest.mark.parametrize(
    ("port", "message"),
    [
        ("/nonexistent/ttyACM9", "no such port"),
        ("__file__", "is not a serial port (a regular file)"),
        ("/dev/null", "is not a serial port"),
    ],
)
def test_watch_on_a_bad_port(capsys: pytest.CaptureFixture[str], port: str, message: str) -> None:
    path = __file__ if port == "__file__" else port
    code, err = _run(["watch", path], capsys)
    assert code == 2 and message in _one_line(err)


def test_replay_of_a_missing_capture(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["replay", str(tmp_path / "none.jsonl")], capsys)
    assert code == 2 and "cannot read the capture" in _one_line(err)


def _last_line_and_usage(err: str, command: str) -> str:
    """argparse's refusal: the subcommand's usage, then one line saying what is wrong."""
    assert f"usage: boardwire {command}" in err
    return err.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--delay", "nan"], "--delay: must be a finite number"),
        (["--delay", "inf"], "--delay: must be a finite number"),
        (["--delay", "-1"], "--delay: must be 0 or more"),
        (["--speed", "inf"], "--speed: must be a finite number"),
        (["--speed", "0"], "--speed: must be more than 0"),
        (["--seconds", "nan"], "--seconds: must be a finite number"),
        (["--port", "0"], "--port: a port is a number"),
        (["--boards", "0"], "unrecognized arguments: --boards 0"),  # the demo has four boards
    ],
)
def test_demo_refuses_bad_values_before_starting(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    code, err = _run(["demo", *extra], capsys)
    assert code == 2
    last = _last_line_and_usage(err, "demo")
    assert last.startswith("boardwire demo: error:") and message in last


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--boards", "-1"], "--boards: must be a whole number from 1 to 99"),
        (["--boards", "0"], "--boards: must be a whole number from 1 to 99"),
        (["--boards", "100"], "--boards: must be a whole number from 1 to 99"),
        (["--boards", "x"], "--boards: must be a whole number from 1 to 99"),
        (["--speed", "inf"], "--speed: must be a finite number"),
        (["--speed", "nan"], "--speed: must be a finite number"),
        (["--speed", "-2"], "--speed: must be more than 0"),
        (["--max-think", "inf"], "--max-think: must be a finite number"),
        (["--start-after", "nan"], "--start-after: must be a finite number"),
        (["--start-after", "-3"], "--start-after: must be 0 or more"),
        (["--first-serial", "-5"], "--first-serial: must be a whole number from 1 to 16383"),
        (["--first-serial", "16380", "--boards", "5"], "goes past serial 16383"),
    ],
)
def test_sim_refuses_bad_values_before_starting(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    rundir = tmp_path / "run"
    code, err = _run(["sim", "--rundir", str(rundir), *extra], capsys)
    assert code == 2
    last = _last_line_and_usage(err, "sim")
    assert last.startswith("boardwire sim: error:") and message in last
    assert not rundir.exists()  # no board was started


def test_demo_refuses_another_events_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "j.sqlite"
    journal = Journal(db)
    journal.set_meta("event", "Some Other Open")
    journal.close()
    code, err = _run(["demo", "--db", str(db)], capsys)
    assert code == 2 and "belongs to the event 'Some Other Open'" in _one_line(err)


def test_demo_with_a_foreign_db_leaves_it_untouched(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    foreign = tmp_path / "notes.txt"
    foreign.write_text("not a journal\n")
    code, err = _run(["demo", "--db", str(foreign)], capsys)
    assert code == 2 and "not a boardwire journal" in _one_line(err)
    assert foreign.read_text() == "not a journal\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
