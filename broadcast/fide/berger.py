"""Round-robin pairings from the FIDE Berger tables (C.05 Annex 1), in closed form.

For n players (n even; an odd field gets a dummy n+1 whose opponent has the bye),
round r has s = (r-1)*n/2 mod (n-1):

- board 1: player s+1 against n; s+1 has White in odd rounds, n in even rounds;
- board k >= 2: White (k-1+s) mod (n-1) + 1, Black (n-k+s) mod (n-1) + 1.

A double round robin plays the table twice, colours reversed in the second cycle,
with the last two rounds of the first cycle swapped (as FIDE recommends) so that
nobody gets the same colour three times running across the cycle boundary.
Pure functions; no I/O.
"""

from __future__ import annotations

from broadcast.fide.pairing import Pairing


def table_size(players: int) -> int:
    """The even number of slots in the table (a dummy slot is added for odd fields)."""
    if players < 2:
        raise ValueError(f"a round robin needs at least 2 players, got {players}")
    return players + players % 2


def rounds_per_cycle(players: int) -> int:
    return table_size(players) - 1


def total_rounds(players: int, cycles: int = 1) -> int:
    if cycles not in (1, 2):
        raise ValueError(f"a round robin has 1 or 2 cycles, got {cycles}")
    return rounds_per_cycle(players) * cycles


def _table_round(n: int, r: int) -> list[tuple[int, int]]:
    """(white, black) slot numbers of round r of the even-sized table n, board order."""
    s = (r - 1) * (n // 2) % (n - 1)
    first = (s + 1, n) if r % 2 == 1 else (n, s + 1)
    boards = [first]
    for k in range(2, n // 2 + 1):
        boards.append(((k - 1 + s) % (n - 1) + 1, (n - k + s) % (n - 1) + 1))
    return boards


def berger_round(players: int, round_number: int, cycles: int = 1) -> tuple[Pairing, ...]:
    """The pairings of one round for `players` players (starting numbers 1..players).

    Games keep the table's board order (board 1, 2, ...); with an odd field the player
    drawn against the dummy gets the bye, listed last with board 0.
    """
    n = table_size(players)
    per_cycle = n - 1
    last = total_rounds(players, cycles)
    if not 1 <= round_number <= last:
        raise ValueError(f"round {round_number} is outside 1..{last} for {players} players")
    reverse = round_number > per_cycle
    table_round = round_number - per_cycle if reverse else round_number
    if cycles == 2 and not reverse and per_cycle >= 2 and table_round >= per_cycle - 1:
        # Swap the last two rounds of the first cycle (see the module docstring).
        table_round = per_cycle if table_round == per_cycle - 1 else per_cycle - 1
    games: list[Pairing] = []
    bye: Pairing | None = None
    for white, black in _table_round(n, table_round):
        if reverse:
            white, black = black, white
        if white > players or black > players:
            bye = Pairing(0, min(white, black), None)
            continue
        games.append(Pairing(len(games) + 1, white, black))
    return (*games, bye) if bye is not None else tuple(games)


def berger_table(players: int, cycles: int = 1) -> tuple[tuple[Pairing, ...], ...]:
    """Every round of the round robin, round 1 first."""
    return tuple(
        berger_round(players, r, cycles) for r in range(1, total_rounds(players, cycles) + 1)
    )


__all__ = ["berger_round", "berger_table", "rounds_per_cycle", "table_size", "total_rounds"]
