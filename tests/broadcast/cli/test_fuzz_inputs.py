"""Fuzzing what users hand to boardwire: event configs, TRF files, PGN games, capture
files and command-line arguments. Whatever comes in, the answer is a clear exit code
(0, 1 or 2) and a message, never a traceback and never the "internal error" safety net.

In-process (`broadcast.cli.main` with capsys), so a few hundred cases take seconds.
"""

from __future__ import annotations

import io
import json
import string
from pathlib import Path

import chess.pgn
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from boards.capture import CaptureError, read_capture
from boardsim.sim import load_games
from broadcast.cli import main
from broadcast.fide.trf import TrfError, read_trf
from tests.broadcast.config.test_loader import GOOD
from tests.support.paths import ROOT

TRF_SAMPLE = (ROOT / "tests" / "data" / "swiss-unplayed.trf").read_text(encoding="utf-8")
PGN_SAMPLE = (ROOT / "examples" / "games" / "worldcup2025-sample.pgn").read_text(encoding="utf-8")[
    :3000
]

FUZZ = settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """`boardwire argv` in-process: its exit code and everything it printed."""
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's usage errors
        code = exc.code if isinstance(exc.code, int) else 2
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "Traceback" not in text, (argv, text[-2000:])
    assert "internal error" not in text, (argv, text[-2000:])
    assert code in (0, 1, 2), (argv, code, text[-500:])
    if code != 0:
        assert captured.err.strip() or captured.out.strip(), "an error must say something"
    return code, text


@st.composite
def mutated(draw: st.DrawFn, base: str, alphabet: str = string.printable) -> str:
    """`base` with a few random edits: replaced, deleted, duplicated or inserted text."""
    text = base
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        at = draw(st.integers(0, len(text) - 1))
        end = min(len(text), at + draw(st.integers(0, 40)))
        edit = draw(st.sampled_from(["replace", "delete", "insert", "duplicate", "cut"]))
        junk = draw(st.text(alphabet=alphabet, max_size=30))
        if edit == "replace":
            text = text[:at] + junk + text[end:]
        elif edit == "delete":
            text = text[:at] + text[end:]
        elif edit == "insert":
            text = text[:at] + junk + text[at:]
        elif edit == "duplicate":
            text = text[:end] + text[at:end] * draw(st.integers(1, 50)) + text[end:]
        else:
            text = text[:at]
    return text


HOSTILE_VALUES = st.sampled_from(
    [
        "[" * 3000 + "]" * 3000,
        '"' + "A" * 300 + '"',
        '"\\u001b[31mred"',
        "99999999999999999999",
        "-1",
        "nan",
        "inf",
        '""',
        "{}",
        "[]",
        "1979-05-27T07:32:00Z",
    ]
)


# -- event config ---------------------------------------------------------------------------------


@FUZZ
@given(text=mutated(GOOD))
def test_check_on_a_damaged_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = tmp_path / "event.toml"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    run_cli(["check", str(path)], capsys)


@FUZZ
@given(
    key=st.sampled_from(["name", "site", "rounds", "time_control", "tiebreaks", "timezone"]),
    value=HOSTILE_VALUES,
)
def test_check_on_hostile_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], key: str, value: str
) -> None:
    lines = [
        f"{key} = {value}" if line.split("=")[0].strip() == key else line
        for line in GOOD.splitlines()
    ]
    path = tmp_path / "event.toml"
    path.write_text("\n".join(lines), encoding="utf-8")
    run_cli(["check", str(path)], capsys)


@FUZZ
@given(data=st.binary(max_size=300))
def test_check_on_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str], data: bytes) -> None:
    path = tmp_path / "event.toml"
    path.write_bytes(data)
    code, _ = run_cli(["check", str(path)], capsys)
    assert code != 0 or data.strip() == b""


# -- TRF -----------------------------------------------------------------------------------------


@FUZZ
@given(text=mutated(TRF_SAMPLE, alphabet=string.digits + " wb+-=10XHFUZ\n"))
def test_read_trf_raises_only_trf_errors(text: str) -> None:
    try:
        read_trf(text)
    except TrfError as exc:
        assert str(exc).startswith("TRF line")


@FUZZ
@given(text=mutated(TRF_SAMPLE))
def test_standings_on_a_damaged_trf(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str
) -> None:
    path = tmp_path / "t.trf"
    path.write_text(text, encoding="utf-8")
    run_cli(["standings", "--trf", str(path)], capsys)


# -- PGN -----------------------------------------------------------------------------------------


@FUZZ
@given(text=mutated(PGN_SAMPLE))
@example(text="f3 d1)(")  # python-chess 1.11's reader raises IndexError on this
def test_pgn_games_load_or_say_why(tmp_path: Path, text: str) -> None:
    path = tmp_path / "g.pgn"
    path.write_text(text, encoding="utf-8")
    try:
        games = load_games(path)
    except ValueError as exc:
        assert str(exc)
    else:
        assert all(isinstance(g, chess.pgn.Game) for g in games)


@FUZZ
@given(data=st.binary(max_size=400))
def test_pgn_bytes_load_or_say_why(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "g.pgn"
    path.write_bytes(data)
    try:
        load_games(path)
    except ValueError as exc:
        assert str(exc)


def test_pgn_reader_survives_a_deep_variation_nest() -> None:
    text = "1. e4 " + "(" * 2000 + "1. d4" + ")" * 2000 + " *"
    game = chess.pgn.read_game(io.StringIO(text))
    assert game is not None


# -- capture -------------------------------------------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=True) | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
CHUNK = st.fixed_dictionaries(
    {
        "t": st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(), JSON_VALUES),
        "dir": st.sampled_from(["in", "out", "up", ""]) | JSON_VALUES,
        "hex": st.binary(max_size=20).map(bytes.hex) | st.text(max_size=6),
    }
)
META = st.fixed_dictionaries(
    {
        "meta": st.fixed_dictionaries(
            {
                "started_at": st.one_of(
                    st.datetimes().map(lambda d: d.isoformat()), st.text(max_size=12), JSON_VALUES
                )
            }
        )
    }
)


@FUZZ
@given(lines=st.lists(st.one_of(CHUNK, META, JSON_VALUES), max_size=12))
def test_replay_on_a_fuzzed_capture(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], lines: list[object]
) -> None:
    path = tmp_path / "c.jsonl"
    text = "\n".join(json.dumps(line, allow_nan=True) for line in lines)
    path.write_text(("{}\n" if not text.startswith("{") else "") + text, encoding="utf-8")
    run_cli(["replay", str(path)], capsys)


@FUZZ
@given(data=st.binary(max_size=600))
def test_read_capture_of_raw_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "c.bin"
    path.write_bytes(data)
    try:
        read_capture(path)
    except CaptureError as exc:
        assert str(exc)


# -- command-line arguments ----------------------------------------------------------------------

ANY_VALUE = st.sampled_from(
    [
        "0",
        "-1",
        "1",
        "7",
        "999",
        "99999",
        "nan",
        "inf",
        "-inf",
        "1e309",
        "",
        " ",
        "x",
        "²",
        "1.5",
        "0x10",
        "--",
        "-",
        "/nonexistent",
        "/dev/null",
        "::1",
        "300.1.1.1",
    ]
) | st.text(max_size=6)

SERVE_FLAGS = [
    "--port",
    "--delay",
    "--speed",
    "--round",
    "--host",
    "--db",
    "--games",
    "--board",
    "--export",
    "--trusted-proxy",
    "--public-url",
    "--lichess-round",
]


@FUZZ
@given(
    pairs=st.lists(st.tuples(st.sampled_from(SERVE_FLAGS), ANY_VALUE), max_size=4),
    typo=st.booleans(),
)
def test_serve_arguments_fail_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], pairs: list[tuple[str, str]], typo: bool
) -> None:
    # The event file does not exist: whatever parses must still stop before serving.
    argv = ["serve", str(tmp_path / "missing.toml")]
    for flag, value in pairs:
        argv += [flag, value] if not value.startswith("-") else [f"{flag}={value}"]
    if typo:
        argv.append("--speeed")
    code, text = run_cli(argv, capsys)
    assert code == 2
    if typo:
        assert "usage: boardwire serve" in text


COMMANDS = st.sampled_from(
    [
        ["check"],
        ["standings", "--trf"],
        ["standings", "--event"],
        ["pairings", "--trf"],
        ["pairings", "--berger"],
        ["export"],
        ["replay"],
    ]
)
EXTRA = st.lists(
    st.sampled_from(
        [
            "--round",
            "--rounds",
            "--json",
            "--db",
            "--section",
            "--pgn",
            "--next",
            "--edition",
            "--tiebreaks",
            "--unrated",
            "--board",
            "--double",
            "--bogus",
        ]
    ).flatmap(lambda flag: st.tuples(st.just(flag), ANY_VALUE)),
    max_size=3,
)


@FUZZ
@given(command=COMMANDS, target=ANY_VALUE, extra=EXTRA)
def test_file_commands_fail_clearly(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    command: list[str],
    target: str,
    extra: list[tuple[str, str]],
) -> None:
    if (
        command == ["pairings", "--berger"]
        and target.strip().isascii()
        and target.strip().isdigit()
        and int(target) > 40
    ):
        target = "40"  # a Berger table of 99999 players is big, not wrong
    argv = [*command, target if not target.startswith("-") else f"./{target}"]
    for flag, value in extra:
        argv += [flag, value] if not value.startswith("-") else [f"{flag}={value}"]
    # Relative names land in tmp_path, never in the worktree.
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        run_cli(argv, capsys)
