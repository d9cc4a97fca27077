"""Hand-computed tie-breaks for each unplayed-round category, both editions, and DE cases."""

from __future__ import annotations

import pytest

from broadcast.fide.crosstable import Bye, Game, Player, ResultCode, build_crosstable
from broadcast.fide.standings import compute_standings
from broadcast.fide.tiebreaks import TiebreakError, make_context, parse_tiebreaks
from broadcast.fide.tiebreaks.direct_encounter import direct_encounter
from broadcast.fide.tiebreaks.ratings import dp, performance
from broadcast.fide.tiebreaks.unplayed import Category, category, last_non_vur_round
from broadcast.fide.trf import load_trf
from tests.support.paths import DATA

# tests/data/swiss-unplayed.trf, worked by hand:
# R1: 1-2 1-0, 3-4 =, 5-6 forfeit (5 wins); R2: 1 H, 2-3 0-1, 4-5 =, 6 U;
# R3: 1-3 =, 2 Z (last round), 4-6 0-1, 5 Z (last round).
# Scores 1:2 2:0 3:2 4:1 5:1.5 6:2. Adjusted (category 5 -> draw): 2:0.5 5:2.0, others same.


def test_categories() -> None:
    ctx = make_context(load_trf(DATA / "swiss-unplayed.trf").crosstable)
    cats = {
        (s, v.round): category(v, last_non_vur_round(vs))
        for s, vs in ctx.views.items()
        for v in vs
        if not v.played
    }
    assert cats == {
        (1, 2): Category.REQUESTED_BYE_THEN_PLAYING,
        (2, 3): Category.REQUESTED_BYE_AT_END,
        (5, 1): Category.FORFEIT_WIN,
        (5, 3): Category.REQUESTED_BYE_AT_END,
        (6, 1): Category.FORFEIT_LOSS,
        (6, 2): Category.BYE_AWARDED,
    }
    assert ctx.adjusted == {1: 2.0, 2: 0.5, 3: 2.0, 4: 1.0, 5: 2.0, 6: 2.0}


# BH by hand, 2024 (dummy = own score):
#  1: 0.5 (opp 2 adj) + 2.0 (H, dummy) + 2.0 (opp 3)             = 4.5; C1 cuts the VUR 2.0 -> 2.5
#  6: 2.0 (forfeit loss, dummy) + 2.0 (PAB, dummy) + 1.0 (opp 4) = 5.0; C1 cuts the VUR -> 3.0
#  5: 1.5 (forfeit win, dummy) + 1.0 (opp 4) + 1.5 (Z, dummy)    = 4.0
#  2: 2.0 + 2.0 + 0.0 (Z, dummy = own 0)                         = 4.0
# 2026: byes' dummies capped at 0.5 x 3 rounds = 1.5, forfeits at the opponent's adjusted:
#  1: 0.5 + 1.5 + 2.0 = 4.0;  6: min(2, adj 5 = 2) + min(2, 1.5) + 1.0 = 4.5
EXPECTED = {
    2024: {
        1: {"BH": 4.5, "BH-C1": 2.5, "SB": 2.5, "WIN": 1, "WON": 1, "PS": 4.5},
        2: {"BH": 4.0, "BH-C1": 4.0, "SB": 0.0, "WIN": 0, "WON": 0, "PS": 0.0},
        5: {"BH": 4.0, "BH-C1": 2.5, "SB": 2.0, "WIN": 1, "WON": 0, "PS": 4.0},
        6: {"BH": 5.0, "BH-C1": 3.0, "SB": 3.0, "WIN": 2, "WON": 1, "PS": 3.0},
    },
    2026: {
        1: {"BH": 4.0, "BH-C1": 2.5, "SB": 2.25},
        6: {"BH": 4.5, "BH-C1": 2.5, "SB": 2.5},
        5: {"BH": 4.0},
    },
}


@pytest.mark.parametrize("edition", [2024, 2026])
def test_hand_computed_values(edition: int) -> None:
    ct = load_trf(DATA / "swiss-unplayed.trf").crosstable
    rows = {
        r.start: r for r in compute_standings(ct, "BH,BH-C1,SB,WIN,WON,PS", edition=edition).rows
    }  # type: ignore[arg-type]
    for start, values in EXPECTED[edition].items():
        for code, value in values.items():
            assert rows[start].tiebreaks[code] == value, (start, code)


def test_round_robin_forfeit_counts_as_game_and_bye_does_not() -> None:
    ct = load_trf(DATA / "rr-forfeit.trf").crosstable
    rows = {r.start: r for r in compute_standings(ct, "BH,SB,WON,BPG").rows}
    # Ben lost round 1 to Cid by forfeit: in a round robin that is a game against Cid (1.0).
    assert rows[2].tiebreaks["BH"] == 2.5 + 1.0 + 1.0
    assert rows[2].tiebreaks["WON"] == 1 and rows[3].tiebreaks["WON"] == 0
    with pytest.raises(TiebreakError, match="round robins in the 2026 edition"):
        compute_standings(ct, "BH", edition=2026)
    odd = build_crosstable(
        [Player(1, "A"), Player(2, "B"), Player(3, "C")],
        3,
        [Game(1, 1, 2, "1-0"), Game(2, 3, 1, "0-1"), Game(3, 2, 3, "1/2-1/2")],
        [
            Bye(1, 3, ResultCode.ZERO_BYE),
            Bye(2, 2, ResultCode.ZERO_BYE),
            Bye(3, 1, ResultCode.ZERO_BYE),
        ],
        system="round-robin",
    )
    rows = {r.start: r for r in compute_standings(odd, "BH,KS").rows}
    assert rows[1].tiebreaks["BH"] == 0.5 + 0.5  # the bye round adds nothing
    assert rows[1].tiebreaks["KS"] == 0.0  # limit: 50% of 2 games = 1 point; B and C have 0.5


def test_de_three_way_with_sub_group() -> None:
    # A beat B and C, B-C drawn: A first; B and C re-examined alone, still equal.
    ct = build_crosstable(
        [Player(i, f"P{i}") for i in (1, 2, 3)],
        2,
        [Game(1, 1, 2, "1-0"), Game(2, 3, 1, "0-1")],
    ).with_rounds(3)
    ct = ct.with_game(Game(3, 2, 3, "1/2-1/2"))
    assert direct_encounter(make_context(ct), [1, 2, 3]) == {1: 1.0, 2: 2.0, 3: 2.0}


def test_de_sub_group_is_re_applied() -> None:
    # Four tied: 1 and 2 beat 3 and 4, 1-2 drawn, 3 beat 4 -> tiers {1,2} {3} {4}; then 1-2 drawn.
    games = [
        Game(1, 1, 3, "1-0"), Game(1, 2, 4, "1-0"), Game(2, 1, 4, "1-0"), Game(2, 2, 3, "1-0"),
        Game(3, 1, 2, "1/2-1/2"), Game(3, 3, 4, "1-0"),
    ]  # fmt: skip
    ct = build_crosstable([Player(i, f"P{i}") for i in range(1, 5)], 3, games)
    assert direct_encounter(make_context(ct), [1, 2, 3, 4]) == {1: 1.0, 2: 1.0, 3: 3.0, 4: 4.0}
    assert direct_encounter(make_context(ct), [3, 4]) == {3: 1.0, 4: 2.0}


def test_de_incomplete_swiss_mini_table() -> None:
    players = [Player(i, f"P{i}") for i in range(1, 7)]
    # 1 beat 2; 3 met neither: 3 could still reach 2 points, so nobody ranks first.
    ct = build_crosstable(
        players, 1, [Game(1, 1, 2, "1-0"), Game(1, 3, 4, "1-0"), Game(1, 5, 6, "1-0")]
    )
    assert direct_encounter(make_context(ct), [1, 2, 3]) == {1: 0.0, 2: 0.0, 3: 0.0}
    # Two players who never met stay tied; a forfeit is no encounter in a Swiss.
    forfeit = build_crosstable(players[:2], 1, [Game(1, 1, 2, "+-")])
    assert direct_encounter(make_context(forfeit), [1, 2]) == {1: 0.0, 2: 0.0}
    # 1 beat 2 and 3 (2 points); 2 and 3 did not meet: 2 max 1, 3 max 1 -> 1 first, rest tied.
    ct2 = build_crosstable(players[:3], 2, [Game(1, 1, 2, "1-0"), Game(2, 3, 1, "0-1")])
    assert direct_encounter(make_context(ct2), [1, 2, 3]) == {1: 1.0, 2: 2.0, 3: 2.0}


def test_performance_table_and_rounding() -> None:
    assert dp(100) == 800 and dp(0) == -800 and dp(50) == 0 and dp(75) == 193 and dp(25) == -193
    # 2 of 3 = 66.67% -> 67% -> dp 125; ARO (2000+2001+2000)/3 = 2000.33 -> 2000
    assert performance([(2000, 1.0), (2001, 1.0), (2000, 0.0)]) == 2125
    # ARO rounds half up: (2000 + 2001) / 2 = 2000.5 -> 2001
    assert performance([(2000, 0.5), (2001, 0.5)]) == 2001


def test_dp_table_matches_fide_tables_in_gacrux() -> None:
    from gacrux import fidetables

    assert [dp(p) for p in range(101)] == list(fidetables.ScoreToDp)


def test_parser() -> None:
    specs = parse_tiebreaks("BH-C1, SB, PS, DE, APRO")
    assert [s.label for s in specs] == ["BH-C1", "SB", "PS", "DE", "APRO"]
    assert parse_tiebreaks("PTS BH/M1 BH-M2 BH-C2 SB-C1 ARO-C1 KS-L60")[0].cut_high == 1
    assert [s.label for s in parse_tiebreaks("BH/M1,BH-M2,KS-L60")] == ["BH-M1", "BH-M2", "KS-L60"]
    with pytest.raises(TiebreakError, match=r"unknown tie-break code 'BHX'.*did you mean BH"):
        parse_tiebreaks("BHX")
    with pytest.raises(TiebreakError, match="known codes: DE, WIN"):
        parse_tiebreaks("SB,XYZ")
    with pytest.raises(TiebreakError, match="DE takes no modifiers"):
        parse_tiebreaks("DE-C1")
    with pytest.raises(TiebreakError, match=r"'Q1' .* use C<n>"):
        parse_tiebreaks("SB-Q1")
    with pytest.raises(TiebreakError, match="appears twice"):
        parse_tiebreaks("SB,SB")
