"""TRF-16 reading and writing: exact columns, real files, tolerance, errors, round trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.fide.crosstable import (
    Bye,
    Crosstable,
    Game,
    Player,
    ResultCode,
    RoundEntry,
    build_crosstable,
)
from broadcast.fide.trf import TrfError, TrfFile, load_trf, read_trf, write_trf

SHARED = Path("/work/shared/testdata")
DONOSTIA = SHARED / "trf" / "open-gros-donostia-2010.trf"
REAL = [DONOSTIA, *sorted((SHARED / "pairings").glob("*.trf"))]


def pline(
    start: str = "   1",
    name: str = "A",
    rating: str = "",
    points: str = "",
    slots: tuple[str, ...] = (),
) -> str:
    """A player line put together at the reference columns (1-based 5, 15, 49, 81, 92...)."""
    text = list("001".ljust(120 + 10 * len(slots)))

    def put(col: int, value: str) -> None:
        text[col - 1 : col - 1 + len(value)] = value

    put(5, start)
    put(15, name)
    put(49, rating)
    put(81, points)
    for i, slot in enumerate(slots):
        put(92 + 10 * i, slot)
    return "".join(text).rstrip()


def test_reads_player_columns_of_donostia() -> None:
    report = load_trf(DONOSTIA)
    ct = report.crosstable
    first = ct.player(1)
    assert first == Player(
        start=1,
        name="Mirzoev Azer",
        rating=2527,
        fide_id=13400304,
        federation="AZE",
        title="g",
        sex="m",
        birth="1978",
        points=4.0,
        rank=1,
    )
    assert ct.player(6).rating is None and ct.player(6).fide_id is None  # 0 = none
    assert ct.entry(1, 1) == RoundEntry(26, "w", ResultCode.WIN)
    assert ct.entry(3, 4) == RoundEntry(6, "b", ResultCode.DRAW)
    assert ct.entry(8, 4) == RoundEntry(21, "w", ResultCode.FORFEIT_LOSS)
    assert ct.entry(52, 1) == RoundEntry(None, None, ResultCode.PAIRING_BYE)
    assert ct.entry(43, 5) == RoundEntry(None, None, ResultCode.HALF_BYE)
    assert ct.entry(1, 5) == RoundEntry()  # round 5 not played yet
    assert ct.rounds == 9 and report.declared_rounds == 9
    assert report.name == "XX Open Internacional de Gros"
    assert report.city == "Donostia" and report.start_date == "24/09/2010"
    assert report.chief_arbiter == "IA Mikel Larreategi Arana (22232540)"
    assert ct.system == "swiss"
    assert ct.validate() == []


@pytest.mark.parametrize("path", REAL, ids=[p.stem for p in REAL])
def test_real_files_recorded_points_match_and_round_trip(path: Path) -> None:
    report = load_trf(path)
    ct = report.crosstable
    assert ct.validate() == []
    for player in ct.players:
        assert player.points == ct.score(player.start)
    text = write_trf(report)
    again = read_trf(text)
    assert again.crosstable == ct
    assert write_trf(again) == text
    # Column by column, the written player lines say what the original ones said.
    original = [
        line.rstrip()
        for line in path.read_bytes().decode("latin-1").splitlines()
        if line.startswith("001")
    ]
    written = [line for line in text.splitlines() if line.startswith("001")]
    for old, new in zip(original, written, strict=True):
        assert new[:48] == old[:48] and new[52:57] == old[52:57]  # number .. name, federation
        # The rating, except an unrated player's: blank as TRF says, where the file has 0.
        assert new[48:52] == old[48:52] or (old[48:52].strip() == "0" and not new[48:52].strip())
        assert new[68:] == old[68:] or old[57:68].strip() == "0"


def test_donostia_writes_back_byte_for_byte_except_zero_fide_ids_and_ratings() -> None:
    original = DONOSTIA.read_text(encoding="latin-1").replace("\r\n", "\n").splitlines()
    written = write_trf(load_trf(DONOSTIA)).splitlines()
    assert len(original) == len(written)
    differ = [(a, b) for a, b in zip(original, written, strict=True) if a.rstrip() != b]
    # Vega writes 0 for "none" in both; we leave the fields blank.
    assert all(a[57:68].strip() == "0" or a[48:52].strip() == "0" for a, _ in differ)
    unrated = [b for a, b in differ if a[48:52].strip() == "0"]
    assert all(not b[48:52].strip() for b in unrated)


def test_written_columns_are_exact() -> None:
    ct = build_crosstable(
        [
            Player(1, "Carlsen, Magnus", 2830, 1503014, "NOR", "g", "m", "1990/11/30"),
            Player(2, "B", None),
        ],
        rounds=2,
        games=[Game(1, 1, 2, "1-0")],
        byes=[Bye(2, 1, ResultCode.HALF_BYE), Bye(2, 2, ResultCode.PAIRING_BYE)],
    )
    line = write_trf(ct).splitlines()[-2]
    assert line[0:3] == "001"
    assert line[4:8] == "   1"
    assert line[9] == "m" and line[10:13] == "  g"
    assert line[14:47] == "Carlsen, Magnus".ljust(33)
    assert line[48:52] == "2830" and line[53:56] == "NOR"
    assert line[57:68] == "    1503014" and line[69:79] == "1990/11/30"
    assert line[80:84] == " 1.5" and line[85:89] == "   1"
    assert line[91:99] == "   2 w 1"
    assert line[101:109] == "0000 - H"
    second = write_trf(ct).splitlines()[-1]
    assert second[48:52] == "    "  # unrated: blank, not 0 (TRF; audit D11)
    assert second[80:84] == " 1.0" and second[91:99] == "   1 b 0" and second[101:109] == "0000 - U"


def test_tolerates_crlf_bare_cr_bom_short_lines_and_missing_points() -> None:
    lines = [
        "012 Tiny",
        "XXR 2",
        pline(rating="1800", slots=("   2 w 1",)),
        "001    2      B",
    ]
    for sep in ("\r\n", "\r", "\n"):
        report = read_trf("\ufeff" + sep.join(lines) + sep)
        ct = report.crosstable
        assert ct.player(2).rating is None and ct.player(2).points is None
        assert ct.entry(1, 1) == RoundEntry(2, "w", ResultCode.WIN)
        # Player 2's short line leaves round 1 out: the game is taken from player 1's side.
        assert ct.entry(2, 1) == RoundEntry(1, "b", ResultCode.LOSS)
        assert ct.validate() == []
        assert ct.rounds == 2 and ct.rounds_played == 1


def test_paired_game_without_result_is_pending() -> None:
    text = (
        pline(points="1.0", slots=("   2 w 1", "   2 b  "))
        + "\n"
        + pline("   2", "B", points="0.0", slots=("   1 b 0", "   1 w  "))
        + "\n"
    )
    ct = read_trf(text).crosstable
    assert ct.entry(1, 2) == RoundEntry(2, "b", None)
    assert write_trf(ct).splitlines()[-2].endswith("   2 b")


@pytest.mark.parametrize(
    ("line", "column", "words"),
    [
        (pline(start="   x"), 5, "starting number"),
        (pline(rating="18x0"), 49, "rating"),
        (pline(slots=("  zz w 1",)), 92, "opponent"),
        (pline(slots=("   2 q 1",)), 97, "colour"),
        (pline(slots=("   2 w Q",)), 99, "unknown result"),
        (pline(slots=("0000 - 1",)), 99, "needs an opponent"),
        (pline(slots=("   9 w 1",)), 92, "no player line"),
        (pline(points="x.5"), 81, "points"),
    ],
)
def test_errors_name_line_and_column(line: str, column: int, words: str) -> None:
    text = "012 T\n" + line + "\n001    2      B\n"
    with pytest.raises(TrfError) as info:
        read_trf(text)
    assert info.value.line == 2 and info.value.column == column
    assert words in str(info.value) and "line 2, column" in str(info.value)


def test_duplicate_start_and_no_players_are_errors() -> None:
    with pytest.raises(TrfError, match="already used on line 1"):
        read_trf("001    1      A\n001    1      B\n")
    with pytest.raises(TrfError, match="no player lines"):
        read_trf("012 Only a header\n")
    with pytest.raises(TrfError, match="3-character code"):
        read_trf("#!x hello\n001    1      A\n")


def test_trf_2026_records() -> None:
    text = "\n".join(
        [
            "012 Sestao 2025",
            "### generated by hand",
            "132                                                                                        25/09/12  25/09/13",
            "142 9",
            "152 b",
            "192 FIDE_DUTCH",
            "202 BH-C1,SB,PS,DE,APRO",
            "222 5400+30",
            "240 H   3 0002 0003",
            "240 F   4 0001",
            "001    1      A",
            "001    2      B",
            "001    3      C",
        ]
    )
    report = read_trf(text)
    assert report.declared_rounds == 9 and report.crosstable.rounds == 9
    assert report.first_colour == "b"
    assert report.tournament_type == "FIDE_DUTCH"
    assert report.tiebreaks == ["BH-C1", "SB", "PS", "DE", "APRO"]
    assert report.time_control == "5400+30"
    assert report.byes == {3: [("H", 2), ("H", 3)], 4: [("F", 1)]}
    assert report.comments == [" generated by hand"]
    assert report.round_dates == ["25/09/12", "25/09/13"]
    assert read_trf("212 PTS BH SB\n001    1      A\n").tiebreaks == ["BH", "SB"]
    assert read_trf("XXC white1\n001    1      A\n").first_colour == "w"
    assert read_trf("092 Round Robin\n001    1      A\n").crosstable.system == "round-robin"
    assert write_trf(report).splitlines()[:2] == ["012 Sestao 2025", "### generated by hand"]


def test_from_crosstable_has_headers_and_xxr() -> None:
    ct = build_crosstable(
        [Player(1, "A", 2000), Player(2, "B", 1900)], 3, [Game(1, 1, 2, "1/2-1/2")]
    )
    text = write_trf(TrfFile.from_crosstable(ct, name="Club", tiebreaks=["BH", "SB"]))
    assert "012 Club" in text and "XXR 3" in text and "202 BH,SB" in text
    assert read_trf(text).crosstable.rounds == 3


def test_load_trf_falls_back_to_latin1(tmp_path: Path) -> None:
    path = tmp_path / "l1.trf"
    path.write_bytes("001    1      Ibáñez\n".encode("latin-1"))
    assert load_trf(path).crosstable.player(1).name == "Ibáñez"


# -- property: any consistent crosstable survives write -> read --------------------------------

RESULTS = ["1-0", "0-1", "1/2-1/2", "+-", "-+", "--", None]
BYES = [ResultCode.HALF_BYE, ResultCode.FULL_BYE, ResultCode.PAIRING_BYE, ResultCode.ZERO_BYE]


@st.composite
def crosstables(draw: st.DrawFn) -> Crosstable:
    n = draw(st.integers(2, 10))
    rounds = draw(st.integers(1, 5))
    name = (
        st.text(st.sampled_from("abcdefghij KLMNO-,."), min_size=1, max_size=33)
        .map(str.strip)
        .filter(bool)
    )
    players = [
        Player(
            i,
            draw(name),
            draw(st.one_of(st.none(), st.integers(1000, 2900))),
            draw(st.one_of(st.none(), st.integers(1, 99_999_999))),
            draw(st.sampled_from(["", "ESP", "NOR"])),
            draw(st.sampled_from(["", "g", "wm"])),
            draw(st.sampled_from(["", "m", "w"])),
        )
        for i in range(1, n + 1)
    ]
    games: list[Game] = []
    byes: list[Bye] = []
    played = draw(st.integers(1, rounds))
    for r in range(1, played + 1):
        order = draw(st.permutations(range(1, n + 1)))
        for a, b in zip(order[0::2], order[1::2], strict=False):
            games.append(Game(r, a, b, draw(st.sampled_from(RESULTS)), draw(st.booleans())))
        if n % 2:
            byes.append(Bye(r, order[-1], draw(st.sampled_from(BYES))))
    return build_crosstable(players, rounds, games, byes)


@settings(max_examples=60, deadline=None)
@given(crosstables())
def test_round_trip_property(ct: Crosstable) -> None:
    back = read_trf(write_trf(ct)).crosstable
    assert back.entries == ct.entries
    assert back.rounds == ct.rounds
    for a, b in zip(ct.players, back.players, strict=True):
        assert (a.start, a.name, a.rating, a.fide_id, a.federation, a.title, a.sex) == (
            b.start, b.name, b.rating, b.fide_id, b.federation, b.title, b.sex,
        )  # fmt: skip
        assert b.points == ct.score(a.start)


# -- the current edition's files: forfeits without colours, its codes -----------------------------


def _forfeit_file() -> str:
    """Round 1 as real files write it: 1-3 played, 2 wins against 4 by forfeit, with no
    colours on the forfeit ("   4 - +"), 5 absent (Z), 6 a half-point bye (H)."""
    lines = [
        "012 Forfeits",
        "092 FIDE_DUTCH_2025",
        "XXR 3",
        "XXC white1",
        pline("   1", "A", "2400", "1.0", ("   3 w 1",)),
        pline("   2", "B", "2300", "1.0", ("   4 - +",)),
        pline("   3", "C", "2200", "0.0", ("   1 b 0",)),
        pline("   4", "D", "2100", "0.0", ("   2 - -",)),
        pline("   5", "E", "2000", "0.0", ("0000 - Z",)),
        pline("   6", "F", "", "0.5", ("0000 - H",)),
    ]
    return "\r\n".join(lines) + "\r\n"


def test_a_forfeit_without_colours_reads_imports_and_pairs_on() -> None:
    from broadcast.fide.dutch import pair_trf
    from broadcast.fide.pairing_import import import_round

    report = read_trf(_forfeit_file())
    ct = report.crosstable
    assert ct.entry(2, 1) == RoundEntry(4, None, ResultCode.FORFEIT_WIN)
    assert ct.entry(4, 1) == RoundEntry(2, None, ResultCode.FORFEIT_LOSS)
    assert ct.entry(5, 1).result is ResultCode.ZERO_BYE
    assert ct.entry(6, 1).result is ResultCode.HALF_BYE
    imported = import_round(ct, 1)  # was: "round 1: game 2-4 has no colours"
    assert [p.as_pair() for p in imported.pairings] == [(1, 3), (2, 4)]
    assert dict(imported.byes) == {5: "Z", 6: "H"}
    number, pairings = pair_trf(report)
    assert number == 2
    seen = sorted(x for p in pairings for x in p.players())
    assert seen == [1, 2, 3, 4, 5, 6]
    # A forfeit is no game: 2 and 4 may meet again; 1 and 3 may not.
    assert {frozenset(p.players()) for p in pairings if p.black} & {frozenset({1, 3})} == set()


def test_a_game_to_play_without_colours_is_still_refused() -> None:
    from broadcast.fide.pairing_import import PairingImportError, import_round

    text = "\n".join(
        [pline("   1", "A", slots=("   2 -  ",)), pline("   2", "B", slots=("   1 -  ",))]
    )
    with pytest.raises(PairingImportError, match="no colours: say who has White"):
        import_round(read_trf(text + "\n").crosstable, 1)


@pytest.mark.parametrize(
    ("code", "result"),
    [
        ("H", ResultCode.HALF_BYE),
        ("F", ResultCode.FULL_BYE),
        ("U", ResultCode.PAIRING_BYE),
        ("Z", ResultCode.ZERO_BYE),
        (" ", ResultCode.BLANK),
    ],
)
def test_the_editions_bye_codes_read(code: str, result: ResultCode) -> None:
    text = "\n".join(
        [
            pline("   1", "A", slots=("   2 w 1", f"0000 - {code}")),
            pline("   2", "B", slots=("   1 b 0", "   3 w =")),
            pline("   3", "C", slots=("0000 - U", "   2 b =")),
        ]
    )
    ct = read_trf(text + "\n").crosstable
    assert ct.entry(1, 2).result is result
    assert read_trf(write_trf(ct)).crosstable.entry(1, 2).result is result


@pytest.mark.parametrize("code", list("WDL"))
def test_unrated_game_codes_read_as_played_games(code: str) -> None:
    other = {"W": "L", "D": "D", "L": "W"}[code]
    text = "\n".join(
        [
            pline("   1", "A", slots=(f"   2 w {code}",)),
            pline("   2", "B", slots=(f"   1 b {other}",)),
        ]
    )
    entry = read_trf(text + "\n").crosstable.entry(1, 1)
    assert entry.is_played and entry.result is not None and not entry.result.is_rated


def test_the_corpus_files_read() -> None:
    corpus = sorted((SHARED / "pairings" / "generated").glob("*.trf"))
    assert len(corpus) == 50
    for path in corpus:
        report = read_trf(path.read_bytes().decode("latin-1").replace("\n", "\r"))
        assert report.tournament_type == "FIDE_DUTCH_2025"
        assert report.crosstable.system == "swiss"
        for player in report.crosstable.players:
            assert player.points == report.crosstable.score(player.start), path.name
