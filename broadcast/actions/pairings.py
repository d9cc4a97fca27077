"""Pairing a round: FIDE Dutch, the pairing program's TRF, or pairs set by hand, all
published through `PublishPairings`.

- A new round is paired; a Swiss round from FIDE Dutch is refused while a round before it
  has games without a result, unless the arbiter overrides (the pairings would be made
  from results that are not there).
- A round already published is replaced only after the arbiter has seen the difference
  (which games change, which byes move) and confirmed it. What it drops (a game with
  moves, a result) is listed among what it removes: those games start afresh, their old
  moves and result kept aside in the journal (an undo brings them back).
- The byes a pairing program's TRF gives (Vega's H, F, Z) go in with its round; a bye a
  player asked for (H, F) goes through the section's bye policy like a request at the
  desk, unless the arbiter accepts the file's byes as they are (journaled and flagged).

Under a broadcast delay, a Swiss round's pairings reach the public once the results they
follow from are public (`broadcast.tournament.news`): the plan says so. `ReleasePairings`
shows them at once, after saying which hidden results that reveals.

The pairings themselves come from `dutch_pairings` (pure, in the caller's thread),
`dutch_off_loop` (the same in the service's worker process, for a running server: the
desk, the API and `serve --sim`), `imported_round` (a TRF) or the arbiter's pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol

from broadcast.actions.door import ActionHost, Plan, act, section_state
from broadcast.actions.words import game_words, hidden_words, player_words
from broadcast.fide.dutch import PairingError, PairingOptions, pair_round
from broadcast.fide.pairing import Pairing
from broadcast.fide.pairing_import import PairingImportError, import_round
from broadcast.fide.trf import TrfError, read_trf
from broadcast.games.ids import GameKey, slug
from broadcast.journal.kinds import JournalEvent
from broadcast.phrases import Value, phrase_of, say
from broadcast.service.committer import ActionError
from broadcast.service.hall import utc
from broadcast.service.pairing_worker import PairingBusy, PairingWorker
from broadcast.tournament.live_round import unpaired_rounds
from broadcast.tournament.news import hidden_grounds
from broadcast.tournament.section import StateError
from broadcast.tournament.tournament_events import (
    ByeGranted,
    ByeRequested,
    PairingEdited,
    PairingsReleased,
    ResultRecorded,
    RoundPaired,
)
from broadcast.tournament.tournament_state import SectionState, TournamentState

__all__ = [
    "PairingHost",
    "PairingOutdated",
    "PublishPairings",
    "ReleasePairings",
    "check_individuals",
    "check_results_in",
    "due_unpaired",
    "dutch_off_loop",
    "dutch_pairings",
    "how_to_pair",
    "imported_round",
    "pair_unpaired",
    "pair_unpaired_off_loop",
    "pairing_options",
    "unfinished_games",
]

# The byes a player asks for (TRF H and F); Z (not paired) and U (the pairing bye) are the
# pairing program's own doing, not a request.
_REQUESTED_CODES = frozenset({"H", "F"})


def how_to_pair(section: str, number: int) -> str:
    """What to tell a user whose live round has no pairings (the log, the home page)."""
    return (
        f"round {number} of {section} is not paired, so no game is followed: pair it on the "
        f"arbiter desk (FIDE Dutch, or import the pairing program's TRF), or POST "
        f'{{"engine": "dutch"}} or {{"trf": "..."}} to '
        f"/api/v1/arbiter/sections/{slug(section)}/rounds/{number}/pairings"
    )


def check_individuals(state: SectionState, round_number: int) -> None:
    """A team section's round is not paired player by player: its boards come from the
    teams' matches and lineups (`actions.teams`), or from the pairing program's team TRF
    (`actions.team_import`). An individual pairing would leave the round without matches,
    its boards matching no lineup: refused, saying what to do instead."""
    if not state.config.is_team:
        return
    raise ActionError(
        say(
            "%(name)s is a team section: its rounds are not paired player by player. Pair "
            "the teams of round %(round)s, send the lineups, then pair the boards from them "
            "(the desk's Lineups page, or POST .../rounds/%(round)s/matches, .../lineups and "
            ".../boards); or import the pairing program's team TRF",
            name=state.name,
            round=round_number,
        )
    )


def unfinished_games(state: SectionState, round_number: int) -> list[str]:
    """The games of the rounds before `round_number` that have no result yet, in words
    ("round 1 board 3 (Lindqvist - Ferreira)")."""
    out = []
    for number in sorted(r for r in state.rounds if r < round_number):
        rnd = state.rounds[number]
        for p in rnd.pairings:
            if p.black is not None and p.white not in rnd.results:
                white, black = (
                    state.players[n].name if n in state.players else f"player {n}"
                    for n in (p.white, p.black)
                )
                out.append(f"round {number} board {p.board} ({white} - {black})")
    return out


def check_results_in(state: SectionState, round_number: int, *, override: bool) -> None:
    """A Swiss round is paired from the results before it: refuse to pair round N+1 while
    round N has games without a result (the pairings would be round N's again), unless
    the arbiter overrides."""
    if override or round_number in state.rounds:
        return
    missing = unfinished_games(state, round_number)
    if not missing:
        return
    shown: Value = ", ".join(missing[:5])
    if len(missing) > 5:
        shown = say("%(shown)s and %(more)s more", shown=shown, more=len(missing) - 5)
    if len(missing) == 1:
        raise ActionError(
            say(
                "cannot pair round %(round)s of %(name)s: 1 game of the rounds before it has "
                "no result yet (%(shown)s). Enter those results first, or pair anyway with "
                "the override (override=true) if the arbiter has decided so",
                round=round_number,
                name=state.name,
                shown=shown,
            )
        )
    raise ActionError(
        say(
            "cannot pair round %(round)s of %(name)s: %(count)s games of the rounds before it "
            "have no result yet (%(shown)s). Enter those results first, or pair anyway with "
            "the override (override=true) if the arbiter has decided so",
            round=round_number,
            name=state.name,
            count=len(missing),
            shown=shown,
        )
    )


def dutch_pairings(
    state: SectionState, round_number: int, *, override: bool = False
) -> tuple[Pairing, ...]:
    """FIDE Dutch pairings for a round from the results so far (pure; about a second for
    a 300-player Swiss, so a running server uses `dutch_off_loop`). Refused while a round
    before it has games without a result, unless `override`, and in a team section."""
    check_individuals(state, round_number)
    check_results_in(state, round_number, override=override)
    try:
        return pair_round(
            state.to_crosstable(), round_number, **pairing_options(state, round_number)
        )
    except PairingError as exc:
        raise ActionError(phrase_of(exc)) from None


class PairingOutdated(PairingBusy):
    """The section changed while its round was being paired (a result or a bye came in):
    the pairings follow from results that are no longer the section's."""


class PairingHost(ActionHost, Protocol):
    """A running event that pairs in its worker (`EventService`)."""

    @property
    def pairer(self) -> PairingWorker: ...


async def dutch_off_loop(
    host: PairingHost, section: str, round_number: int, *, override: bool = False
) -> tuple[Pairing, ...]:
    """`dutch_pairings` made in the service's worker process (`host.pairer`), while the
    loop goes on serving boards and pages. Refused at once while a round before it has
    games without a result (unless `override`), or while that round is being paired
    (`PairingBusy`); `PairingOutdated` when the section changed meanwhile."""
    try:
        state = host.tournament.section(section)
    except StateError as exc:
        raise ActionError(phrase_of(exc)) from None
    check_individuals(state, round_number)
    check_results_in(state, round_number, override=override)
    pairings = await host.pairer.pair(
        section, round_number, state.to_crosstable(), pairing_options(state, round_number)
    )
    if host.tournament.section(section) is not state:
        raise PairingOutdated(
            f"{section} changed while round {round_number} was being paired (a result "
            "or a bye came in): pair it again"
        )
    return pairings


def pairing_options(state: SectionState, round_number: int) -> PairingOptions:
    """What `pair_round` needs from the section besides its crosstable (plain values: the
    service's worker process receives them pickled)."""
    return {
        "total_rounds": state.config.rounds,
        "absent": state.absent_for(round_number),
        "acceleration": state.config.acceleration,
        "late_entries": frozenset(p for p, joined in state.joined.items() if joined > 1),
    }


def imported_round(
    trf_text: str, round_number: int
) -> tuple[tuple[Pairing, ...], tuple[tuple[int, str], ...]]:
    """A round as the event's pairing program (Vega, Swiss-Manager) wrote it in a TRF:
    its pairings, and the byes it gives (player, H/F/Z/U)."""
    try:
        imported = import_round(read_trf(trf_text).crosstable, round_number)
    except (TrfError, PairingImportError) as exc:
        raise ActionError(
            say(
                "cannot import round %(round_number)s from that TRF: %(exc)s",
                round_number=round_number,
                exc=phrase_of(exc),
            )
        ) from None
    return imported.pairings, tuple(imported.byes)


def _games(pairings: Sequence[Pairing]) -> dict[int, tuple[int, int]]:
    return {p.board: (p.white, p.black) for p in pairings if p.black is not None}


def _pair_words(state: SectionState, white: int, black: int) -> str:
    return f"{player_words(state, white)} – {player_words(state, black)}"


@dataclass(frozen=True, slots=True)
class PublishPairings:
    """Make `pairings` round `round`'s of `section` (a first pairing, or a replacement of
    published ones). `source`: dutch, import, arbiter (by hand), or a tool's name.
    `byes`: the byes the pairing program's file gives, `accept_byes` takes them as they
    are even where the policy refuses; `override` pairs a Dutch round while results of
    the rounds before it are missing."""

    section: str
    round: int
    pairings: tuple[Pairing, ...]
    source: str
    byes: tuple[tuple[int, str], ...] = ()
    accept_byes: bool = False
    override: bool = False
    kind: ClassVar[str] = "pairings"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        check_individuals(state, self.round)
        if self.source == "dutch":
            check_results_in(state, self.round, override=self.override)
        _check_players_known(state, self.pairings, self.byes)
        games = sum(1 for p in self.pairings if p.black is not None)
        event: RoundPaired | PairingEdited
        removes: list[str] = []
        notes: list[str] = []
        if self.round in state.rounds:
            event = PairingEdited(
                state.name, self.round, self.pairings, reason=f"{self.source} by {by}", by=by
            )
            removes, notes = self._difference(host, state)
            summary = f"{state.name} round {self.round} paired again ({self.source}, {games} games)"
        else:
            event = RoundPaired(state.name, self.round, self.pairings, f"{self.source} ({by})")
            summary = f"{state.name} round {self.round} paired ({self.source}, {games} games)"
        try:
            after = state.apply(event)
        except StateError as exc:
            raise ActionError(phrase_of(exc)) from None
        events: list[JournalEvent] = [event]
        bye_events, bye_notes = self._byes(host, after, by)
        events += bye_events
        notes += bye_notes
        notes += _held_words(host, event, host.tournament.apply(event))
        return Plan(
            self.kind,
            summary,
            tuple(events),
            tuple(removes),
            tuple(notes),
            ask=self.round in state.rounds,
        )

    def _difference(self, host: ActionHost, state: SectionState) -> tuple[list[str], list[str]]:
        """What replacing the published pairings changes: the games that go (those with
        moves or a result are dropped, and listed as removed) and those that come."""
        old = _games(state.rounds[self.round].pairings)
        new = _games(self.pairings)
        removes: list[str] = []
        notes: list[str] = []
        for board, (white, black) in sorted(old.items()):
            if new.get(board) == (white, black):
                continue
            game = host.book.games.get(GameKey(state.name, self.round, board).id)
            if game is not None and (game.moves or game.finished):
                # A game is its board's: one begun and paired otherwise starts afresh.
                played = f"{game.ply} plies" + (f", {game.result}" if game.result else "")
                removes.append(f"{game_words(host.tournament, game)} ({played})")
            else:
                notes.append(f"board {board}: {_pair_words(state, white, black)} goes")
        for board, (white, black) in sorted(new.items()):
            if old.get(board) != (white, black) and (white, black) not in old.values():
                notes.append(f"board {board}: {_pair_words(state, white, black)} comes")
        old_bye = {p.white for p in state.rounds[self.round].pairings if p.black is None}
        new_bye = {p.white for p in self.pairings if p.black is None}
        for player in sorted(old_bye - new_bye):
            notes.append(f"the pairing bye of {player_words(state, player)} goes")
        for player in sorted(new_bye - old_bye):
            notes.append(f"the pairing bye goes to {player_words(state, player)}")
        if not removes and not notes:
            notes.append("the same pairings as published")
        return removes, notes

    def _byes(
        self, host: ActionHost, state: SectionState, by: str
    ) -> tuple[list[JournalEvent], list[str]]:
        """The file's byes: each a request through the policy where a player asked for it,
        decided here as the rules will decide it when they see the request."""
        events: list[JournalEvent] = []
        notes: list[str] = []
        now = host.time_source.now()
        at = utc(now)
        recorded: list[ResultRecorded] = []
        for player, code in self.byes:
            if player not in state.players:
                raise ActionError(
                    say(
                        "the pairing program's file gives a bye to player %(player)s, who is "
                        "not in %(name)s: enter them first (a late entry or a replacement)",
                        player=player,
                        name=state.name,
                    )
                )
            rnd = state.rounds.get(self.round)
            known = self.round in state.granted_byes.get(player, frozenset()) or (
                rnd is not None and rnd.bye_codes.get(player) == code
            )
            if code not in _REQUESTED_CODES or known:
                recorded.append(ResultRecorded(state.name, self.round, player, code, reason="bye"))
                continue
            request = ByeRequested(state.name, self.round, player, at, source="import")
            decision = state.decide_bye(request, host.state.start_overrides)
            events.append(request)
            if isinstance(decision, ByeGranted):
                state = state.apply(request).apply(decision)
            elif self.accept_byes:
                granted = ByeGranted(
                    state.name, self.round, player, at, by=by, override=decision.reason
                )
                events.append(granted)
                state = state.apply(request).apply(decision).apply(granted)
                notes.append(
                    f"the file's bye {code} for {player_words(state, player)} is accepted "
                    f"against the bye policy ({decision.reason}): flagged"
                )
            else:
                notes.append(
                    f"the file's bye {code} for {player_words(state, player)} is refused by the "
                    f"bye policy ({decision.reason}): it scores nothing until you decide"
                )
                continue
            recorded.append(ResultRecorded(state.name, self.round, player, code, reason="bye"))
        return events + list(recorded), notes


def _check_players_known(
    state: SectionState, pairings: Sequence[Pairing], byes: Sequence[tuple[int, str]]
) -> None:
    """Every player the pairings (or the file's byes) name must be the section's: a
    pairing program that has a late entry or a replacement the event has not been told
    of is refused before anything is journaled, saying what to do."""
    named = {n for p in pairings for n in p.players()} | {player for player, _ in byes}
    unknown = sorted(named - set(state.players))
    if not unknown:
        return
    raise ActionError(
        say(
            "the pairings name player %(players)s, who is not in %(name)s: add the late "
            "entry (or the replacement) first, with the number the pairing program gives "
            "them, then pair the round again",
            players=", ".join(str(n) for n in unknown),
            name=state.name,
        )
    )


def _held_words(
    host: ActionHost, event: RoundPaired | PairingEdited, live: TournamentState
) -> list[str]:
    """What the desk must know when pairings will wait for results the delay hides."""
    hidden = hidden_grounds(event, host.public_state().tournament, live)
    if not hidden:
        return []
    return [
        f"the public sees these pairings once the results they follow from are public "
        f'(the broadcast delay hides {hidden_words(live, hidden)}); "Publish now" shows '
        f"them before, revealing those results through the score groups"
    ]


@dataclass(frozen=True, slots=True)
class ReleasePairings:
    """Show round `round`'s pairings of `section` to the public now, although they follow
    from results the broadcast delay still hides (a Swiss round's score groups give them
    away). Asks first, naming those results. A publication cannot be taken back."""

    section: str
    round: int
    kind: ClassVar[str] = "release-pairings"

    def plan(self, host: ActionHost, by: str) -> Plan:
        state = section_state(host, self.section)
        live = state.rounds.get(self.round)
        if live is None:
            raise ActionError(
                say(
                    "round %(round)s of %(name)s is not paired: pair it first",
                    round=self.round,
                    name=state.name,
                )
            )
        public = host.public_state().tournament
        shown = public.section(state.name).rounds
        if shown.get(self.round) is not None and shown[self.round].pairings == live.pairings:
            raise ActionError(
                say(
                    "round %(round)s of %(name)s is already public as paired",
                    round=self.round,
                    name=state.name,
                )
            )
        if self.round > 1 and self.round - 1 not in shown:
            raise ActionError(
                say(
                    "round %(round)s of %(name)s is not public yet: publish it first",
                    round=self.round - 1,
                    name=state.name,
                )
            )
        event = PairingsReleased(state.name, self.round, by)
        hidden = hidden_grounds(event, public, host.tournament)
        notes = (
            [
                f"this reveals, through the score groups, {hidden_words(host.tournament, hidden)}"
                f", which the broadcast delay still hides"
            ]
            if hidden
            else []
        )
        notes.append("the public cannot be made to forget them: this cannot be undone")
        return Plan(
            self.kind,
            f"{state.name} round {self.round} pairings shown to the public now",
            (event,),
            notes=tuple(notes),
            ask=True,
        )


def pair_unpaired(host: ActionHost, by: str) -> list[str]:
    """Pair every unpaired due round of individuals with the FIDE Dutch engine (a
    rehearsal's shortcut: at a real event the pairing program's round is imported); a team
    section's is `actions.team_rehearsal.pair_teams_unpaired`'s. Returns what was done or
    could not be, one line each, for the log. Pairs here, in the caller's thread: on an
    event loop, use `pair_unpaired_off_loop`."""
    done: list[str] = []
    for section, number in due_unpaired(host).items():
        if host.config.section(section).is_team:
            continue  # teams, then boards: actions.team_rehearsal.pair_teams_unpaired
        try:
            pairings = dutch_pairings(host.tournament.section(section), number)
        except ActionError as exc:
            done.append(f"{section} round {number} could not be paired: {exc}")
            continue
        done.append(_publish_dutch(host, by, section, number, pairings))
    return done


async def pair_unpaired_off_loop(host: PairingHost, by: str) -> list[str]:
    """`pair_unpaired` for a running server (`serve --sim`): the engine runs in the
    service's worker (`dutch_off_loop`) while the loop goes on serving boards and pages;
    the pairings are published back on the loop, unless the section changed meanwhile."""
    done: list[str] = []
    for section, number in due_unpaired(host).items():
        if host.config.section(section).is_team:
            continue  # teams, then boards: actions.team_rehearsal.pair_teams_unpaired
        try:
            pairings = await dutch_off_loop(host, section, number)
        except PairingOutdated:
            done.append(
                f"{section} round {number} was not paired: the section changed while it was "
                "being paired; pair it on the arbiter desk"
            )
            continue
        except ActionError as exc:
            done.append(f"{section} round {number} could not be paired: {exc}")
            continue
        done.append(_publish_dutch(host, by, section, number, pairings))
    return done


def due_unpaired(host: ActionHost) -> dict[str, int]:
    return unpaired_rounds(
        host.config, host.tournament, utc(host.time_source.now()), host.state.start_overrides
    )


def _publish_dutch(
    host: ActionHost, by: str, section: str, number: int, pairings: tuple[Pairing, ...]
) -> str:
    try:
        act(host, PublishPairings(section, number, pairings, "dutch"), by)
    except ActionError as exc:
        return f"{section} round {number} could not be paired: {exc}"
    games = sum(1 for p in pairings if p.black is not None)
    return (
        f"{section} round {number} was not paired: paired it with the FIDE Dutch "
        f"engine from the ratings and results ({games} games)"
    )
