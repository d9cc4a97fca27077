"""TRF against damaged or hostile files: absurd round counts, overlong lines, a file cut
off in its last player line. Each is one TrfError with its line, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

from broadcast.fide.trf import MAX_ROUNDS, TrfError, read_trf

SAMPLE = Path(__file__).parent / "data" / "swiss-unplayed.trf"


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
