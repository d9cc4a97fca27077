"""`[section.teams]`'s `swiss_colours` (C.04.6's colour preference variant) and
`individual_tiebreaks` (what ranks a team section's players), read and refused with the
rule in words (issue 33)."""

from __future__ import annotations

import pytest

from broadcast.config import load_event_text
from broadcast.config.errors import ConfigError
from tests.support.paths import ROOT

SWISS = (ROOT / "tests" / "data" / "teams-swiss.toml").read_text(encoding="utf-8")


def _with(line: str) -> str:
    return SWISS.replace("[section.teams]\n", f"[section.teams]\n{line}\n", 1)


def test_the_defaults_are_variant_a_and_points_alone() -> None:
    section = load_event_text(SWISS, "teams-swiss.toml").sections[0]
    assert section.team_rules is not None
    assert section.team_rules.swiss_colours == "A"
    assert section.individual_tiebreaks == ()


def test_the_options_are_read() -> None:
    text = _with('swiss_colours = "B"\nindividual_tiebreaks = ["bh-c1", "TPR"]')
    section = load_event_text(text, "teams-swiss.toml").sections[0]
    assert section.team_rules is not None
    assert section.team_rules.swiss_colours == "B"
    assert section.individual_tiebreaks == ("BH-C1", "TPR")
    assert section.tiebreaks == ()


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('swiss_colours = "C"', "swiss_colours"),
        ('individual_tiebreaks = ["GP"]', "unknown tie-break code 'GP'"),
        ('individual_tiebreaks = ["WIN", "win"]', "listed twice"),
        ('individual_tiebreaks = "WIN"', "must be a list"),
    ],
)
def test_wrong_options_are_refused(line: str, said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load_event_text(_with(line), "teams-swiss.toml")
    assert said in str(caught.value)
