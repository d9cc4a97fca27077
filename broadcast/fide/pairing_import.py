"""Pairings imported from the event's pairing program (Vega, Swiss-Manager, ...).

The program exports a TRF after pairing a round; this module reads that round's
games and byes out of the crosstable (read with `broadcast.fide.trf`). TRF-16
has no board numbers, so boards are numbered the way FIDE orders them (C.04.2):
by the higher score of the pair, then the pair's total score, then the better
starting rank.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.fide.crosstable import Crosstable, ResultCode, RoundEntry
from broadcast.fide.pairing import Pairing
from clocks.errors import BoardwireError


class PairingImportError(BoardwireError, ValueError):
    """The TRF does not hold a usable pairing for the round."""


@dataclass(frozen=True, slots=True)
class ImportedRound:
    """One round as the pairing program wrote it: games and the pairing bye
    (`pairings`), and the byes it entered before pairing (`byes`: start -> H/F/Z)."""

    round: int
    pairings: tuple[Pairing, ...]
    byes: tuple[tuple[int, str], ...]


def _forfeited(entry: RoundEntry) -> bool:
    return entry.result is not None and entry.result.is_forfeit


def round_pairings(crosstable: Crosstable, round_number: int) -> tuple[Pairing, ...]:
    """The games (White first) and pairing bye of `round_number` in board order."""
    return import_round(crosstable, round_number).pairings


def import_round(crosstable: Crosstable, round_number: int) -> ImportedRound:
    if not 1 <= round_number <= crosstable.rounds:
        raise PairingImportError(
            f"the TRF has rounds 1..{crosstable.rounds}; round {round_number} is not in it"
        )
    before = {s: crosstable.score(s, upto=round_number - 1) for s in crosstable.starts()}
    games: list[tuple[int, int]] = []
    pairing_bye: list[int] = []
    byes: list[tuple[int, str]] = []
    for start in sorted(crosstable.starts()):
        entry = crosstable.entry(start, round_number)
        if entry.opponent is None:
            if entry.result == ResultCode.PAIRING_BYE:
                pairing_bye.append(start)
            elif entry.result is not None and entry.result.is_bye:
                code = "Z" if entry.result == ResultCode.BLANK else entry.result.value
                byes.append((start, code))
            continue
        other = crosstable.entry(entry.opponent, round_number)
        if other.opponent != start:
            raise PairingImportError(
                f"round {round_number}: player {start} meets {entry.opponent}, "
                f"but {entry.opponent} meets {other.opponent}"
            )
        if entry.colour == "w":
            games.append((start, entry.opponent))
        elif entry.colour is None and other.colour is None and start < entry.opponent:
            if _forfeited(entry) or _forfeited(other):
                # Real files write a forfeit without colours ("  13 - +"): no game was
                # played, so no colour was given; the board lists the lower number first.
                games.append((start, entry.opponent))
                continue
            raise PairingImportError(
                f"round {round_number}: game {start}-{entry.opponent} has no colours: "
                "say who has White (w or b in column 97 of each round's field)"
            )
    if not games and not pairing_bye:
        raise PairingImportError(f"round {round_number} is not paired in this TRF")

    def board_key(game: tuple[int, int]) -> tuple[float, float, int]:
        white, black = game
        return (
            -max(before[white], before[black]),
            -(before[white] + before[black]),
            min(white, black),
        )

    ordered = sorted(games, key=board_key)
    pairings = [Pairing(i, w, b) for i, (w, b) in enumerate(ordered, start=1)]
    pairings.extend(Pairing(0, p, None) for p in pairing_bye)
    return ImportedRound(round_number, tuple(pairings), tuple(byes))


__all__ = ["ImportedRound", "PairingImportError", "import_round", "round_pairings"]
