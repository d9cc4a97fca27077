"""FIDE Dutch Swiss pairings (C.04.3): a Crosstable in, `Pairing`s out, through our own
engine (`broadcast.fide.dutch_engine`, pure; why our own: docs/architecture.md).

This adapter reads the rounds played into what the pairing rules look at, as the
FIDE-endorsed engine (bbpPairings) reads them; every reading was checked round by round on
the corpus of generated tournaments (tests/broadcast/fide/test_dutch_corpus.py):

- pairing numbers are the starting numbers; the pairing score is the score so far plus,
  with Baku acceleration (C.04.5.1), the virtual points of the top group;
- only games played over the board give colours and opponents not to meet again; a
  forfeit lets the two meet again;
- floats (A.4): a played game floats the player with more points down and the other up
  (scores before that round); a round without a game that scored more than a loss (a
  forfeit win, a pairing, full- or half-point bye) counts as a downfloat; a forfeit loss,
  a zero-point bye and an absence as no float;
- a pairing bye, a full-point bye or a forfeit win makes the player ineligible for
  another pairing bye (C.2);
- players absent in the round to pair (withdrawn, over the no-show limit, a granted bye,
  or a bye/absence already entered for that round) are left out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Literal, TypedDict

from broadcast.fide.crosstable import Crosstable, ResultCode, RoundEntry
from broadcast.fide.dutch_engine import DutchError, SwissPlayer, pair
from broadcast.fide.pairing import Pairing
from broadcast.fide.trf import TrfFile
from clocks.errors import BoardwireError

InitialColour = Literal["white", "black"]
Acceleration = Literal["baku"]
ACCELERATIONS: tuple[Acceleration, ...] = ("baku",)

# Who may not receive the pairing-allocated bye again (C.2): a player whose earlier
# round gave a point without a game (a pairing bye, a full-point bye, a forfeit win).
_NO_SECOND_BYE: frozenset[ResultCode] = frozenset(
    {ResultCode.PAIRING_BYE, ResultCode.FULL_BYE, ResultCode.FORFEIT_WIN}
)


class PairingOptions(TypedDict):
    """`pair_round`'s keyword arguments that come from the section (see
    `broadcast.actions.pairings.pairing_options`)."""

    total_rounds: int
    absent: frozenset[int]
    acceleration: Acceleration | None
    late_entries: frozenset[int]


class PairingError(BoardwireError, ValueError):
    """The round cannot be paired as asked."""


def infer_initial_colour(crosstable: Crosstable) -> InitialColour:
    """The colour the top seed had in round 1 (C.04.3: the initial colour), read from
    the lowest starting number that was paired in round 1; White if nothing was."""
    if crosstable.rounds == 0:
        return "white"
    for start in sorted(crosstable.starts()):
        entry = crosstable.entry(start, 1)
        if entry.colour is not None and entry.opponent is not None:
            # The highest-ranked player present heads S1 and got the initial colour.
            return "white" if entry.colour == "w" else "black"
    return "white"


def pre_entered_absent(crosstable: Crosstable, round_number: int) -> set[int]:
    """Players with an unplayed entry already written for the round to pair (an H, F,
    Z, blank or '-' bye written before pairing, as pairing programs do)."""
    if round_number > crosstable.rounds:
        return set()
    absent: set[int] = set()
    for start in crosstable.starts():
        entry = crosstable.entry(start, round_number)
        if (
            entry.opponent is None
            and entry.result is not None
            and entry.result != ResultCode.PAIRING_BYE
        ):
            absent.add(start)
    return absent


def baku_group_a(crosstable: Crosstable, late_entries: Iterable[int] = ()) -> frozenset[int]:
    """The top group GA of the Baku acceleration (C.04.5.1): the first half of the
    players in pairing order, rounded up to an even number (2 x ceil(n / 4)). A late
    entry does not move the group's last player: GA is everyone numbered up to him."""
    late = set(late_entries)
    founders = sorted(s for s in crosstable.starts() if s not in late)
    if not founders:
        return frozenset()
    size = min(len(founders), 2 * math.ceil(len(founders) / 4))
    last = founders[size - 1]
    return frozenset(s for s in crosstable.starts() if s <= last)


def baku_virtual_points(round_number: int, total_rounds: int) -> float:
    """The virtual points of a GA player for pairing `round_number`: the accelerated
    rounds are the first half (rounded up) of the event; 1 point in the first half
    (rounded up) of those, 0.5 in the rest, none after."""
    accelerated = math.ceil(total_rounds / 2)
    if round_number <= math.ceil(accelerated / 2):
        return 1.0
    if round_number <= accelerated:
        return 0.5
    return 0.0


def _scores_before(crosstable: Crosstable, round_number: int) -> dict[int, list[float]]:
    """Per player, the score before each round: [before round 1, before round 2, ...]."""
    scoring = crosstable.scoring
    out: dict[int, list[float]] = {}
    for start in crosstable.starts():
        running = [0.0]
        for r in range(1, round_number):
            result = crosstable.entry(start, r).result
            running.append(running[-1] + (scoring.points(result) if result else 0.0))
        out[start] = running
    return out


def _met_over_the_board(entry: RoundEntry) -> bool:
    """A game over the board: played with a result, or paired and not yet finished."""
    if entry.opponent is None:
        return False
    return entry.result is None or entry.result.is_played


def swiss_players(
    crosstable: Crosstable,
    round_number: int,
    absent: Iterable[int] = (),
    *,
    total_rounds: int | None = None,
    acceleration: Acceleration | None = None,
    late_entries: Iterable[int] = (),
) -> list[SwissPlayer]:
    """The engine's view of the players to pair in `round_number`, in starting order."""
    left_out = set(absent) | pre_entered_absent(crosstable, round_number)
    before = _scores_before(crosstable, round_number)
    virtual: dict[int, float] = {}
    if acceleration == "baku":
        points = baku_virtual_points(round_number, total_rounds or crosstable.rounds)
        if points:
            virtual = dict.fromkeys(baku_group_a(crosstable, late_entries), points)
    scoring = crosstable.scoring
    players: list[SwissPlayer] = []
    for start in sorted(crosstable.starts()):
        if start in left_out:
            continue
        colours: list[str | None] = []
        floats: list[str | None] = []
        unplayed: list[bool] = []
        opponents: set[int] = set()
        bye_ineligible = False
        for r in range(1, round_number):
            entry = crosstable.entry(start, r)
            if _met_over_the_board(entry):
                assert entry.opponent is not None
                opponents.add(entry.opponent)
                colours.append(entry.colour)
                unplayed.append(False)
                mine, theirs = before[start][r - 1], before[entry.opponent][r - 1]
                floats.append("d" if mine > theirs else "u" if mine < theirs else None)
                continue
            # A round without a game floats the player down when it scored more than a
            # loss would have (the 2025 text: a bye, a forfeit win, a half-point bye);
            # a forfeit loss, a zero-point bye and an absence give no float.
            points = scoring.points(entry.result) if entry.result else scoring.loss
            colours.append(None)
            unplayed.append(True)
            floats.append("d" if points > scoring.loss else None)
            bye_ineligible = bye_ineligible or entry.result in _NO_SECOND_BYE
        players.append(
            SwissPlayer(
                number=start,
                score=before[start][round_number - 1] + virtual.get(start, 0.0),
                colours=tuple(colours),
                floats=tuple(floats),
                unplayed=tuple(unplayed),
                opponents=frozenset(opponents),
                bye_ineligible=bye_ineligible,
            )
        )
    return players


def pair_round(
    crosstable: Crosstable,
    round_number: int,
    *,
    total_rounds: int | None = None,
    absent: Iterable[int] = (),
    initial_colour: InitialColour | None = None,
    acceleration: Acceleration | None = None,
    late_entries: Iterable[int] = (),
) -> tuple[Pairing, ...]:
    """Dutch pairings for `round_number` from the rounds before it.

    Games come first in board order (board 1 up), then the pairing-allocated bye
    (board 0). `late_entries`: players who joined after round 1 (they do not move the
    Baku top group's last player).
    """
    rounds = total_rounds or max(crosstable.rounds, round_number)
    if round_number < 1 or round_number > rounds:
        raise PairingError(f"round {round_number} is outside 1..{rounds}")
    players = swiss_players(
        crosstable,
        round_number,
        absent,
        total_rounds=rounds,
        acceleration=acceleration,
        late_entries=late_entries,
    )
    if len(players) < 2:
        raise PairingError(f"round {round_number}: fewer than two players to pair")
    colour = initial_colour or infer_initial_colour(crosstable)
    try:
        result = pair(players, round_number, rounds, "w" if colour == "white" else "b")
    except DutchError as exc:
        raise PairingError(f"round {round_number} cannot be paired: {exc}") from exc
    games = [Pairing(board, w, b) for board, (w, b) in enumerate(result.games, start=1)]
    bye = [] if result.bye is None else [Pairing(0, result.bye, None)]
    return (*games, *bye)


def pair_trf(
    report: TrfFile,
    round_number: int | None = None,
    *,
    acceleration: Acceleration | None = None,
) -> tuple[int, tuple[Pairing, ...]]:
    """Pair a pairing program's report: its next round (or `round_number`), with the
    total rounds from XXR/142 and the initial colour from XXC/152 when the file gives
    them. Returns the round paired and its pairings."""
    crosstable = report.crosstable
    number = round_number or next_round_number(crosstable)
    total = report.declared_rounds or max(crosstable.rounds, number)
    if number > total:
        raise PairingError(f"all {total} rounds are paired in this TRF")
    first = report.first_colour
    colour: InitialColour | None = None if first is None else "white" if first == "w" else "black"
    pairings = pair_round(
        crosstable,
        number,
        total_rounds=total,
        initial_colour=colour,
        acceleration=acceleration,
    )
    return number, pairings


def next_round_number(crosstable: Crosstable) -> int:
    """The first round without any pairing written (games or pairing bye)."""
    last = 0
    for start in crosstable.starts():
        for r in range(1, crosstable.rounds + 1):
            entry = crosstable.entry(start, r)
            if entry.opponent is not None or entry.result == ResultCode.PAIRING_BYE:
                last = max(last, r)
    return last + 1


__all__ = [
    "ACCELERATIONS",
    "Acceleration",
    "InitialColour",
    "PairingError",
    "PairingOptions",
    "baku_group_a",
    "baku_virtual_points",
    "infer_initial_colour",
    "next_round_number",
    "pair_round",
    "pair_trf",
    "pre_entered_absent",
    "swiss_players",
]
