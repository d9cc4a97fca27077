"""The regulation tables of the config: no-shows, withdrawal, play-off, prizes."""

from __future__ import annotations

import pytest

from broadcast.config import ConfigError, load_event_text
from tests.broadcast.config.test_loader import GOOD
from tests.support.paths import ROOT

RULES = """
[section.no_shows]
first_round = "exclude"
single_absence = "disqualify-unless-continue"
on_limit = "withdraw"

[section.withdrawal]
remaining_games = "remove"

[section.playoff]
time_control = "300"
games = 2
armageddon_time_control = "w:300,b:240"

[section.prizes]
places = [300, 200]
currency = "USD"

[[section.prizes.pool]]
amount = 100
"""


def _with(tables: str) -> str:
    # The tables go right after the section's keys (before its byes table).
    return GOOD.replace("[section.byes]", tables.strip() + "\n\n[section.byes]", 1)


def test_regulation_tables_load() -> None:
    section = load_event_text(_with(RULES), "/tmp/event.toml").sections[0]
    assert section.no_shows.first_round == "exclude"
    assert section.no_shows.single_absence == "disqualify-unless-continue"
    assert section.no_shows.on_limit == "withdraw"
    assert section.withdrawal.remaining_games == "remove"
    assert section.playoff is not None and section.playoff.games == 2
    assert section.playoff.armageddon_time_control.initial_seconds("black") == 240
    assert section.prizes is not None and section.prizes.places == (300.0, 200.0)
    assert section.prizes.pools[0].amount == 100.0 and section.prizes.currency == "USD"


def test_defaults_without_the_tables() -> None:
    section = load_event_text(GOOD, "/tmp/event.toml").sections[0]
    assert section.no_shows.on_limit == "alert" and section.no_shows.first_round == "count"
    assert section.playoff is None and section.prizes is None


@pytest.mark.parametrize(
    ("tables", "message"),
    [
        ('[section.no_shows]\nfirst_round = "kick"', "first_round = 'kick' is not valid"),
        ("[section.no_shows]\nlimit = 3", "contradicts no_show_limit = 2"),
        ("[section.no_shows]\nlimt = 3", "unknown key"),
        ('[section.withdrawal]\nremaining_games = "annul"', "is not valid"),
        (
            '[section.playoff]\ntime_control = "300"\narmageddon_time_control = "300"',
            "different times",
        ),
        ('[section.playoff]\narmageddon_time_control = "w:300,b:240"', "is missing"),
        ('[section.prizes]\nplaces = ["a lot"]', "list of amounts"),
        ("[section.prizes]\n[[section.prizes.pool]]\namount = -5", "amount = a number >= 0"),
        (
            '[section.playoff]\ntime_control = "300"\narmageddon_time_control = "w:300,b:240"\n'
            '[section.prizes]\nplaces = [100]\nties = "share-points"',
            "which [section.playoff] decides",
        ),
    ],
)
def test_mistakes_are_reported(tables: str, message: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_event_text(_with(tables), "/tmp/event.toml")
    assert any(message in issue.message for issue in info.value.issues), info.value.issues


def test_check_describes_the_regulation_tables() -> None:

    from broadcast.cli.check import describe
    from broadcast.config import load_event

    root = ROOT / "examples"
    pamplona = "\n".join(describe(load_event(root / "pamplona-masters.toml")))
    assert "reaching the no-show limit withdraws the player at once" in pamplona
    assert "prizes (EUR): places 2000, 1000, 500, ties share, pools 3500 by wins" in pamplona
    sestao = "\n".join(describe(load_event(root / "sestao-2025-swiss.toml")))
    assert "absent in round 1: excluded from the event" in sestao
    donostia = "\n".join(describe(load_event(root / "donostia-2009-round-robin.toml")))
    assert "Armageddon w:300,b:240 (White 5 min; Black 4 min; a draw: black wins)" in donostia


def test_check_takes_every_example_at_once_and_names_each_regulation_item(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`boardwire check examples/*.toml`: one report per file, each regulation item
    described with what it does (and where the desk acts on it)."""

    from tests.test_examples import _run

    examples = sorted(str(p) for p in (ROOT / "examples").glob("*.toml"))
    code, out, _ = _run(["check", *examples], capsys)
    assert code == 0 and out.count("OK: the config is valid.") == len(examples) == 6
    reports = dict(zip(examples, out.split("== ")[1:], strict=True))
    names = ("donostia-2009-round-robin", "pamplona-masters", "sestao-2025-swiss-hall")
    donostia, pamplona, hall, sestao = (
        reports[str(ROOT / "examples" / f"{name}.toml")] for name in (*names, "sestao-2025-swiss")
    )
    assert "round 1 matches (team Berger table" in reports[examples[2]]  # the league
    assert "desk 'Player asks to continue'" in hall
    assert "tie for first: undecided until played off" in donostia
    assert "desk 'Pair play-off game'" in donostia
    assert "forfeits won by the opponents" in pamplona
    assert "(players level after every tie-break share)" in pamplona
    assert "desk 'Player asks to continue'" in sestao
    assert "byes: up to 3 worth 0.5, not in rounds 8, 9" in sestao
    bad = _run(["check", examples[0], "/nonexistent/event.toml"], capsys)
    assert bad[0] == 1
