"""Every round of every tournament of the Dutch corpus, paired by the product as the
FIDE-endorsed engine paired it: the same pairs, colours, pairing bye and board order.

The corpus (../shared/testdata/pairings/generated/) holds 50 complete Swiss tournaments
of 10 to 300 players, paired round by round by bbpPairings, with forfeits, half-point
byes and absences. `../shared/tools/dutch_rounds.py` turns a file into cases: `input
FILE R` is the TRF to pair round R from, `expected FILE R` the pairs; beside each file,
FILE.boards lists every round in the endorsed engine's board order.

Each input goes through the product's own TRF reader and `pair_trf` (the path of
`boardwire pairings --trf FILE --next`). One test per file, so that xdist spreads them.
"""

from __future__ import annotations

import importlib.util
import re
from collections import defaultdict
from pathlib import Path
from types import ModuleType

import pytest

from broadcast.fide.dutch import PairingError, pair_trf
from broadcast.fide.trf import read_trf
from tests.support.paths import ROOT


def _shared() -> Path:
    beside = ROOT.parent / "shared"
    return beside if (beside / "testdata").is_dir() else Path("/work/shared")


SHARED = _shared()
CORPUS = SHARED / "testdata" / "pairings" / "generated"
TOOL = SHARED / "tools" / "dutch_rounds.py"
FILES = sorted(p.stem for p in CORPUS.glob("*.trf"))


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dutch_rounds", TOOL)
    assert spec is not None and spec.loader is not None, f"cannot load {TOOL}"
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _split(text: str) -> tuple[list[str], dict[int, str]]:
    """A TRF's header lines and its player lines by number, as the tool's `read` gives."""
    header: list[str] = []
    players: dict[int, str] = {}
    for line in re.split(r"\r\n|\r|\n", text):
        if line.startswith("001"):
            players[int(line[4:8])] = line.rstrip()
        elif line.strip():
            header.append(line.rstrip())
    return header, players


def _boards(name: str) -> dict[int, list[tuple[int, int]]]:
    """Round -> [(white, black), ...] in the endorsed engine's board order (bye: black 0)."""
    out: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for line in (CORPUS / f"{name}.boards").read_text().splitlines():
        if line.strip():
            number, white, black = (int(x) for x in line.split())
            out[number].append((white, black))
    return out


def _expected(tool: ModuleType, players: dict[int, str], number: int) -> set[tuple[int, int]]:
    lines = tool.expected_for(players, number).splitlines()
    return {(int(w), int(b)) for w, b in (line.split() for line in lines if line.strip())}


def _difference(got: list[tuple[int, int]], want: list[tuple[int, int]]) -> str:
    """The boards that differ, as "board N: got W-B, want W-B" (bye: "P-bye")."""

    def show(pair: tuple[int, int] | None) -> str:
        if pair is None:
            return "nothing"
        return f"{pair[0]}-bye" if pair[1] == 0 else f"{pair[0]}-{pair[1]}"

    lines = []
    for board in range(max(len(got), len(want))):
        mine = got[board] if board < len(got) else None
        theirs = want[board] if board < len(want) else None
        if mine != theirs:
            label = "bye" if (theirs or mine or (0, 1))[1] == 0 else f"board {board + 1}"
            lines.append(f"{label}: got {show(mine)}, want {show(theirs)}")
    return "; ".join(lines)


def test_the_corpus_is_there() -> None:
    assert len(FILES) == 50, f"expected the 50 corpus files in {CORPUS}, found {len(FILES)}"


@pytest.mark.parametrize("name", FILES)
def test_every_round_is_paired_as_the_endorsed_engine_pairs_it(name: str) -> None:
    tool = _tool()
    # The tool's own `read` leaves its file open (a ResourceWarning, an error here): the
    # file is read here and handed to the tool's parser as text.
    with (CORPUS / f"{name}.trf").open("rb") as handle:
        header, players = _split(handle.read().decode("latin-1"))
    boards = _boards(name)
    failures: list[str] = []
    for number in range(1, tool.rounds(players) + 1):
        report = read_trf(tool.input_for(header, players, number))
        want = boards[number]
        # The .boards file and `expected` must tell the same round (a damaged corpus).
        assert set(want) == _expected(tool, players, number), f"{name} round {number}"
        try:
            paired, pairings = pair_trf(report)
        except PairingError as exc:
            failures.append(f"{name} round {number}: {exc}")
            continue
        assert paired == number, f"{name}: the input for round {number} reads as {paired}"
        got = [pairing.as_pair() for pairing in pairings]
        if got != want:
            failures.append(f"{name} round {number}: {_difference(got, want)}")
    assert not failures, "\n".join(failures)
