"""`player_results`: the event's word, a section's own, and a value that is no boolean."""

from __future__ import annotations

import pytest

from broadcast.actions.table import players_enter_results
from broadcast.config import load_event_text
from broadcast.config.errors import ConfigError
from tests.support.paths import ROOT

EVENT = ROOT / "examples" / "pamplona-masters.toml"


def _text(event: str = "", section: str = "") -> str:
    text = EVENT.read_text(encoding="utf-8")
    text = text.replace(
        'automatic_results = "confirm"', f'automatic_results = "confirm"\n{event}', 1
    )
    return text.replace('name = "Masters"', f'name = "Masters"\n{section}', 1)


def test_off_unless_the_event_or_the_section_says_so() -> None:
    assert not players_enter_results(load_event_text(_text(), EVENT), "Masters")
    assert players_enter_results(load_event_text(_text("player_results = true"), EVENT), "Masters")
    on_off = load_event_text(_text("player_results = true", "player_results = false"), EVENT)
    assert not players_enter_results(on_off, "Masters")
    off_on = load_event_text(_text("", "player_results = true"), EVENT)
    assert players_enter_results(off_on, "Masters")
    assert not players_enter_results(off_on, "No such section")


def test_a_value_that_is_no_boolean_is_refused_with_its_place() -> None:
    with pytest.raises(ConfigError, match=r"player_results must be true or false"):
        load_event_text(_text('player_results = "yes"'), EVENT)
