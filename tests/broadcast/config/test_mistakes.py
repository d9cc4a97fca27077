"""Config mistakes an organizer makes, caught by `check`: a classical time control read in
seconds ("120+30" is 2 min + 30 s), the same player listed twice (an error naming both
lines), foreign players without a FIDE id where the regulation asks for one, and results
applied at once next to an early-draw rule."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from broadcast.cli import check
from broadcast.config import ConfigError, load_event, load_event_text
from broadcast.config.warnings import config_warnings
from clocks.timecontrol import parse_time_control, spell_time_control
from tests.broadcast.config.test_loader import GOOD, _errors, _line_of
from tests.support.paths import ROOT


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = check.run(argparse.Namespace(config=[str(path)]))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.parametrize(
    ("text", "spelled"),
    [
        ("5400+30", "90 min + 30 s per move"),
        ("120+30", "2 min + 30 s per move"),
        ("40/5400+30:1800+30", "90 min for 40 moves + 30 s per move, then 30 min + 30 s per move"),
        ("w:300,b:240", "White 5 min; Black 4 min"),
        ("90", "1 min 30 s"),
        ("45", "45 s"),
        ("1h30m+30", "90 min + 30 s per move"),
    ],
)
def test_time_controls_are_spelt_out_in_minutes(text: str, spelled: str) -> None:
    assert spell_time_control(parse_time_control(text)) == spelled


def test_a_base_time_under_ten_minutes_is_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "event.toml"
    path.write_text(GOOD.replace('time_control = "5400+30"', 'time_control = "120+30"'))
    code, out, _ = _check(path, capsys)
    assert code == 0
    assert "time control 120+30 (2 min + 30 s per move)" in out
    warning = next(line for line in out.splitlines() if "base time under 10 minutes" in line)
    assert warning.startswith("warning: section 'Open'") and '"7200+..."' in warning
    # GOOD applies results at once next to an early-draw rule: that is the other one.
    assert out.splitlines()[-1] == "OK: the config is valid (2 warnings above)."
    # At 10 minutes exactly it is no longer a mistake (a rapid section).
    rapid = load_event_text(GOOD.replace('"5400+30"', '"600+5"'), tmp_path / "r.toml")
    assert not [w for w in config_warnings(rapid) if "base time" in w]


def test_results_applied_at_once_next_to_an_early_draw_rule_are_flagged() -> None:
    event = load_event_text(GOOD, "/tmp/event.toml")  # "apply" and a rule of 30 moves
    [warning] = [w for w in config_warnings(event) if "early-draw" in w]
    assert 'automatic_results = "apply"' in warning and "move 30" in warning
    confirm = GOOD.replace('automatic_results = "apply"', 'automatic_results = "confirm"')
    assert not config_warnings(load_event_text(confirm, "/tmp/event.toml"))


def test_the_same_name_twice_is_an_error_with_both_lines() -> None:
    text = GOOD.replace('name = "Beta, Bob"', 'name = "alpha,  ANN"')
    errors = _errors(text)
    first, second = _line_of(text, 'name = "Alpha, Ann"'), _line_of(text, 'name = "alpha,  ANN"')
    [(line, message, hint)] = [e for e in errors if "listed twice" in e[1]]
    assert line == second
    assert f"lines {first} and {second}" in message and "the same name" in message
    assert "remove the duplicate" in hint


def test_the_same_fide_id_twice_is_an_error_with_both_lines() -> None:
    text = GOOD.replace("rating = 2400\n", 'rating = 2400\nfide_id = "123456"\n', 1)
    errors = _errors(text)
    first = _line_of(text, 'name = "Alpha, Ann"')
    second = _line_of(text, 'name = "Beta, Bob"')
    [(line, message, _)] = [e for e in errors if "FIDE id 123456" in e[1]]
    assert line == second and f"lines {first} and {second}" in message


def test_a_duplicated_csv_line_is_an_error_naming_both_csv_lines(tmp_path: Path) -> None:
    (tmp_path / "players.csv").write_text(
        "name,rating,fide_id\nAlpha,2400,111\nBeta,2300,222\nAlpha,2400,111\n", encoding="utf-8"
    )
    text = GOOD[: GOOD.index("[[section.player]]")] + GOOD[GOOD.index("[[board]]") :]
    text = text.replace("no_show_limit = 2\n", 'no_show_limit = 2\nplayers_csv = "players.csv"\n')
    path = tmp_path / "event.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_event(path)
    [issue] = [i for i in info.value.issues if "listed twice" in i.message]
    assert issue.file.name == "players.csv" and issue.line == 4
    assert "lines 2 and 4" in issue.message
    assert "players.csv:4: Alpha is listed twice (lines 2 and 4)" in str(info.value)


def test_foreign_players_without_a_fide_id_are_warned_when_the_section_asks(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    players = (
        '[[section.player]]\nname = "Home, Ane"\nfederation = "ESP"\n\n'
        '[[section.player]]\nname = "Away, Bo"\nfederation = "FRA"\n\n'
        '[[section.player]]\nname = "Away, Cy"\nfederation = "POR"\nfide_id = "999"\n\n'
    )
    text = GOOD[: GOOD.index("[[section.player]]")] + players + GOOD[GOOD.index("[[board]]") :]
    asked = text.replace(
        "no_show_limit = 2\n",
        'no_show_limit = 2\nhome_federation = "ESP"\nforeign_players_need_fide_id = true\n',
    )
    path = tmp_path / "event.toml"
    path.write_text(asked, encoding="utf-8")
    code, out, _ = _check(path, capsys)
    assert code == 0
    warned = [line for line in out.splitlines() if "no FIDE id" in line]
    assert warned == [
        "warning: section 'Open': player 2 Away, Bo (FRA) is foreign (not ESP) and has no "
        "FIDE id; the regulations ask foreign players for one before the event starts"
    ]
    # Without the setting, nobody is warned; the setting needs the home federation.
    assert not [w for w in config_warnings(load_event_text(text, path)) if "FIDE id" in w]
    lacking = text.replace(
        "no_show_limit = 2\n", "no_show_limit = 2\nforeign_players_need_fide_id = true\n"
    )
    assert any("home federation" in m for _, m, _ in _errors(lacking))


def test_the_examples_check_without_warnings(capsys: pytest.CaptureFixture[str]) -> None:
    for name in (
        "sestao-2025-swiss.toml",
        "pamplona-masters.toml",
        "donostia-2009-round-robin.toml",
    ):
        code, out, _ = _check(ROOT / "examples" / name, capsys)
        assert code == 0 and "warning:" not in out, name
    sestao = load_event(ROOT / "examples" / "sestao-2025-swiss.toml").sections[0]
    assert sestao.home_federation == "ESP" and sestao.foreign_players_need_fide_id
