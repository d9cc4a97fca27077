"""Every tie-break on real TRFs against gacrux (FIDE's MIT tie-break code), both editions.

gacrux is imported here only, as an oracle. It counts every round up to the one it is
told as played or unplayed, so the comparison uses the rounds every player has a result
for (our live standings leave rounds without result out instead).
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache
from pathlib import Path

import pytest
from gacrux.tiebreak import tiebreak as GacruxTiebreak
from gacrux.trf2json import trf2json

from broadcast.fide.crosstable import Crosstable
from broadcast.fide.standings import compute_standings
from broadcast.fide.trf import load_trf
from tests.support.paths import DATA

SHARED = Path("/work/shared/testdata")
FILES = [
    SHARED / "trf" / "open-gros-donostia-2010.trf",
    *sorted((SHARED / "pairings").glob("*.trf")),
    DATA / "swiss-unplayed.trf",
]
CODES = [
    "BH", "BH-C1", "BH-C2", "BH-M1", "BH-M2", "SB", "SB-C1", "PS", "WIN", "WON", "BPG",
    "BWG", "ARO", "ARO-C1", "TPR", "APRO", "KS",
]  # fmt: skip
UNRATED = 1400  # the Donostia file has unrated players; both sides use this rating


def complete_rounds(ct: Crosstable) -> int:
    """The last round n such that every player has a result in rounds 1..n."""
    n = 0
    while n < ct.rounds and all(row[n].result is not None for row in ct.entries):
        n += 1
    return n


@cache
def oracle(
    path: Path, codes: tuple[str, ...], rounds: int, edition: int, rr: bool
) -> dict[int, tuple[int, list[object]]]:
    chessfile = trf2json()
    chessfile.parse_file(path.read_text(encoding="latin-1"), 0)
    tournament = chessfile.get_tournament(1)
    names = ["PTS"] + [c.replace("-", "/") + f"/V{edition}" for c in codes]
    params: dict[str, object] = {
        "tiebreak": names,
        "check": False,
        "current_round": rounds,
        "unrated": UNRATED,
        ("pre_determined" if rr else "swiss"): True,
    }
    engine = GacruxTiebreak(tournament, rounds, params)
    result = engine.compute_tiebreaks(tournament, params)
    return {c["cid"]: (c["rank"], c["tiebreakScore"][1:]) for c in result["competitors"]}


def same(mine: float | None, theirs: object) -> bool:
    if mine is None or theirs is None:
        return mine is None and theirs is None
    assert isinstance(theirs, (Decimal, int, float))
    return abs(float(theirs) - mine) < 1e-9


CASES = [(f, e) for f in FILES for e in (2024, 2026)]


@pytest.mark.parametrize(("path", "edition"), CASES, ids=[f"{f.stem}-{e}" for f, e in CASES])
def test_every_tiebreak_matches_gacrux(path: Path, edition: int) -> None:
    ct = load_trf(path).crosstable
    n = complete_rounds(ct)
    assert n >= 1
    expected = oracle(path, tuple(CODES), n, edition, False)
    standings = compute_standings(ct, CODES, edition=edition, rounds=n, unrated_rating=UNRATED)  # type: ignore[arg-type]
    mismatches = [
        (row.start, code, row.tiebreaks[code], expected[row.start][1][i])
        for row in standings.rows
        for i, code in enumerate(CODES)
        if not same(row.tiebreaks[code], expected[row.start][1][i])
    ]
    assert mismatches == []
    assert {r.start: r.rank for r in standings.rows} == {s: v[0] for s, v in expected.items()}


@pytest.mark.parametrize(("path", "edition"), CASES, ids=[f"{f.stem}-{e}" for f, e in CASES])
def test_direct_encounter_and_sestao_list_match_gacrux(path: Path, edition: int) -> None:
    ct = load_trf(path).crosstable
    n = complete_rounds(ct)
    for codes in (("DE",), ("BH-C1", "SB", "PS", "DE", "APRO"), ("WIN", "DE", "BH")):
        expected = oracle(path, codes, n, edition, False)
        standings = compute_standings(
            ct, list(codes), edition=edition, rounds=n, unrated_rating=UNRATED
        )  # type: ignore[arg-type]
        for row in standings.rows:
            assert row.rank == expected[row.start][0], (codes, row)
            for i, code in enumerate(codes):
                assert same(row.tiebreaks[code], expected[row.start][1][i]), (codes, code, row)


def test_direct_encounter_separates_players_on_real_data() -> None:
    # Guard against a DE that never separates anyone (all zeros would pass the above).
    path = SHARED / "pairings" / "issue_7.trf"
    ct = load_trf(path).crosstable
    standings = compute_standings(ct, "DE", rounds=complete_rounds(ct))
    assert {r.start: r.tiebreaks["DE"] for r in standings.rows if r.start in (7, 8, 11)} == {
        8: 1.0,
        7: 2.0,
        11: 3.0,
    }


def test_round_robin_fixture_matches_gacrux() -> None:
    path = DATA / "rr-forfeit.trf"
    ct = load_trf(path).crosstable
    assert ct.system == "round-robin"
    codes = ("BH", "SB", "DE", "WIN", "WON", "BPG", "BWG", "PS", "KS", "ARO", "TPR")
    expected = oracle(path, codes, 3, 2024, True)
    standings = compute_standings(ct, list(codes), edition=2024)
    for row in standings.rows:
        assert row.rank == expected[row.start][0]
        for i, code in enumerate(codes):
            assert same(row.tiebreaks[code], expected[row.start][1][i]), (code, row)
