"""The arbiter's actions, each journaled with who did it, and the pairings.

One layer of actions over a running `EventService` (any `ActionHost`): each checks what
it is asked against the state and the event's regulations, raises `ActionError` with the
reason when it is refused (shown to the arbiter), and otherwise commits its events as one
action (`ActionHost.action`: durable before it returns, or `NotDurable` with nothing
applied).

- alerts and presence: `acknowledge`, `mark_present`;
- results: `confirm_result` (any broadcast result), `set_result` (the desk's: with a
  reason the regulations accept), `confirm_proposal`, `reject_proposal` (the game goes
  on), `propose`;
- the moves of a game: `correct_line`, `set_start_fen` (both `_correct`: the board's
  reconstruction starts again from the corrected game once the board shows it);
- the board a game is played on: `replace_board` (a spare takes the game over);
- pairings: `dutch_pairings`, `imported_pairings` (a pairing program's TRF),
  `publish_pairings`, `round_robin_pairings`, `unpaired_rounds`, `pair_unpaired`;
- the regulations' tournament actions: `request_bye`, `cancel_bye`, `withdraw`,
  `continue_after_absence`, `pair_playoff_game`, `withhold_prize`, `restore_prize`
  (through `tournament_event`);
- reading the final standings: `standings`, `playoff`, `prizes`, `playoff_result_game`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Protocol

from broadcast.arbiter.alerts import Alert, AlertAcknowledged, PlayerMarkedPresent
from broadcast.arbiter.engine import ArbiterRules
from broadcast.arbiter.presence import no_show_colours
from broadcast.arbiter.withdrawal import first_open_round
from broadcast.config.model import EventConfig
from broadcast.fide.berger import berger_round
from broadcast.fide.dutch import PairingError, pair_round
from broadcast.fide.pairing import Pairing
from broadcast.fide.pairing_import import PairingImportError, import_round
from broadcast.fide.standings import Standings, compute_standings
from broadcast.fide.trf import TrfError, read_trf
from broadcast.games.book import GameBook
from broadcast.games.events import (
    RESULTS,
    BoardReplaced,
    LineCorrected,
    ProposalWithdrawn,
    ResultConfirmed,
    ResultProposed,
    StartPositionSet,
)
from broadcast.games.ids import GameKey, slug
from broadcast.games.state import GameError, GameState
from broadcast.journal.kinds import JournalEvent
from broadcast.journal.store import Entry
from broadcast.service.committer import TOURNAMENT_RESULT, ActionError
from broadcast.service.hall import HallBoard, utc
from broadcast.service.health import SYSTEM_PREFIX, Health
from broadcast.tournament.bye_policy import check_bye_cancel
from broadcast.tournament.events import (
    ByeCancelled,
    ByeGranted,
    ByeRefused,
    ByeRequested,
    ContinuationRequested,
    PairingEdited,
    PlayerWithdrawn,
    PlayoffGamePaired,
    PrizeRestored,
    PrizeWithheld,
    ResultRecorded,
    RoundPaired,
    TournamentEvent,
)
from broadcast.tournament.final_standings import section_playoff, section_prizes, section_standings
from broadcast.tournament.live_round import StartOverrides, due_round
from broadcast.tournament.playoff import PlayoffStatus
from broadcast.tournament.prizes import PrizeList
from broadcast.tournament.state import SectionState, StateError, TournamentState
from clocks.timesource import EpochTimeSource

# A pairing program's byes (H, F, Z) waiting for their round to be published, by
# (section, round, pairings): (player, result code) each.
ImportedByes = dict[tuple[str, int, tuple[Pairing, ...]], tuple[tuple[int, str], ...]]


class ActionHost(Protocol):
    """What the actions act on: the running event (`EventService`)."""

    @property
    def config(self) -> EventConfig: ...
    @property
    def time(self) -> EpochTimeSource: ...
    @property
    def tournament(self) -> TournamentState: ...
    @property
    def book(self) -> GameBook: ...
    @property
    def start_overrides(self) -> StartOverrides: ...
    @property
    def rules(self) -> ArbiterRules: ...
    @property
    def health(self) -> Health: ...
    @property
    def imported_byes(self) -> ImportedByes: ...
    def commit(self, events: Sequence[JournalEvent], *, game: str | None = None) -> list[Entry]: ...
    def action(self) -> AbstractContextManager[None]: ...
    def attach_boards(self) -> None: ...
    def refollow(self, game_id: str) -> None: ...
    @property
    def hall(self) -> Mapping[int, HallBoard]: ...


def _now(service: ActionHost) -> dt.datetime:
    return utc(service.time.now())


def section_state(service: ActionHost, section: str) -> SectionState:
    """The section's state; ActionError for a section the event does not have."""
    try:
        return service.tournament.section(section)
    except StateError as exc:
        raise ActionError(str(exc)) from None


def game_state(service: ActionHost, game_id: str) -> GameState:
    """The game's state; ActionError for a game the book does not have."""
    try:
        return service.book.get(game_id)
    except GameError as exc:
        raise ActionError(str(exc)) from None


# -- alerts and presence ---------------------------------------------------------------------


def acknowledge(service: ActionHost, alert_id: str, by: str) -> None:
    """The arbiter has seen an alert (a rules' alert is journaled; a system one is not)."""
    if alert_id.startswith(SYSTEM_PREFIX) and service.health.acknowledge(alert_id):
        return  # the service's own trouble: not a journal event
    alert = service.rules.alerts.get(alert_id)
    if alert is None:
        raise ActionError(f"no alert {alert_id!r}")
    if alert.kind == "result-proposed" and _pending(service, alert.game) is not None:
        # "Seen" is no answer to a proposal: the result would stay pending for ever, and
        # spectators would read "awaiting the arbiter". Nor is it a rejection: one
        # careless click would drop a right result (a flag fall) without a word.
        raise ActionError(
            f"a proposed result ({alert.result}) is not acknowledged: confirm it, set "
            "another result, or reject it (the game goes on)"
        )
    service.commit([AlertAcknowledged(alert_id, service.time.now(), by=by)])


def _pending(service: ActionHost, game_id: str) -> ResultProposed | None:
    game = service.book.games.get(game_id)
    return game.proposal if game is not None and game.result is None else None


def mark_present(service: ActionHost, game_id: str, colour: str, by: str) -> None:
    """The arbiter saw the player at the board (no default-time forfeit for them). A
    default-time forfeit already proposed against them is withdrawn: the game goes on."""
    game_state(service, game_id)
    if colour not in ("white", "black"):
        raise ActionError(f"colour must be 'white' or 'black', not {colour!r}")
    now = service.time.now()
    events: list[JournalEvent] = [PlayerMarkedPresent(game_id, colour, now, by=by)]  # type: ignore[arg-type]
    proposal = _pending(service, game_id)
    if (
        proposal is not None
        and proposal.reason == "default-time"
        and colour in no_show_colours(proposal.result)
    ):
        why = f"{colour} marked present by {by}: the default-time forfeit {proposal.result} is withdrawn"
        events.append(ProposalWithdrawn(game_id, now, by=by, why=why))
    service.commit(events)


def reject_proposal(service: ActionHost, game_id: str, by: str) -> None:
    """The proposed result does not stand and the game goes on (a kings signal given by
    mistake, a flag the arbiter saw otherwise): the pending result is cleared and its
    alert closes."""
    game = game_state(service, game_id)
    proposal = _pending(service, game.id)
    if proposal is None:
        raise ActionError(f"{game_id} has no result waiting for confirmation to reject")
    why = f"rejected by {by}: the game goes on"
    service.commit([ProposalWithdrawn(game.id, service.time.now(), by=by, why=why)])


# -- results and moves -----------------------------------------------------------------------


def confirm_result(
    service: ActionHost, game_id: str, result: str, by: str, reason: str = "arbiter"
) -> None:
    """A game's result stands (and with it the tournament's, by White's number)."""
    game = game_state(service, game_id)
    if result not in TOURNAMENT_RESULT:
        raise ActionError(f"result must be one of {', '.join(TOURNAMENT_RESULT)}, not {result!r}")
    service.commit([ResultConfirmed(game.id, result, reason, service.time.now(), by=by)])  # type: ignore[arg-type]


def confirm_proposal(service: ActionHost, game_id: str, by: str) -> None:
    """The result the board or the rules proposed for the game stands."""
    proposal = game_state(service, game_id).proposal
    if proposal is None:
        raise ActionError(f"{game_id} has no result waiting for confirmation")
    confirm_result(service, game_id, proposal.result, by, proposal.reason)


def propose(service: ActionHost, proposal: ResultProposed) -> None:
    service.commit([proposal])


def correct_line(service: ActionHost, game_id: str, ucis: Sequence[str], by: str) -> None:
    """The game's moves are these (the arbiter's correction of what the board gave; the
    same moves again after a knocked-over piece: the board must show them again)."""
    board = following(service, game_id)
    _correct(service, LineCorrected(game_id, tuple(ucis), service.time.now(), by, board))


def set_start_fen(service: ActionHost, game_id: str, fen: str, by: str) -> None:
    """The game started from this position (a Chess960 setup, an adjourned game)."""
    board = following(service, game_id)
    _correct(service, StartPositionSet(game_id, fen, service.time.now(), by, board))


def following(service: ActionHost, game_id: str) -> int | None:
    """The hall board whose reconstruction follows the game now (None: none does, e.g. a
    finished game or a round not being played)."""
    return next(
        (n for n, b in service.hall.items() if b.game == game_id and b.follower is not None),
        None,
    )


def _correct(service: ActionHost, event: LineCorrected | StartPositionSet) -> None:
    """A correction of a game: checked against the game first, then journaled, and the
    board's reconstruction starts again from the corrected game, waiting for the board to
    show it (nothing it shows before is a move or a takeback)."""
    game = game_state(service, event.game)
    try:
        game.apply(event)
    except GameError as exc:
        raise ActionError(str(exc)) from None
    with service.action():
        service.commit([event])
        service.refollow(event.game)


def replace_board(
    service: ActionHost,
    game_id: str,
    board: int,
    by: str,
    *,
    white_seconds: float | None = None,
    black_seconds: float | None = None,
) -> list[BoardReplaced]:
    """The game moves to hall board `board` (a spare, after its own board failed), with its
    moves, clocks, result proposal and alerts: the new board is followed from the game's
    position once it shows it, and the board it leaves no longer touches it. A game not
    finished that `board` carried moves to the left board in exchange. The times are for
    a spare without a clock (both or neither). Returns the moves made."""
    game = game_state(service, game_id)
    hall = service.hall
    if game.finished:
        raise ActionError(
            f"{game.id} is finished ({game.result}): a finished game stays where it was played"
        )
    if board not in hall:
        numbers = ", ".join(str(n) for n in sorted(hall)) or "none"
        raise ActionError(f"there is no hall board {board} (the hall's boards: {numbers})")
    current = next((n for n, b in hall.items() if b.game == game.id), None)
    if current is None:
        raise ActionError(
            f"{game.id} is on no hall board now (its round is not the one being played)"
        )
    if current == board:
        raise ActionError(f"{game.id} is on board {board} already")
    if (white_seconds is None) != (black_seconds is None):
        raise ActionError("enter both players' times for a spare without a clock, or neither")
    for seconds in (white_seconds, black_seconds):
        if seconds is not None and not 0 <= seconds <= 86_400:
            raise ActionError(f"a player's time must be 0 to 86400 seconds, not {seconds:g}")
    now = service.time.now()
    moves = [
        BoardReplaced(game.id, current, board, game.ply, now, by, white_seconds, black_seconds)
    ]
    occupant = hall[board].game
    other = service.book.games.get(occupant) if occupant is not None else None
    if other is not None and not other.finished:
        moves.append(BoardReplaced(other.id, board, current, other.ply, now, by))
    with service.action():
        service.commit(moves)
        service.attach_boards()
    return moves


# -- pairings --------------------------------------------------------------------------------


def how_to_pair(section: str, number: int) -> str:
    """What to tell a user whose live round has no pairings (the log, the home page)."""
    return (
        f"round {number} of {section} is not paired, so no game is followed: pair it on the "
        f"arbiter desk (FIDE Dutch, or import the pairing program's TRF), or POST "
        f'{{"engine": "dutch"}} or {{"trf": "..."}} to '
        f"/api/v1/arbiter/sections/{slug(section)}/rounds/{number}/pairings"
    )


def unfinished_games(state: SectionState, round_number: int) -> list[str]:
    """The games of the rounds before `round_number` that have no result yet, in words
    ("round 1 board 3 (Lindqvist - Ferreira)")."""
    out = []
    for number in sorted(r for r in state.rounds if r < round_number):
        rnd = state.rounds[number]
        for p in rnd.pairings:
            if p.black is not None and p.white not in rnd.results:
                white, black = (_player_name(state, n) for n in (p.white, p.black))
                out.append(f"round {number} board {p.board} ({white} - {black})")
    return out


def _player_name(state: SectionState, number: int) -> str:
    entry = state.players.get(number)
    return entry.name if entry is not None else f"player {number}"


def check_results_in(state: SectionState, round_number: int, *, override: bool) -> None:
    """A Swiss round is paired from the results before it: refuse to pair round N+1 while
    round N has games without a result (the pairings would be round N's again), unless
    the arbiter overrides."""
    if override or round_number in state.rounds:
        return
    missing = unfinished_games(state, round_number)
    if not missing:
        return
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    raise ActionError(
        f"cannot pair round {round_number} of {state.name}: {len(missing)} game"
        f"{'s' if len(missing) != 1 else ''} of the rounds before it "
        f"{'have' if len(missing) != 1 else 'has'} no result yet ({shown}). Enter those "
        f"results first, or pair anyway with the override (override=true) if the arbiter "
        f"has decided so"
    )


def dutch_pairings(
    service: ActionHost, section: str, round_number: int, *, override: bool = False
) -> tuple[Pairing, ...]:
    """FIDE Dutch pairings for a round from the results so far (pure; can take seconds
    for a large Swiss, so the web calls it off the event loop). Refused while a round
    before it has games without a result, unless `override`."""
    state = section_state(service, section)
    check_results_in(state, round_number, override=override)
    try:
        return pair_round(
            state.to_crosstable(),
            round_number,
            total_rounds=state.config.rounds,
            absent=state.absent_for(round_number),
        )
    except PairingError as exc:
        raise ActionError(str(exc)) from None


def imported_pairings(
    service: ActionHost, section: str, round_number: int, trf_text: str
) -> tuple[Pairing, ...]:
    """A round as the event's pairing program (Vega, Swiss-Manager) wrote it in a TRF."""
    section_state(service, section)
    try:
        imported = import_round(read_trf(trf_text).crosstable, round_number)
    except (TrfError, PairingImportError) as exc:
        raise ActionError(f"cannot import round {round_number} from that TRF: {exc}") from None
    # The byes the program entered (H, F, Z) go in with these pairings when published.
    service.imported_byes[(section, round_number, imported.pairings)] = imported.byes
    return imported.pairings


def publish_pairings(
    service: ActionHost,
    section: str,
    round_number: int,
    pairings: Sequence[Pairing],
    source: str,
    by: str,
    *,
    override: bool = False,
) -> None:
    """Make `pairings` the round's pairings: a first pairing, or an edit of one. FIDE
    Dutch pairings (`source` "dutch") of a new round are refused while a round before it
    has games without a result, unless `override`. Imported pairings (`source` "import"):
    the byes the pairing program entered go through the bye policy (`imported_byes`);
    `override` accepts the file's byes as they are, on the record."""
    state = section_state(service, section)
    if source == "dutch":
        check_results_in(state, round_number, override=override)
    event: TournamentEvent
    if round_number in state.rounds:
        event = PairingEdited(section, round_number, tuple(pairings), reason=f"{source} by {by}")
    else:
        event = RoundPaired(section, round_number, tuple(pairings), f"{source} ({by})")
    with service.action():
        tournament_event(service, event)
        byes = service.imported_byes.pop((section, round_number, tuple(pairings)), ())
        if source == "import" and byes:
            imported_byes(service, section, round_number, byes, by, override=override)


# The byes a player asks for (TRF H and F); Z (not paired) and U (the pairing bye) are the
# pairing program's own doing, not a request.
_REQUESTED_CODES = frozenset({"H", "F"})


def imported_byes(
    service: ActionHost,
    section: str,
    round_number: int,
    byes: Sequence[tuple[int, str]],
    by: str,
    *,
    override: bool = False,
) -> list[ByeRefused]:
    """Record the byes a pairing program entered with a round (Vega's H scores half a
    point). A requested bye (H, F) boardwire has not granted already goes through the
    section's policy like a request at the desk (Sestao art. 5: the maximum, the excluded
    rounds, the deadline): one the policy refuses raises the same `bye-refused` alert and
    scores nothing until the arbiter decides, unless `override`: then it is granted as
    the file has it, journaled with the reason overridden and flagged. Returns the
    refusals left standing."""
    recorded: list[tuple[int, str]] = []
    refused: list[ByeRefused] = []
    for player, code in byes:
        state = section_state(service, section)
        rnd = state.rounds.get(round_number)
        known = round_number in state.granted_byes.get(player, frozenset()) or (
            rnd is not None and rnd.bye_codes.get(player) == code
        )
        if code not in _REQUESTED_CODES or known:
            recorded.append((player, code))
            continue
        request = ByeRequested(section, round_number, player, _now(service), source="import")
        service.commit([request])
        decision = next(
            (e for e in reversed(section_state(service, section).bye_log) if _answers(e, request)),
            None,
        )
        if isinstance(decision, ByeGranted):
            recorded.append((player, code))
        elif override:
            reason = decision.reason if isinstance(decision, ByeRefused) else "refused"
            tournament_event(
                service,
                ByeGranted(section, round_number, player, request.at, by=by, override=reason),
            )
            recorded.append((player, code))
        elif isinstance(decision, ByeRefused):
            refused.append(decision)
    if recorded:
        service.commit(
            [ResultRecorded(section, round_number, p, c, reason="bye") for p, c in recorded]
        )
    return refused


def tournament_event(service: ActionHost, event: TournamentEvent) -> None:
    """A tournament event the arbiter decided: checked against the state, journaled, and
    the boards pointed at the games it makes."""
    try:
        service.tournament.apply(event)
    except StateError as exc:
        raise ActionError(str(exc)) from None
    with service.action():
        service.commit([event])
        service.attach_boards()


def round_robin_pairings(service: ActionHost) -> list[RoundPaired]:
    """The Berger tables of every round-robin section's rounds not paired yet."""
    out = []
    for section in service.config.sections:
        if section.system not in ("round-robin", "double-round-robin"):
            continue
        n = len(section.players)
        cycles = 2 if section.system == "double-round-robin" else 1
        for r in range(1, section.rounds + 1):
            if r not in service.tournament.section(section.name).rounds:
                out.append(
                    RoundPaired(section.name, r, tuple(berger_round(n, r, cycles)), "berger")
                )
    return out


def unpaired_rounds(service: ActionHost) -> dict[str, int]:
    """Sections with a round not paired up to the one due now (by the schedule, or
    `--round R`), and the first such round: rounds are paired in order, so that is the
    one to pair next (round 9 due with nothing paired means pair round 1)."""
    now = _now(service)
    out: dict[str, int] = {}
    for section in service.config.sections:
        due = min(due_round(section, now, service.start_overrides), section.rounds)
        paired = service.tournament.section(section.name).rounds
        missing = next((r for r in range(1, due + 1) if r not in paired), None)
        if missing is not None:
            out[section.name] = missing
    return out


def pair_unpaired(service: ActionHost, by: str) -> list[str]:
    """Pair every unpaired due round with the FIDE Dutch engine (a rehearsal's shortcut:
    at a real event the pairing program's round is imported). Returns what was done or
    could not be, one line each, for the log."""
    done: list[str] = []
    for section, number in unpaired_rounds(service).items():
        try:
            pairings = dutch_pairings(service, section, number)
            publish_pairings(service, section, number, pairings, "dutch", by)
        except ActionError as exc:
            done.append(f"{section} round {number} could not be paired: {exc}")
            continue
        games = sum(1 for p in pairings if p.black is not None)
        done.append(
            f"{section} round {number} was not paired: paired it with the FIDE Dutch "
            f"engine from the ratings and results ({games} games)"
        )
    return done


# -- the regulations' actions ----------------------------------------------------------------


FORFEIT_RESULTS = ("+/-", "-/+", "-/-")
FORFEIT_REASONS = ("forfeit", "default-time", "withdrawal")
GAME_REASONS = (
    "agreement",
    "resignation",
    "checkmate",
    "stalemate",
    "dead-position",
    "repetition",
    "75-moves",
    "flag-fall",
    "arbiter",
)
DESK_REASONS = (*GAME_REASONS, *FORFEIT_REASONS)
"""Reasons the desk offers for a result (the board's own ones come with its events)."""


def default_reason(result: str) -> str:
    """What a result entered without a reason most likely is: a forfeit, or a draw by
    agreement (so the early-draw rule checks it); otherwise the arbiter's word."""
    if result in FORFEIT_RESULTS:
        return "forfeit"
    return "agreement" if result == "1/2-1/2" else "arbiter"


def set_result(
    service: ActionHost, game_id: str, result: str, by: str, reason: str | None = None
) -> list[Alert]:
    """Record a result with its reason; returns the alerts it raised (an early draw).
    A forfeit needs a forfeit reason (it counts as a no-show unless "withdrawal"); a
    game result cannot carry one."""
    if result not in RESULTS:
        raise ActionError(f"result must be one of {', '.join(RESULTS)}, not {result!r}")
    why = reason or default_reason(result)
    if why not in DESK_REASONS:
        raise ActionError(f"reason must be one of {', '.join(DESK_REASONS)}, not {why!r}")
    if result in FORFEIT_RESULTS and why not in FORFEIT_REASONS:
        raise ActionError(
            f"a forfeit ({result}) needs the reason forfeit, default-time or withdrawal, "
            f"not {why!r}"
        )
    if result not in FORFEIT_RESULTS and why in FORFEIT_REASONS:
        raise ActionError(f"{why!r} is a reason for a forfeit (+/-, -/+, -/-), not for {result}")
    before = set(service.rules.alerts)
    confirm_result(service, game_id, result, by, why)
    return [a for i, a in service.rules.alerts.items() if i not in before]


def request_bye(
    service: ActionHost,
    section: str,
    round_number: int,
    player: int,
    by: str,
    *,
    override: bool = False,
) -> ByeGranted:
    """A bye request through the section's policy. Refused: ActionError with the
    regulation's reason (journaled as ByeRefused), unless `override`: then the arbiter's
    grant is journaled with the reason it overrides and flagged with an alert."""
    state = section_state(service, section)
    if player not in state.players:
        raise ActionError(f"section {section!r} has no player {player}")
    request = ByeRequested(state.name, round_number, player, _now(service))
    service.commit([request])
    decision = next(
        (e for e in reversed(section_state(service, section).bye_log) if _answers(e, request)),
        None,
    )
    if isinstance(decision, ByeGranted):
        return decision
    reason = decision.reason if isinstance(decision, ByeRefused) else "refused"
    if not override:
        raise ActionError(f"bye refused: {reason}")
    # Granting a bye the pairing program's file held back: the reason overridden is the
    # policy's answer to that bye, not "the round is already paired".
    reason = _imported_refusal(section_state(service, section), round_number, player) or reason
    granted = ByeGranted(state.name, round_number, player, request.at, by=by, override=reason)
    tournament_event(service, granted)
    return granted


def _imported_refusal(state: SectionState, round_number: int, player: int) -> str:
    """The policy's reason for refusing the bye the pairing program's TRF gave `player`
    in `round_number`, when that is the latest word on it ("" otherwise)."""
    log = state.bye_log
    for i in range(len(log) - 1, -1, -1):
        event = log[i]
        if not isinstance(event, ByeRequested) or (event.round, event.player) != (
            round_number,
            player,
        ):
            continue
        if event.source != "import":
            continue
        answer = next((e for e in log[i + 1 :] if _answers(e, event)), None)
        return answer.reason if isinstance(answer, ByeRefused) else ""
    return ""


def _answers(event: object, request: ByeRequested) -> bool:
    return (
        isinstance(event, ByeGranted | ByeRefused)
        and event.round == request.round
        and event.player == request.player
        and event.at == request.at
    )


def cancel_bye(
    service: ActionHost,
    section: str,
    round_number: int,
    player: int,
    by: str,
    *,
    override: bool = False,
) -> ByeCancelled:
    """Cancel a granted bye; only until the request deadline unless `override`."""
    state = section_state(service, section)
    if round_number not in state.byes_of(player):
        raise ActionError(f"player {player} has no bye in round {round_number} to cancel")
    at = _now(service)
    decision = check_bye_cancel(state.config, round_number, requested_at=at)
    if not decision.allowed and not override:
        raise ActionError(f"cancellation refused: {decision.reason}")
    flagged = "" if decision.allowed else decision.reason
    event = ByeCancelled(state.name, round_number, player, at, by=by, override=flagged)
    tournament_event(service, event)
    return event


def withdraw(
    service: ActionHost,
    section: str,
    player: int,
    by: str,
    *,
    from_round: int | None = None,
    reason: str = "",
) -> PlayerWithdrawn:
    """Withdraw (or eliminate) a player from `from_round` on (default: their first round
    without a result). Round robin: their later games follow [section.withdrawal]."""
    state = section_state(service, section)
    if player not in state.players:
        raise ActionError(f"section {section!r} has no player {player}")
    if player in state.withdrawn:
        raise ActionError(
            f"player {player} has already withdrawn (from round {state.withdrawn[player]})"
        )
    start = first_open_round(state, player) if from_round is None else from_round
    why = reason or "withdrawn by the arbiter"
    event = PlayerWithdrawn(state.name, player, start, why, by, service.time.now())
    tournament_event(service, event)
    return event


def continue_after_absence(
    service: ActionHost, section: str, round_number: int, player: int, by: str
) -> ContinuationRequested:
    """Record the player's written request to go on after an absence in `round_number`.
    Refused (ActionError, in the regulation's words) when it cannot succeed."""
    state = section_state(service, section)
    if player not in state.players:
        raise ActionError(f"section {section!r} has no player {player}")
    refusal = state.continuation_refusal(player, round_number)
    if refusal:
        raise ActionError(f"request to continue refused: {refusal}")
    event = ContinuationRequested(state.name, round_number, player, by)
    tournament_event(service, event)
    return event


def withhold_prize(
    service: ActionHost, section: str, player: int, by: str, reason: str
) -> PrizeWithheld:
    """Withhold the player's prize (Pamplona art. 9: an unjustified missed game); it
    passes to the next eligible player. The reason is required: it is on the list."""
    state = section_state(service, section)
    if state.config.prizes is None:
        raise ActionError(f"section {state.name!r} has no [section.prizes] in its config")
    if player not in state.players:
        raise ActionError(f"section {state.name!r} has no player {player}")
    why = reason.strip()
    if not why:
        raise ActionError("give the reason the prize is withheld (e.g. 'art. 9: round 3 missed')")
    if player in state.prizes_withheld:
        raise ActionError(
            f"player {player}'s prize is already withheld ({state.prizes_withheld[player]})"
        )
    event = PrizeWithheld(state.name, player, why, by)
    tournament_event(service, event)
    return event


def restore_prize(
    service: ActionHost, section: str, player: int, by: str, reason: str = ""
) -> PrizeRestored:
    """Give back a prize withheld by the arbiter or by an elimination (the config's
    `eliminated_lose_prizes`)."""
    state = section_state(service, section)
    if player not in state.players:
        raise ActionError(f"section {state.name!r} has no player {player}")
    event = PrizeRestored(state.name, player, reason.strip(), by)
    tournament_event(service, event)
    return event


def pair_playoff_game(
    service: ActionHost,
    section: str,
    white: int,
    black: int,
    by: str,
    *,
    board: int = 1,
    at: dt.datetime | None = None,
) -> PlayoffGamePaired:
    """Pair the next play-off game for first place between two players still in it; its
    kind (blitz or Armageddon) follows the play-off's state. It starts at `at` (default
    now) on the section's pairing board `board`."""
    state = section_state(service, section)
    status = playoff(service.tournament, state.name)
    if status is None:
        raise ActionError(f"section {state.name!r} has no tie for first to play off")
    if status.decided:
        raise ActionError(f"the play-off is decided: player {status.winner} is first")
    if status.next_kind is None:
        raise ActionError("a play-off game is still being played: record its result first")
    if not {white, black} <= set(status.remaining):
        still = ", ".join(str(p) for p in status.remaining)
        raise ActionError(f"only players still in the play-off ({still}) can be paired")
    if (min(white, black), max(white, black)) in status.met:
        # Donostia art. 10: a league is everyone against everyone once.
        left = ", ".join(f"{a}-{b}" for a, b in status.missing)
        raise ActionError(
            f"players {white} and {black} have already met in this play-off league: each "
            f"pair plays once; still to play: {left}"
        )
    event = PlayoffGamePaired(
        state.name,
        len(state.playoff) + 1,
        white,
        black,
        status.next_kind,
        at or _now(service),
        board,
        by,
    )
    tournament_event(service, event)
    return event


def playoff(tournament: TournamentState, section: str) -> PlayoffStatus | None:
    state = tournament.section(section)
    return section_playoff(state, _plain(tournament, section))


def _plain(tournament: TournamentState, section: str) -> Standings:
    state = tournament.section(section)
    return compute_standings(
        state.to_crosstable(), state.config.tiebreaks, edition=tournament.event.tiebreak_edition
    )


def standings(tournament: TournamentState, section: str) -> Standings:
    """The section's standings as its regulations rank them."""
    return section_standings(tournament.section(section), tournament.event.tiebreak_edition)


def prizes(tournament: TournamentState, section: str) -> PrizeList | None:
    """The prize list from the standings, for a section with [section.prizes]."""
    return section_prizes(tournament.section(section), tournament.event.tiebreak_edition)


def playoff_result_game(service: ActionHost, section: str, number: int) -> str:
    """The game id of play-off game `number` (for the desk and the pages)."""
    state = section_state(service, section)
    game = state.playoff.get(number)
    if game is None:
        raise ActionError(f"no play-off game {number} in {state.name!r}")
    return GameKey(state.name, state.playoff_round(number), game.board).id


__all__ = [
    "DESK_REASONS",
    "FORFEIT_REASONS",
    "FORFEIT_RESULTS",
    "GAME_REASONS",
    "ActionHost",
    "ImportedByes",
    "acknowledge",
    "cancel_bye",
    "check_results_in",
    "confirm_proposal",
    "confirm_result",
    "continue_after_absence",
    "correct_line",
    "default_reason",
    "dutch_pairings",
    "following",
    "game_state",
    "how_to_pair",
    "imported_byes",
    "imported_pairings",
    "mark_present",
    "pair_playoff_game",
    "pair_unpaired",
    "playoff",
    "playoff_result_game",
    "prizes",
    "propose",
    "publish_pairings",
    "reject_proposal",
    "replace_board",
    "request_bye",
    "restore_prize",
    "round_robin_pairings",
    "section_state",
    "set_result",
    "set_start_fen",
    "standings",
    "tournament_event",
    "unfinished_games",
    "unpaired_rounds",
    "withdraw",
    "withhold_prize",
]
