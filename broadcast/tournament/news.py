"""Tournament news the broadcast delay lets through early, and what it must wait for. Pure.

The public sees the event as it was `delay` seconds ago. Some news is wanted sooner: who
plays whom (a pairing, a board moved), who is registered, who withdrew, the play-off
games. That news is told to the older public snapshots too (`tell`), but only to those
that already show what it follows from (`follows_from_hidden`): otherwise it would say
what the delay still hides.

- A Swiss round's pairings (and their edits, and their boards) follow from the results
  of the rounds before it: its score groups and colours give them away. A round robin's
  are fixed by its table and follow from nothing.
- A withdrawal, or its taking back, follows from the player's results before the round
  it starts from: the rules withdraw a player for no-shows, which are forfeits.
- A play-off game follows from every result of the section: it names the leaders.
- A registration follows from nothing.
- `PairingsReleased` (the arbiter's word) shows a round's pairings as they stand, at
  once: the one news told whatever the public does not show yet (`hidden_grounds` says
  what it reveals, for the desk to ask first).

A piece of news held back from a snapshot reaches the public with the first snapshot
that shows its grounds: at most one delay after it was made.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from broadcast.tournament.section import RoundState, StateError
from broadcast.tournament.tournament_events import (
    BoardAssigned,
    PairingEdited,
    PairingsReleased,
    PlayerReinstated,
    PlayersRegistered,
    PlayerWithdrawn,
    PlayoffGamePaired,
    RoundPaired,
    TournamentEvent,
)
from broadcast.tournament.tournament_state import SectionState, TournamentState

__all__ = [
    "AT_ONCE",
    "Held",
    "HiddenGround",
    "follows_from_hidden",
    "held_news",
    "hidden_grounds",
    "tell",
]

AT_ONCE = (
    PlayersRegistered,
    RoundPaired,
    PairingEdited,
    BoardAssigned,
    PlayerWithdrawn,
    PlayerReinstated,
    PlayoffGamePaired,
    PairingsReleased,
)
"""The tournament news the delay does not hold back once its grounds are public."""

_FIXED_SCHEDULE = ("round-robin", "double-round-robin")


@dataclass(frozen=True, slots=True)
class HiddenGround:
    """A result the news follows from that the public does not show yet (as it stands
    live): a game's (`white`, `black`, `board` of `round`), or a bye's (`black` None), or
    a play-off game's (`playoff` its number)."""

    section: str
    round: int
    board: int
    white: int
    black: int | None
    playoff: int = 0


@dataclass(frozen=True, slots=True)
class _Grounds:
    """What a piece of news follows from: the results of `rounds` (of `player` only, when
    set), and the play-off games before number `playoff_before`."""

    rounds: range = range(0)
    player: int | None = None
    playoff_before: int = 0


def _grounds(event: TournamentEvent, live: SectionState) -> _Grounds:
    match event:
        case RoundPaired() | PairingEdited() | BoardAssigned():
            if live.config.system in _FIXED_SCHEDULE:
                return _Grounds()
            return _Grounds(range(1, event.round))
        case PlayerWithdrawn():
            return _Grounds(range(1, event.from_round), event.player)
        case PlayerReinstated():
            last = event.from_round - 1 if event.from_round > 0 else live.config.rounds
            return _Grounds(range(1, last + 1), event.player)
        case PlayoffGamePaired():
            return _Grounds(range(1, live.config.rounds + 1), None, event.number)
    return _Grounds()  # a registration, a release, or news that is not told early


def _round_hidden(
    section: str, number: int, shown: RoundState | None, live: RoundState, player: int | None
) -> Iterator[HiddenGround]:
    if shown is live:
        return
    shown_results = shown.results if shown is not None else {}
    shown_byes = shown.bye_codes if shown is not None else {}
    if player is None and shown_results == live.results and shown_byes == live.bye_codes:
        return
    for pairing in live.pairings:
        if player is not None and player not in pairing.players():
            continue
        if pairing.black is None:
            if shown_byes.get(pairing.white) != live.bye_codes.get(pairing.white):
                yield HiddenGround(section, number, 0, pairing.white, None)
        elif shown_results.get(pairing.white) != live.results.get(pairing.white):
            yield HiddenGround(section, number, pairing.board, pairing.white, pairing.black)
    paired = {p for pairing in live.pairings for p in pairing.players()}
    for who in sorted(live.bye_codes.keys() | shown_byes.keys()):
        if who in paired or (player is not None and who != player):
            continue
        if shown_byes.get(who) != live.bye_codes.get(who):
            yield HiddenGround(section, number, 0, who, None)


def _hidden(
    event: TournamentEvent, public: TournamentState, live: TournamentState
) -> Iterator[HiddenGround]:
    now = live.sections.get(event.section)
    shown = public.sections.get(event.section)
    if now is None or shown is now:
        return
    grounds = _grounds(event, now)
    for number in grounds.rounds:
        live_round = now.rounds.get(number)
        if live_round is None:
            continue
        shown_round = shown.rounds.get(number) if shown is not None else None
        yield from _round_hidden(event.section, number, shown_round, live_round, grounds.player)
    for number in range(1, grounds.playoff_before):
        game = now.playoff.get(number)
        was = shown.playoff.get(number) if shown is not None else None
        if game is not None and (was is None or was.result != game.result):
            yield HiddenGround(
                event.section, now.playoff_round(number), game.board, game.white, game.black, number
            )


def follows_from_hidden(
    event: TournamentEvent, public: TournamentState, live: TournamentState
) -> bool:
    """Whether `event` (news made in `live`) follows from a result `public` does not show
    yet: told to `public`, it would give that result away."""
    if isinstance(event, PairingsReleased):
        return False
    return next(_hidden(event, public, live), None) is not None


def hidden_grounds(
    event: TournamentEvent, public: TournamentState, live: TournamentState
) -> tuple[HiddenGround, ...]:
    """The results `event` follows from that `public` does not show yet (what telling it
    now would reveal). For a release: what the released round's pairings follow from."""
    if isinstance(event, PairingsReleased):
        event = RoundPaired(event.section, event.round, ())
    return tuple(_hidden(event, public, live))


def tell(public: TournamentState, live: TournamentState, event: TournamentEvent) -> TournamentState:
    """`public` told `event` (StateError when it does not fit that moment: a pairing edit
    of a round the public does not show). A release shows the round as `live` pairs it."""
    if not isinstance(event, PairingsReleased):
        return public.apply(event)
    now = live.section(event.section).rounds.get(event.round)
    if now is None:
        raise StateError(f"round {event.round} of {event.section} is not paired")
    shown = public.section(event.section).rounds.get(event.round)
    if shown is None:
        return public.apply(RoundPaired(event.section, event.round, now.pairings, now.source))
    if shown.pairings == now.pairings:
        return public
    return public.apply(PairingEdited(event.section, event.round, now.pairings))


@dataclass(frozen=True, slots=True)
class Held:
    """News made live that the public does not show yet, and the hidden results it waits
    for: a round's pairings (`round`), a withdrawal or its taking back (`player`, from
    `round`), a play-off game (`round` its number)."""

    section: str
    kind: str  # "pairings", "withdrawal", "reinstatement", "play-off game"
    round: int
    player: int = 0
    grounds: tuple[HiddenGround, ...] = ()

    def shown_in(self, public: TournamentState, live: TournamentState) -> bool:
        """Whether `public` shows this news as `live` has it."""
        shown = public.sections.get(self.section)
        now = live.sections.get(self.section)
        if shown is None or now is None:
            return False
        match self.kind:
            case "pairings":
                was, new = shown.rounds.get(self.round), now.rounds.get(self.round)
                return was is not None and new is not None and was.pairings == new.pairings
            case "withdrawal" | "reinstatement":
                return shown.withdrawn.get(self.player) == now.withdrawn.get(self.player)
            case _:
                return self.round in shown.playoff
        return False  # pragma: no cover


def held_news(public: TournamentState, live: TournamentState) -> list[Held]:
    """The news `live` has that `public` does not show yet, each with the hidden results it
    waits for (the desk lists them; a round's pairings can be released early)."""
    out: list[Held] = []
    for name, now in live.sections.items():
        shown = public.sections.get(name)
        if shown is None or shown is now:
            continue
        for number, rnd in sorted(now.rounds.items()):
            was = shown.rounds.get(number)
            if was is None or was.pairings != rnd.pairings:
                event: TournamentEvent = RoundPaired(name, number, ())
                out.append(Held(name, "pairings", number, 0, hidden_grounds(event, public, live)))
        for player in sorted(now.withdrawn.keys() | shown.withdrawn.keys()):
            start = now.withdrawn.get(player)
            if start == shown.withdrawn.get(player):
                continue
            if start is not None:
                event = PlayerWithdrawn(name, player, start)
                kind = "withdrawal"
            else:
                event = PlayerReinstated(name, player, from_round=shown.withdrawn[player])
                kind = "reinstatement"
            out.append(Held(name, kind, start or 0, player, hidden_grounds(event, public, live)))
        for number, game in sorted(now.playoff.items()):
            if number not in shown.playoff:
                event = PlayoffGamePaired(
                    name, number, game.white, game.black, game.kind, game.at, game.board
                )
                out.append(
                    Held(name, "play-off game", number, 0, hidden_grounds(event, public, live))
                )
    return out
