"""TRF-16 export of a section's results: header records from the config, codes, ranks."""

from __future__ import annotations

from broadcast.export.trf import section_trf, section_trf_file
from broadcast.fide.berger import berger_round
from broadcast.fide.crosstable import ResultCode
from broadcast.fide.pairing import Pairing
from broadcast.fide.trf import read_trf
from broadcast.tournament.tournament_events import ResultRecorded
from tests.support.export import event, paired


def test_round_robin_report_reads_back_with_headers_and_results() -> None:
    cfg = event()
    state = paired(cfg, "Masters", 1, list(berger_round(8, 1)))
    for white, result in [(1, "1-0"), (2, "+-"), (3, "1/2-1/2"), (4, "0-1")]:
        state = state.apply(ResultRecorded("Masters", 1, white, result))
    text = section_trf(state, cfg, "Masters")
    report = read_trf(text)
    assert report.name == "Pamplona Masters"
    assert report.city == "Iruña Park Hotel, Pamplona"
    assert (report.start_date, report.end_date) == ("2025/12/22", "2025/12/29")
    assert report.time_control == "7200+30"
    assert report.declared_rounds == 7
    assert report.tiebreaks == ["SB", "DE", "WIN"]
    assert report.round_dates[:2] == ["25/12/22", "25/12/23"]
    assert len(report.round_dates) == 7
    ct = report.crosstable
    assert ct.system == "round-robin"
    assert ct.entry(2, 1).result is ResultCode.FORFEIT_WIN
    assert ct.entry(7, 1).result is ResultCode.FORFEIT_LOSS
    assert ct.entry(3, 1).result is ResultCode.DRAW
    assert ct.scores() == state.section("Masters").to_crosstable().scores()
    # Ranks are the standings' (SB, DE, WIN): equal rows share their rank.
    ranks = {p.start: p.rank for p in ct.players}
    assert ranks[3] == ranks[6] == 4
    assert ranks[4] == ranks[7] == ranks[8] == 6


def test_swiss_byes_and_section_name() -> None:
    cfg = event("sestao-2025-swiss")
    pairs = [Pairing(b, 2 * b - 1, 2 * b) for b in range(1, 12)]
    pairs.append(Pairing(0, 23, None))
    state = paired(cfg, "Open", 1, pairs)
    state = state.apply(ResultRecorded("Open", 1, 1, "1-0"))
    ct = section_trf_file(state, cfg, "Open").crosstable
    assert ct.entry(23, 1).result is ResultCode.PAIRING_BYE
    assert ct.entry(24, 1).result is ResultCode.ZERO_BYE
    report = read_trf(section_trf(state, cfg, "Open"))
    assert report.name == "Sestao 2025"
    assert report.crosstable.system == "swiss"
    assert report.crosstable.entry(1, 1).result is ResultCode.WIN
    assert report.crosstable.entry(23, 1).result is ResultCode.PAIRING_BYE


def test_several_sections_name_the_section() -> None:
    cfg = event("donostia-2009-round-robin")
    name = cfg.sections[2].name
    state = paired(cfg, name, 1, list(berger_round(10, 1)))
    report = read_trf(section_trf(state, cfg, name))
    assert report.name == f"{cfg.name} - {name}"
    assert len(report.crosstable.players) == 10


def test_an_unrated_player_has_a_blank_rating_not_zero() -> None:
    # Audit D11: `   0` reads as a rating of 0; TRF leaves an unrated player's field blank.
    import dataclasses

    cfg = event("sestao-2025-swiss")
    section = cfg.sections[0]
    players = tuple(
        dataclasses.replace(p, rating=0) if p.number == 24 else p for p in section.players
    )
    cfg = dataclasses.replace(cfg, sections=(dataclasses.replace(section, players=players),))
    pairs = [Pairing(b, 2 * b - 1, 2 * b) for b in range(1, 13)]
    state = paired(cfg, "Open", 1, pairs)
    lines = {int(x[4:8]): x for x in section_trf(state, cfg, "Open").splitlines() if x[:3] == "001"}
    assert lines[24][48:52] == "    "
    assert lines[23][48:52].strip().isdigit() and int(lines[23][48:52]) > 0
    assert read_trf(section_trf(state, cfg, "Open")).crosstable.players[23].rating is None
