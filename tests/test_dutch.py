"""FIDE Dutch through caissify_pairings, checked against bbpPairings' own cases
(/work/shared/testdata/pairings: TRF in, the endorsed engine's pairs out), and
pairings imported from a pairing program's TRF."""

from __future__ import annotations

from pathlib import Path

import pytest

from broadcast.fide.crosstable import Player, ResultCode, build_crosstable
from broadcast.fide.dutch import next_round_number, pair_round
from broadcast.fide.pairing_import import PairingImportError, import_round
from broadcast.fide.trf import load_trf

CASES = Path("/work/shared/testdata/pairings")


def _expected(name: str) -> list[tuple[int, int]]:
    # Line ends may be bare CR: splitlines() handles CR, LF and CRLF.
    lines = (CASES / f"{name}.expected").read_bytes().decode().splitlines()
    count = int(lines[0])
    pairs = [tuple(int(x) for x in line.split()) for line in lines[1:] if line.strip()]
    assert len(pairs) == count
    return [(a, b) for a, b in pairs]


@pytest.mark.parametrize("name", ["dutch_2025_C5", "dutch_2025_C9", "issue_7"])
def test_next_round_matches_bbppairings(name: str) -> None:
    report = load_trf(CASES / f"{name}.trf")
    number = next_round_number(report.crosstable)
    got = pair_round(report.crosstable, number, total_rounds=report.declared_rounds)
    # bbpPairings lists boards in its own order; pairs and colours must be identical.
    assert sorted(p.as_pair() for p in got) == sorted(_expected(name))


def test_case_c5_leaves_out_the_player_with_a_pre_entered_zero_bye() -> None:
    report = load_trf(CASES / "dutch_2025_C5.trf")
    got = pair_round(report.crosstable, 3, total_rounds=3)
    assert 4 not in {x for p in got for x in p.players()}
    assert got[-1].is_bye and got[-1].white == 6 and got[-1].board == 0


def test_absent_players_and_withdrawals_are_not_paired() -> None:
    players = [Player(i, f"P{i}", 2500 - 10 * i) for i in range(1, 9)]
    ct = build_crosstable(players, 5)
    got = pair_round(ct, 1, absent={3})
    seen = [x for p in got for x in p.players()]
    assert 3 not in seen and sorted(seen) == [1, 2, 4, 5, 6, 7, 8]
    assert sum(p.is_bye for p in got) == 1  # seven players: one pairing bye
    # Round 1 of 8: top half against bottom half, colours alternating from White.
    assert [p.as_pair() for p in pair_round(ct, 1)] == [(1, 5), (6, 2), (3, 7), (8, 4)]


def test_pairing_bye_goes_to_someone_who_has_not_had_one() -> None:
    players = [Player(i, f"P{i}", 2500 - 10 * i) for i in range(1, 6)]
    r1 = pair_round(build_crosstable(players, 3), 1)
    bye_player = next(p.white for p in r1 if p.is_bye)
    from broadcast.fide.crosstable import Bye, Game

    games = [Game(1, p.white, p.black, "1/2-1/2") for p in r1 if p.black is not None]
    ct = build_crosstable(players, 3, games, [Bye(1, bye_player, ResultCode.PAIRING_BYE)])
    r2 = pair_round(ct, 2)
    assert next(p.white for p in r2 if p.is_bye) != bye_player
    played = {frozenset(p.players()) for p in r1 if p.black}
    assert not played & {frozenset(p.players()) for p in r2 if p.black}, "no rematches"


def test_import_reads_each_round_of_a_real_trf() -> None:
    report = load_trf(CASES / "issue_15.trf")  # 180 players, 11 rounds (bbpPairings check case)
    ct = report.crosstable
    for number in range(1, 12):
        imported = import_round(ct, number)
        seen = [x for p in imported.pairings for x in p.players()] + [s for s, _ in imported.byes]
        assert len(seen) == len(set(seen))
        assert [p.board for p in imported.pairings if not p.is_bye] == list(
            range(1, len(imported.pairings) - sum(p.is_bye for p in imported.pairings) + 1)
        )
        for p in imported.pairings:
            if p.black is not None:
                assert ct.entry(p.white, number).colour == "w"
                assert ct.entry(p.black, number).opponent == p.white
    first = import_round(ct, 1).pairings[0]
    assert first.as_pair() == (90, 1)  # player 1 had Black against 90 in round 1


def test_import_keeps_pre_entered_byes_apart() -> None:
    imported = import_round(load_trf(CASES / "dutch_2025_C5.trf").crosstable, 2)
    assert sorted(p.as_pair() for p in imported.pairings) == [(2, 1), (4, 3), (6, 5)]
    assert imported.byes == ()
    c5 = load_trf(CASES / "dutch_2025_C5.trf").crosstable
    with pytest.raises(PairingImportError):
        import_round(c5, 3)  # only a zero-point bye is written for round 3
    c9 = load_trf(CASES / "dutch_2025_C9.trf").crosstable
    r1 = import_round(c9, 1)
    assert r1.byes == ((5, "Z"),)
    assert sorted(p.as_pair() for p in r1.pairings) == [(1, 3), (4, 2)]


def test_import_board_order_follows_scores() -> None:
    ct = load_trf(CASES / "issue_7.trf").crosstable
    pairings = import_round(ct, 14).pairings
    before = {s: ct.score(s, upto=13) for s in ct.starts()}
    tops = [max(before[p.white], before[p.black or p.white]) for p in pairings if p.black]
    assert tops == sorted(tops, reverse=True)
