"""The tournament side of the rules: byes asked (decided by the section's regulations),
withdrawals and their games, arbiter overrides, games closed by a result recorded on the
pairing, and no-shows (counted from forfeits; round-1 exclusion, a single absence that
disqualifies, the section's limit).

A family with `observe(event, ctx)` only, `ctx` the engine. The no-show rules are here,
not with presence: a no-show is counted by the tournament and what follows is a
withdrawal; presence only proposes the forfeit.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from broadcast.arbiter.decisions import ActionUndone
from broadcast.arbiter.presence import no_show_colours
from broadcast.arbiter.withdrawal import reinstatement_events, withdrawal_consequences
from broadcast.games.game_events import ResultCleared, ResultConfirmed
from broadcast.phrases import Phrase, say
from broadcast.tournament.eligibility import excluded_by_rules
from broadcast.tournament.tournament_events import (
    ByeCancelled,
    ByeGranted,
    ByeRefused,
    ByeRequested,
    ContinuationRequested,
    NoShowCancelled,
    NoShowCounted,
    PlayerReinstated,
    PlayerReplaced,
    PlayerWithdrawn,
    ResultRecorded,
    RoundPaired,
    TournamentEvent,
)

if TYPE_CHECKING:
    from broadcast.arbiter.context import Observable, RulesContext

__all__ = ["observe"]


def _close_by_pairing(ctx: RulesContext, event: ResultRecorded) -> None:
    """A result recorded on the tournament side ends the game's watch too."""
    section = ctx.tournament.sections.get(event.section)
    rnd = section.rounds.get(event.round) if section else None
    pairing = rnd.game_of(event.player) if rnd else None
    if pairing is None or pairing.black is None:
        return
    for game in ctx.book.round_games(event.section, event.round):
        if game.key.board == pairing.board:
            ctx.close(game.id)


def _bye(ctx: RulesContext, request: ByeRequested) -> list[Observable]:
    section = ctx.tournament.section(request.section)
    decision = section.decide_bye(request, ctx.start_overrides)
    out: list[Observable] = [decision]
    ctx.fold(decision)
    if isinstance(decision, ByeRefused):
        name = ctx.player_name(request.section, request.player)
        why = decision.said or decision.reason
        message = say(
            "bye for round %(round)s refused for %(name)s: %(why)s; grant it by hand if "
            "the chief arbiter allows it",
            round=request.round,
            name=name,
            why=why,
        )
        if request.source == "import":
            message = say(
                "the pairing program's TRF gives %(name)s a bye in round %(round)s against "
                "the bye policy: %(why)s. It scores nothing until the chief arbiter "
                "decides: grant it anyway (Request bye with override, or import the file "
                "again with override) or leave it refused",
                name=name,
                round=request.round,
                why=why,
            )
        out += ctx.alert(
            f"bye-refused:{request.section}:{request.round}:{request.player}:{request.at.timestamp()}",
            "bye-refused",
            request.at.timestamp(),
            message,
            section=request.section,
            round_number=request.round,
            players=(name,),
        )
    return ctx.emit(out)


def observe(event: Observable, ctx: RulesContext) -> list[Observable]:
    """Byes asked and decided, results recorded, withdrawals, overrides, no-shows."""
    match event:
        case ByeRequested():
            return _bye(ctx, event)
        case ResultRecorded():
            _close_by_pairing(ctx, event)
            return []
        case ByeGranted() if event.override:
            # The arbiter's decision answers the refusal: it leaves the desk, flagged.
            return _tournament_resolutions(ctx, event) + _override_alert(ctx, event)
        case ByeCancelled() if event.override:
            return _override_alert(ctx, event)
        case PlayerWithdrawn():
            return _withdrawn(ctx, event)
        case PlayerReinstated():
            return _reinstated(ctx, event)
        case NoShowCancelled():
            return _no_show_cancelled(ctx, event.section, event.player, event.round)
        case ActionUndone():
            return _undone(ctx)
        case ContinuationRequested():
            return _continued(ctx, event)
        case PlayerReplaced():
            return _replaced(ctx, event)
        case NoShowCounted():
            return _no_show_limit(ctx, event.section, event.player, event.round)
        case ResultConfirmed():
            return _uncount_no_shows(ctx, event) + _count_no_shows(ctx, event)
        case RoundPaired():
            return _absences_settled(ctx, event.section, event.round)
    if isinstance(event, TournamentEvent):
        return _tournament_resolutions(ctx, event)
    return []


def _tournament_resolutions(ctx: RulesContext, event: TournamentEvent) -> list[Observable]:
    if isinstance(event, PlayerWithdrawn):
        wanted = f"withdraw-from-pairing:{event.section}:{event.player}"
        among = [ctx.alerts[wanted]] if ctx.is_open(wanted) else []
        return ctx.resolve(among, lambda a: True, ctx.now, say("player withdrawn"))
    if isinstance(event, ByeGranted):
        prefix = f"bye-refused:{event.section}:{event.round}:{event.player}:"
        return ctx.resolve(
            ctx.open_about("kind", "bye-refused"),
            lambda a: a.id.startswith(prefix),
            event.at.timestamp(),
            say("bye granted"),
        )
    return []


def _withdraw(
    ctx: RulesContext, section_name: str, player: int, from_round: int, reason: str
) -> list[Observable]:
    """The rules withdraw a player: the event and its consequences for the games."""
    state = ctx.tournament.section(section_name)
    if player in state.withdrawn:
        return []
    limit = state.config.rounds + 1
    withdrawn = PlayerWithdrawn(
        section_name,
        player,
        min(from_round, limit),
        reason,
        "rules",
        ctx.now if math.isfinite(ctx.now) else None,
    )
    return ctx.emit([withdrawn, *_withdrawal_consequences(ctx, withdrawn)])


def _withdrawn(ctx: RulesContext, event: PlayerWithdrawn) -> list[Observable]:
    """A withdrawal from the desk (or our own fed back): its games follow it, and an
    absence alert that still offered a way back no longer says anything true."""
    why = f"the player is out: withdrawn from round {event.from_round}" + (
        f" ({event.reason})" if event.reason else ""
    )
    closed = _close_absences(ctx, event.section, event.player, why)
    if event.by == "rules":
        return closed  # ours: its alert tells the arbiter; the consequences went with it
    # The arbiter's withdrawal answers the alert that asked for it.
    closed += _tournament_resolutions(ctx, event)
    return closed + ctx.emit(_withdrawal_consequences(ctx, event, fold_first=False))


def _replaced(ctx: RulesContext, event: PlayerReplaced) -> list[Observable]:
    """Another participant takes the player's place: the alerts that asked what becomes
    of the player (an absence, the no-show limit) are answered."""
    why = f"{event.original.name} replaced by {event.newcomer.name} from round {event.from_round}"
    closed = _close_absences(ctx, event.section, event.player, why)
    wanted = f"withdraw-from-pairing:{event.section}:{event.player}"
    among = [ctx.alerts[wanted]] if ctx.is_open(wanted) else []
    t = ctx.now if math.isfinite(ctx.now) else 0.0
    return closed + ctx.resolve(among, lambda a: True, t, why)


def _continued(ctx: RulesContext, event: ContinuationRequested) -> list[Observable]:
    """The player's request to continue is the answer the absence alert waited for."""
    why = (
        say(
            "the player asked in writing to continue after round %(round)s (recorded by %(by)s)",
            round=event.round,
            by=event.by,
        )
        if event.by
        else say("the player asked in writing to continue after round %(round)s", round=event.round)
    )
    return _close_absences(ctx, event.section, event.player, why, round_number=event.round)


def _close_absences(
    ctx: RulesContext,
    section: str,
    player: int,
    why: str | Phrase,
    *,
    round_number: int | None = None,
) -> list[Observable]:
    """Resolve the player's open `absence-disqualifies` alerts (of one round, or all)."""
    prefix = f"absence-disqualifies:{section}:{player}:"
    wanted = f"{prefix}{round_number}" if round_number is not None else None
    t = ctx.now if math.isfinite(ctx.now) else 0.0
    return ctx.resolve(
        ctx.open_about("kind", "absence-disqualifies"),
        lambda a: a.id == wanted if wanted is not None else a.id.startswith(prefix),
        t,
        why,
    )


def _settled_absence(name: str, absent: int) -> Phrase:
    """An absence the player did not ask to continue after, the next round paired."""
    return say(
        "%(name)s was absent in round %(round)s and round %(next)s was paired without a "
        "written request to continue: disqualified (no longer paired)",
        name=name,
        round=absent,
        next=absent + 1,
    )


def _absences_settled(ctx: RulesContext, section: str, round_number: int) -> list[Observable]:
    """Round `round_number` is paired: an `absence-disqualifies` alert of the round before
    still offers a request to continue "before round N is paired", which is now refused.
    It closes, saying the player is disqualified (undoing the pairing reopens it)."""
    t = ctx.now if math.isfinite(ctx.now) else 0.0
    out: list[Observable] = []
    for alert in ctx.open_about("kind", "absence-disqualifies"):
        if alert.section != section or alert.round != round_number - 1:
            continue
        name = alert.players[0] if alert.players else ""
        why = _settled_absence(name, alert.round)
        out += ctx.resolve([alert], lambda a: True, t, why)
    return out


def _withdrawal_consequences(
    ctx: RulesContext, withdrawn: PlayerWithdrawn, *, fold_first: bool = True
) -> list[Observable]:
    if fold_first:
        ctx.fold(withdrawn)
    section = ctx.tournament.section(withdrawn.section)
    out: list[Observable] = []
    t = withdrawn.t if withdrawn.t is not None else ctx.now
    t = t if math.isfinite(t) else 0.0  # no time known yet: nothing better to stamp
    for event in withdrawal_consequences(section, ctx.book, withdrawn, t):
        ctx.fold(event)
        if isinstance(event, ResultConfirmed):
            ctx.close(event.game)
        out.append(event)
    return out


def _reinstated(ctx: RulesContext, event: PlayerReinstated) -> list[Observable]:
    """A reinstatement takes back what the withdrawal did to the games still as it left
    them (a forfeit without moves, a game taken off the pairings)."""
    section = ctx.tournament.section(event.section)
    t = event.t if event.t is not None else ctx.now
    t = t if math.isfinite(t) else 0.0
    out: list[Observable] = []
    for taken_back in reinstatement_events(section, ctx.book, event, t):
        ctx.fold(taken_back)
        if isinstance(taken_back, ResultCleared):
            ctx.reopen(taken_back.game)
        out.append(taken_back)
    return ctx.emit(out)


def _reinstate_if_cause_gone(
    ctx: RulesContext, section_name: str, player: int, why: str
) -> list[Observable]:
    """The rules withdrew the player for no-shows that no longer put them out (a forfeit
    corrected, or undone): they are in the event again, with their games."""
    section = ctx.tournament.section(section_name)
    if excluded_by_rules(section, player):
        return []
    t = ctx.now if math.isfinite(ctx.now) else 0.0
    out: list[Observable] = []
    wanted = f"withdraw-from-pairing:{section_name}:{player}"
    if ctx.is_open(wanted):
        out += ctx.resolve([ctx.alerts[wanted]], lambda a: True, t, why)
    if player not in section.withdrawn or section.withdrawn_by.get(player) != "rules":
        return out
    reinstated = PlayerReinstated(section_name, player, why, "rules", section.withdrawn[player], t)
    ctx.fold(reinstated)
    return out + ctx.emit([reinstated]) + _reinstated(ctx, reinstated)


def _no_show_cancelled(
    ctx: RulesContext, section_name: str, player: int, round_number: int
) -> list[Observable]:
    """A no-show that counts nothing any more: what it led to goes with it."""
    ctx.counted.discard((section_name, round_number, player))
    why = f"the forfeit of round {round_number} no longer stands"
    out = _close_absences(ctx, section_name, player, why, round_number=round_number)
    return out + _reinstate_if_cause_gone(ctx, section_name, player, why)


def _undone(ctx: RulesContext) -> list[Observable]:
    """After an action was undone: the no-shows it counted count nothing, and a player
    the rules withdrew for no-shows that no longer stand is in the event again."""
    ctx.counted.intersection_update(
        {
            (name, r, p)
            for name, section in ctx.tournament.sections.items()
            for p, rounds in section.no_shows.items()
            for r in rounds
        }
    )
    out: list[Observable] = []
    for name, section in ctx.tournament.sections.items():
        for player, by in sorted(section.withdrawn_by.items()):
            if by == "rules" and not excluded_by_rules(section, player):
                why = "the no-shows that withdrew them no longer stand (an action was undone)"
                out += _reinstate_if_cause_gone(ctx, name, player, why)
    return out


def _uncount_no_shows(ctx: RulesContext, event: ResultConfirmed) -> list[Observable]:
    """A forfeit corrected to another result: the no-shows it counted count nothing."""
    before = ctx.before.games.get(event.game)
    if before is None or before.result is None or before.result_reason == "withdrawal":
        return []
    missed = set(no_show_colours(before.result))
    if not missed:
        return []
    still = set() if event.reason == "withdrawal" else set(no_show_colours(event.result))
    game = ctx.book.get(event.game)
    section = ctx.tournament.section(game.key.section)
    rnd = section.rounds.get(game.key.round)
    pairing = next((p for p in rnd.pairings if p.board == game.key.board), None) if rnd else None
    if pairing is None or pairing.black is None:
        return []
    out: list[Observable] = []
    for colour in sorted(missed - still):
        player = pairing.white if colour == "white" else pairing.black
        if game.key.round not in section.no_shows.get(player, ()):
            continue
        why = (
            f"the forfeit {before.result} of round {game.key.round} was corrected to "
            f"{event.result} by {event.by}"
        )
        cancelled = NoShowCancelled(game.key.section, game.key.round, player, why)
        ctx.fold(cancelled)
        out += ctx.emit([cancelled])
        out += _no_show_cancelled(ctx, game.key.section, player, game.key.round)
        section = ctx.tournament.section(game.key.section)
    return out


def _override_alert(ctx: RulesContext, event: ByeGranted | ByeCancelled) -> list[Observable]:
    name = ctx.player_name(event.section, event.player)
    what = "granted" if isinstance(event, ByeGranted) else "cancelled"
    text = (
        say(
            "bye for round %(round)s granted for %(name)s by %(by)s against the regulations "
            "(%(override)s)",
            round=event.round,
            name=name,
            by=event.by,
            override=event.override,
        )
        if what == "granted"
        else say(
            "bye for round %(round)s cancelled for %(name)s by %(by)s against the "
            "regulations (%(override)s)",
            round=event.round,
            name=name,
            by=event.by,
            override=event.override,
        )
    )
    return ctx.alert(
        f"arbiter-override:{event.section}:{event.round}:{event.player}:{what}:{event.at.timestamp()}",
        "arbiter-override",
        event.at.timestamp(),
        text,
        section=event.section,
        round_number=event.round,
        players=(name,),
    )


def _no_show_limit(
    ctx: RulesContext, section_name: str, player: int, round_number: int
) -> list[Observable]:
    section = ctx.tournament.section(section_name)
    limit = section.config.no_show_limit
    rounds = section.no_shows.get(player, ())
    if limit is None or len(rounds) < limit:
        return []
    name = ctx.player_name(section_name, player)
    listed = ", ".join(str(r) for r in rounds)
    eliminate = section.config.no_shows.on_limit == "withdraw"
    what = (
        say("eliminated (regulations); their remaining games follow [section.withdrawal]")
        if eliminate
        else say("withdraw them from the pairing (PlayerWithdrawn) unless you decide otherwise")
    )
    out = ctx.alert(
        f"withdraw-from-pairing:{section_name}:{player}",
        "withdraw-from-pairing",
        ctx.now,
        say(
            "%(name)s has %(count)s no-shows (rounds %(rounds)s), the section's limit is "
            "%(limit)s: %(what)s",
            name=name,
            count=len(rounds),
            rounds=listed,
            limit=limit,
            what=what,
        ),
        section=section_name,
        round_number=round_number,
        players=(name,),
    )
    if eliminate:
        out += _withdraw(ctx, section_name, player, round_number + 1, f"{len(rounds)} no-shows")
    return out


def _after_no_show(
    ctx: RulesContext, section_name: str, player: int, round_number: int
) -> list[Observable]:
    """The section's no-show rules: round-1 exclusion, single absence, the limit."""
    config = ctx.section(section_name)
    rules = config.no_shows
    name = ctx.player_name(section_name, player)
    if round_number == 1 and rules.first_round == "exclude":
        out = ctx.alert(
            f"withdraw-from-pairing:{section_name}:{player}",
            "withdraw-from-pairing",
            ctx.now,
            say(
                "%(name)s did not show up in round 1: excluded from the event (regulations); "
                "they are no longer paired",
                name=name,
            ),
            section=section_name,
            round_number=1,
            players=(name,),
        )
        return out + _withdraw(ctx, section_name, player, 2, "absent in round 1")
    out = _no_show_limit(ctx, section_name, player, round_number)
    if out or rules.single_absence != "disqualify-unless-continue":
        return out
    if round_number + 1 in ctx.tournament.section(section_name).rounds:
        # A forfeit entered once the next round is paired: no way back is left to offer.
        return ctx.alert(
            f"absence-disqualifies:{section_name}:{player}:{round_number}",
            "absence-disqualifies",
            ctx.now,
            _settled_absence(name, round_number),
            section=section_name,
            round_number=round_number,
            players=(name,),
        )
    return ctx.alert(
        f"absence-disqualifies:{section_name}:{player}:{round_number}",
        "absence-disqualifies",
        ctx.now,
        say(
            "%(name)s was absent in round %(round)s: disqualified unless they ask in writing "
            "to continue before round %(next)s is paired (record it with 'continue'); until "
            "then they are not paired",
            name=name,
            round=round_number,
            next=round_number + 1,
        ),
        section=section_name,
        round_number=round_number,
        players=(name,),
    )


def _count_no_shows(ctx: RulesContext, event: ResultConfirmed) -> list[Observable]:
    """A forfeit for a missed game counts a no-show for the player(s) who missed it."""
    out: list[Observable] = []
    game = ctx.book.get(event.game)
    if event.reason == "withdrawal" or not no_show_colours(event.result):
        return out  # only a missed game counts, whoever entered it (board, desk, rules)
    section = ctx.tournament.section(game.key.section)
    if game.key.round > section.config.rounds:
        return out  # a play-off game
    rnd = section.rounds.get(game.key.round)
    pairing = next((p for p in rnd.pairings if p.board == game.key.board), None) if rnd else None
    if pairing is None or pairing.black is None:
        return out
    for colour in no_show_colours(event.result):
        player = pairing.white if colour == "white" else pairing.black
        marker = (game.key.section, game.key.round, player)
        if marker in ctx.counted or game.key.round in section.no_shows.get(player, ()):
            continue
        ctx.counted.add(marker)
        counted = NoShowCounted(game.key.section, game.key.round, player)
        ctx.fold(counted)
        out += ctx.emit([counted])
        out += _after_no_show(ctx, game.key.section, player, game.key.round)
    return out
