"""FIDE's withdrawal rule for round robins (Tournament Rules, C.06): who has their results
left out of the standings, and why. Pure: the state in, the players out.

In our words: a player who withdraws, or is put out (the no-show rules, a disqualifying
absence), having *completed* fewer than half of the games the round robin gives them,
has their results, and every result against them, left out of the standings, the
tie-breaks and the prizes. With half or more, the games they do not play are forfeits
(what `[section.withdrawal] remaining_games` does) and everything counts.

- **Completed** is a game played over the board to a result (1-0, ½-½, 0-1, a game of
  under one move too): a forfeit, won or lost, is a game nobody played. This is how
  arbiters read "completed" (a no-show does not complete a game), and the rule's
  purpose: a player who met only some of the field must not decide the places of the
  others by the games they did or did not play.
- **Their games** are every game of their row of the Berger tables: (players - 1), twice
  in a double round robin; the bye of an odd-sized round robin is no game.
- **When.** The rule is about the final standings, but its outcome is known as soon as
  the player is out: the games they have not completed by then cannot be completed any
  more. Only the games of rounds before they left that still wait for a result might;
  so the rule applies from the moment even those could not bring the player to half,
  and the live standings show it from then on (a reinstatement, or a result corrected
  back, takes it away again, the state being a fold).
- A Swiss keeps a withdrawn player's results (C.06), and so does a section whose
  `[section.withdrawal] under_half` is "keep".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from broadcast.fide.crosstable import Crosstable
from broadcast.tournament.eligibility import out_reason
from broadcast.tournament.tournament_state import SectionState

__all__ = ["LeftOut", "against_note", "left_out", "left_out_note", "scheduled_games"]


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A player whose results the rule leaves out, and the figures behind it."""

    player: int
    completed: int  # games played over the board
    games: int  # the games the round robin gives them
    left_from: int  # the first round they no longer play


def scheduled_games(state: SectionState) -> int:
    """The games a round robin gives each player: one (two: a double round robin) against
    every other player."""
    cycles = 2 if state.config.system == "double-round-robin" else 1
    return max(len(state.players) - 1, 0) * cycles


def _left_from(state: SectionState, player: int) -> int | None:
    """The first round the player may no longer play (withdrawn, or out by the no-show
    rules), or None if they are in to the end."""
    for number in range(1, state.config.rounds + 1):
        if out_reason(state, player, number):
            return number
    return None


def left_out(state: SectionState, table: Crosstable | None = None) -> dict[int, LeftOut]:
    """The players the rule leaves out of the section's standings (see the module
    docstring), by starting number; empty for a Swiss or with `under_half = "keep"`.
    `table`: the section's crosstable, if the caller has it already."""
    if state.config.system == "swiss" or state.config.withdrawal.under_half != "leave-out":
        return {}
    games = scheduled_games(state)
    table = state.to_crosstable() if table is None else table
    out: dict[int, LeftOut] = {}
    for player in sorted(state.players):
        left = _left_from(state, player)
        if left is None or player not in table:
            continue
        row = table.row(player)
        completed = sum(1 for e in row if e.opponent is not None and e.is_played)
        pending = sum(1 for e in row[: left - 1] if e.opponent is not None and e.result is None)
        if 2 * (completed + pending) < games:
            out[player] = LeftOut(player, completed, games, left)
    return out


def left_out_note(entry: LeftOut) -> str:
    """The left-out player's line: their results do not count, and why."""
    return (
        f"results left out: {entry.completed} of {entry.games} games played, "
        "under half (FIDE withdrawal rule)"
    )


def against_note(player: int, table: Crosstable, gone: Mapping[int, LeftOut]) -> str:
    """An opponent's line: which of their games the rule left out ("" for none)."""
    against = [e.opponent for e in table.row(player) if e.opponent is not None]
    games = [o for o in against if o in gone]
    if not games:
        return ""
    met = sorted(set(games))
    numbers = ", ".join(str(n) for n in met)
    word = "game" if len(games) == 1 else "games"
    return f"{word} against no. {numbers} left out"
