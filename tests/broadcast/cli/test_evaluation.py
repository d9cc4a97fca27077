"""`--eval`, `--eval-depth`, `--eval-time` on serve, demo and mirror: bad values are one
line and exit 2 before anything starts; without Stockfish the event is served without
evaluation, and the log says why and how to install it."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path

import pytest

import broadcast.analysis.engine as engine_module
from broadcast.analysis.engine import DEFAULT_DEPTH
from broadcast.cli import main
from broadcast.cli.evaluation import eval_settings
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


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["serve", str(EVENT), "--eval", "--eval-depth", "0"], "--eval-depth: must be"),
        (["serve", str(EVENT), "--eval", "--eval-depth", "61"], "at most 60"),
        (["demo", "--eval", "--eval-time", "-1"], "--eval-time: must be more than 0"),
        (["mirror", "--redis", "redis://x", "--event", "E", "--eval-time", "nan"], "finite"),
        (["serve", str(EVENT), "--eval-depth", "12"], "need --eval"),
        (["demo", "--eval-time", "1"], "need --eval"),
        (["mirror", "--redis", "redis://localhost", "--event", "E", "--eval-depth", "9"], "need"),
    ],
)
def test_bad_evaluation_options_are_one_line_and_exit_2(
    argv: list[str], says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, err = _run(argv, capsys)
    assert code == 2
    assert says in err, err


def _args(**kw: object) -> argparse.Namespace:
    return argparse.Namespace(**{"eval": False, "eval_depth": None, "eval_time": None, **kw})


def test_the_settings_the_options_ask_for() -> None:
    assert eval_settings(_args()) is None
    default = eval_settings(_args(eval=True))
    assert not isinstance(default, str) and default is not None
    assert (default.depth, default.seconds) == (DEFAULT_DEPTH, None)
    timed = eval_settings(_args(eval=True, eval_time=0.5))
    assert not isinstance(timed, str) and timed is not None
    assert (timed.depth, timed.seconds) == (None, 0.5)


def test_without_stockfish_the_event_is_served_without_evaluation(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(engine_module, "DEBIAN_STOCKFISH", tmp_path / "stockfish")
    with caplog.at_level(logging.WARNING):
        assert eval_settings(_args(eval=True)) is None
    assert "no Stockfish found" in caplog.text and "apt-get install stockfish" in caplog.text


@pytest.mark.parametrize("table", ["eval = true\n", "[event.eval]\ndepth = 18\n"])
def test_an_eval_key_in_the_event_file_says_where_evaluation_is_chosen(table: str) -> None:
    from broadcast.config import load_event_text
    from broadcast.config.errors import ConfigError

    text = EVENT.read_text(encoding="utf-8")
    if table.startswith("["):
        text = text.replace("[[section]]", table + "\n[[section]]", 1)
    else:
        text = text.replace("[event]\n", "[event]\n" + table, 1)
    with pytest.raises(ConfigError) as caught:
        load_event_text(text, EVENT)
    message = str(caught.value)
    assert "unknown key 'event.eval'" in message and "--eval" in message
