"""TRF against damaged or hostile files: absurd round counts, overlong lines, a file cut
off in its last player line, any text at all, any line end. Each is one TrfError with its
line, never a crash."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from broadcast.fide.trf import MAX_ROUNDS, TrfError, read_trf
from tests.support.paths import DATA

SAMPLE = DATA / "swiss-unplayed.trf"


def test_a_huge_declared_round_count_is_refused() -> None:
    lines = [x for x in SAMPLE.read_text(encoding="utf-8").splitlines() if x[:3] != "XXR"]
    text = "\n".join(["XXR 99999999", *lines]) + "\n"
    with pytest.raises(TrfError, match=f"at most {MAX_ROUNDS}") as info:
        read_trf(text)
    assert info.value.line == 1


def test_too_many_round_slots_on_a_line() -> None:
    line = "001    1      A".ljust(91) + "   2 w 1  " * (MAX_ROUNDS + 5)
    with pytest.raises(TrfError, match="round slots"):
        read_trf(line + "\n")


def test_a_cut_off_last_player_line_is_refused() -> None:
    text = SAMPLE.read_text(encoding="utf-8").rstrip("\n")
    lines = text.splitlines()
    last_player = max(i for i, line in enumerate(lines) if line.startswith("001"))
    cut = "\n".join(lines[: last_player + 1])[:-40]  # stop mid-line, no final newline
    with pytest.raises(TrfError, match="cut off") as info:
        read_trf(cut)
    assert info.value.line == last_player + 1


def test_a_complete_file_without_final_newline_still_reads() -> None:
    text = SAMPLE.read_text(encoding="utf-8").rstrip("\n")
    assert read_trf(text).crosstable.players == read_trf(text + "\n").crosstable.players


def test_control_characters_in_trf_names_are_stripped() -> None:
    line = "001    1      " + "Evil\x1b[2J Eve".ljust(33)
    player = read_trf(line + "\n").crosstable.players[0]
    assert "\x1b" not in player.name and player.name.startswith("Evil")


# -- any text: a crosstable or one TrfError, nothing else ------------------------------------------

_PLAYER_HEAD = (
    "001 {start:>4} m    {name:<33} {rating:>4} ESP             1990/01/01 {points:>4} {rank:>4}"
)
_SLOT = st.builds(
    lambda opp, colour, result: f"{opp:>4} {colour} {result}",
    st.sampled_from(["0000", "1", "2", "3", "13", "x", "", "9999"]),
    st.sampled_from(list("wb- xW")),
    st.sampled_from(list("10=+-WDLHFUZ ?")),
)
_LINE_ENDS = st.sampled_from(["\n", "\r\n", "\r"])


@st.composite
def _trf_like(draw: st.DrawFn) -> str:
    """Files that look like TRF: header records, player lines with round slots, any line end."""
    lines = draw(
        st.lists(
            st.sampled_from(
                ["012 Open", "XXR 5", "XXC white1", "092 FIDE_DUTCH_2025", "142 x", "###"]
            ),
            max_size=4,
        )
    )
    for _ in range(draw(st.integers(0, 5))):
        head = _PLAYER_HEAD.format(
            start=draw(st.sampled_from(["1", "2", "3", "0", "-1", "ab", ""])),
            name=draw(st.text(max_size=40)),
            rating=draw(st.sampled_from(["", "0", "2100", "x1"])),
            points=draw(st.sampled_from(["", "1.0", "1,5", "a"])),
            rank=draw(st.sampled_from(["", "1", "z"])),
        )
        slots = draw(st.lists(_SLOT, max_size=4))
        lines.append((head.ljust(91) + "  ".join(slots)).rstrip())
    end = draw(_LINE_ENDS)
    return end.join(lines) + draw(st.sampled_from(["", end]))


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(st.text(), _trf_like()))
def test_any_text_is_a_crosstable_or_a_trf_error(text: str) -> None:
    try:
        report = read_trf(text)
    except TrfError as exc:
        assert str(exc).startswith("TRF line") and exc.reason
        return
    assert report.crosstable.players  # read: at least one player line


@pytest.mark.parametrize("end", ["\n", "\r\n", "\r"])
def test_every_line_end_reads_the_same(end: str) -> None:
    text = SAMPLE.read_text(encoding="utf-8")
    lf = read_trf(text)
    other = read_trf(end.join(text.splitlines()) + end)
    assert other.crosstable == lf.crosstable and other.records == lf.records


def test_a_name_with_a_latin1_control_byte_stays_on_its_line() -> None:
    # Latin-1 files decode 0x85 as NEL, which str.splitlines() takes for a line end.
    line = "001    1      " + "Ibáñez\x85 Ane".ljust(33) + " 2100"
    other = "001    2      " + "Second, Player".ljust(33) + " 2000"
    report = read_trf(f"{line}\n{other}\n")
    assert [p.start for p in report.crosstable.players] == [1, 2]
    assert report.crosstable.players[0].rating == 2100
