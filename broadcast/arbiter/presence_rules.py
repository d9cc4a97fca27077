"""Presence: players late at the board, the default time, the zero-default check, the
hall walk at tables without an e-board, and what a no-show leads to (round-1 exclusion, a
single absence, the section's limit).

Same shape as every rule family: `observe(event, ctx)` and `tick(now, ctx)`, `ctx` the
engine. The pure pieces (marks, deadlines, forfeit results) are in `presence.py`.

Who says a player is there: the e-board (a move, a clock press), the player's check-in at
the table, the arbiter's mark (present or absent). A table with an e-board, or any table
where the event requires check-in, is judged at the default time as always: whoever was
not seen by then loses by forfeit (proposed). A table without one, where check-in is off
or optional, has nobody to see its players: at the default time one alert per section
and round lists those tables ("check tables 23, 31, 40"); it follows the marks as they
come and closes when every table on it is marked. A forfeit is proposed there only on the
arbiter's word (a player marked absent), once both players of the table are known.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import TYPE_CHECKING, Protocol

from broadcast.arbiter import result_rules
from broadcast.arbiter.alerts import (
    AbsenceUnmarked,
    Alert,
    AlertUpdated,
    PlayerMarkedAbsent,
    PlayerMarkedPresent,
    PresenceUnmarked,
)
from broadcast.arbiter.memory import Watch
from broadcast.arbiter.presence import (
    GamePresence,
    How,
    Presence,
    absent_colours,
    deadline,
    default_time_passed,
    forfeit_moment,
    forfeit_result,
    marked_absent,
    player_presence,
    pressed_by,
    unknown_colours,
    warning_marks,
)
from broadcast.config.model import EventConfig, SectionConfig
from broadcast.config.tables import table_of
from broadcast.games.book import hall_board_for
from broadcast.games.game_events import Colour, GameClock, GameMove
from broadcast.games.game_state import GameState
from broadcast.phrases import Phrase, Value, and_list, colour_word, english, say

if TYPE_CHECKING:
    from broadcast.arbiter.context import Observable, RulesContext

__all__ = ["game_presence", "observe", "tick", "unchecked_tables", "walked", "wired"]

PRESENCE_KINDS: frozenset[str] = frozenset({"late", "check-presence"})
COLOURS: tuple[Colour, Colour] = ("white", "black")


def observe(event: Observable, ctx: RulesContext) -> list[Observable]:
    """Players seen at the board (a move, a press, a check-in, the arbiter's word) or
    marked absent; the hall walk's list follows."""
    match event:
        case PlayerMarkedPresent():
            how: How = "check-in" if event.how == "check-in" else "arbiter"
            return _mark_present(ctx, event.game, event.colour, event.t, how, event.by)
        case PlayerMarkedAbsent():
            return _mark_absent(ctx, event)
        case PresenceUnmarked():
            _unmark(ctx, event)
            return _after_marks(ctx, event.game)
        case AbsenceUnmarked():
            _unmark_absence(ctx, event)
            return _after_marks(ctx, event.game)
        case GameMove() if ctx.watched(event.game):
            colour: Colour = "white" if event.ply % 2 == 1 else "black"
            return _mark_present(ctx, event.game, colour, event.t, "board", "")
        case GameClock() if ctx.watched(event.game):
            pressed = pressed_by(ctx.before.get(event.game).running, event.running)
            if pressed is not None:
                return _mark_present(ctx, event.game, pressed, event.t, "board", "")
            return []
    # A result at a walked table takes it off the list (a game over needs no check).
    game_id = getattr(event, "game", None)
    if isinstance(game_id, str) and game_id in ctx.book.games:
        return _after_marks(ctx, game_id)
    return []


def tick(now: float, ctx: RulesContext) -> list[Observable]:
    """Warnings before the default time, the default time itself, the zero-default check,
    and the hall walk's alert."""
    out: list[Observable] = []
    rounds: set[tuple[str, int]] = set()
    for game in ctx.playing:
        if walked(ctx.event, game):
            rounds.add((game.key.section, game.key.round))
            continue
        out += _presence_rules(ctx, game, now)
        ctx.wake(_presence_due(ctx, game))
    for section, round_number in sorted(rounds):
        out += _hall_check(ctx, section, round_number, now)
    return out


# -- which tables the boards see --------------------------------------------------------------


def wired(event: EventConfig, game: GameState) -> bool:
    """An e-board stands at the game's table (or carries the game): it sees who plays."""
    return (
        game.board is not None
        or game.hall_board is not None
        or hall_board_for(event, game.key) is not None
    )


def walked(event: EventConfig, game: GameState) -> bool:
    """A table whose presence only the arbiter's walk (or an optional check-in) tells: no
    e-board, and the section does not require check-in."""
    return event.check_in_of(game.key.section) != "required" and not wired(event, game)


class PresenceSource(Protocol):
    """What `game_presence` reads of the rules (`ArbiterRules` is one; a protocol keeps
    the engine, which imports this module, out of its imports)."""

    event: EventConfig
    now: float

    def presence_of(self, game_id: str) -> Presence | None: ...
    def section(self, name: str) -> SectionConfig: ...
    def round_start(self, config: SectionConfig, round_number: int) -> float | None: ...


def game_presence(rules: PresenceSource, game: GameState) -> GamePresence:
    """Each player's presence at `game`'s table as the rules know it now: present, absent
    or unknown, and how it is known (board, check-in, arbiter). For the hall view."""
    presence = rules.presence_of(game.id) or Presence()
    config = rules.section(game.key.section)
    start = rules.round_start(config, game.key.round)
    due = deadline(start, config.default_time_minutes) if start is not None else None
    is_wired = wired(rules.event, game)
    absent_unseen = not walked(rules.event, game)
    white, black = (
        player_presence(presence, c, now=rules.now, due=due, absent_unseen=absent_unseen)
        for c in COLOURS
    )
    return GamePresence(white, black, is_wired)


def unchecked_tables(ctx: RulesContext, section: str, round_number: int) -> list[int]:
    """The walked tables of the round still being played whose players are not both known
    (no check-in by the default time, no mark of the arbiter), in table order."""
    config = ctx.section(section)
    start = ctx.round_start(config, round_number)
    if start is None:
        return []
    due = deadline(start, config.default_time_minutes)
    return [
        table_of(ctx.event, section, g.key.board) for g in _open_at(ctx, section, round_number, due)
    ]


def _open_at(ctx: RulesContext, section: str, round_number: int, due: float) -> list[GameState]:
    games = [
        g
        for g in ctx.book.games.values()
        if g.key.section == section
        and g.key.round == round_number
        and ctx.watched(g.id) is not None
        and walked(ctx.event, g)
        and unknown_colours(ctx.watches[g.id].presence, due)
    ]
    return sorted(games, key=lambda g: g.key.board)


# -- marks -------------------------------------------------------------------------------------


def _mark_present(
    ctx: RulesContext, game_id: str, colour: Colour, t: float, how: How, by: str
) -> list[Observable]:
    """`colour` is at the board from `t`: late warnings about nobody still missing close,
    the others say who is missing now; the zero-default check closes on the arbiter's word
    only (a late player's first move is what it is about)."""
    watch = ctx.watches.get(game_id)
    game = ctx.book.games.get(game_id)
    if watch is None or game is None:
        return []
    out: list[Observable] = []
    if watch.presence.of(colour) is None:
        watch.presence = watch.presence.seen(colour, t, how)
        ctx.rescan()
    elif how != "arbiter":
        return []  # seen already: nothing new
    missing = {ctx.name_of(game, c) for c in absent_colours(watch.presence, math.inf)}
    alerts = ctx.open_about("game", game_id)
    out += ctx.resolve(
        alerts,
        lambda a: a.kind == "late" and not missing.intersection(a.players),
        t,
        say("the players are at the board"),
    )
    for alert in ctx.open_about("game", game_id):
        if alert.kind == "late":
            out += _late_update(ctx, game, alert, watch.presence, t)
        elif alert.kind == "check-presence":
            out += _check_update(ctx, game, alert, colour, t, how, by)
    return out + _after_marks(ctx, game_id)


def _mark_absent(ctx: RulesContext, event: PlayerMarkedAbsent) -> list[Observable]:
    watch = ctx.watches.get(event.game)
    game = ctx.book.games.get(event.game)
    if watch is None or game is None or watch.presence.how(event.colour) == "board":
        return []
    watch.presence = watch.presence.absent(event.colour, event.t)
    ctx.rescan()
    if walked(ctx.event, game):
        return _after_marks(ctx, event.game)
    # A table the board sees: the default-time rules judge the mark (at once when the
    # default time has passed; with a zero default, the arbiter's word is the decision).
    return _presence_rules(ctx, game, max(ctx.now, event.t))


def _unmark(ctx: RulesContext, event: PresenceUnmarked) -> None:
    """A mark is taken back: the colour counts as not seen, unless the board has seen
    them since the mark (a move, a press) or before it."""
    watch = ctx.watches.get(event.game)
    if watch is None or watch.presence.of(event.colour) != event.since:
        return
    game = ctx.book.games.get(event.game)
    # Seen at the board after the mark (a move of theirs): present from then, as they
    # would have been without it. Strictly after: a move the arbiter entered carries the
    # time of the move before it, and was never the board seeing the player.
    parity = 0 if event.colour == "white" else 1
    moved = next(
        (
            m.t
            for i, m in enumerate(game.moves if game is not None else ())
            if i % 2 == parity and m.t > event.since
        ),
        None,
    )
    presence = watch.presence.unseen(event.colour)
    watch.presence = presence if moved is None else presence.seen(event.colour, moved, "board")
    ctx.rescan()


def _unmark_absence(ctx: RulesContext, event: AbsenceUnmarked) -> None:
    watch = ctx.watches.get(event.game)
    if watch is None or watch.presence.absent_since(event.colour) != event.since:
        return
    watch.presence = watch.presence.absent(event.colour, None)
    game = ctx.book.games.get(event.game)
    if game is not None and game.proposal is None:
        # The forfeit the mark led to went with its undoing: the same may be proposed again.
        watch.proposed = {k for k in watch.proposed if k[0] != "default-time"}
    ctx.rescan()


def _after_marks(ctx: RulesContext, game_id: str) -> list[Observable]:
    """The hall walk's alert of the game's round follows what is known of its tables."""
    game = ctx.book.games.get(game_id)
    if game is None or wired(ctx.event, game):
        return []
    return _hall_check(ctx, game.key.section, game.key.round, ctx.now)


# -- tables the boards see: warnings, the default time, the zero-default check ---------------


def _presence_due(ctx: RulesContext, game: GameState) -> float:
    watch = ctx.watches.get(game.id)
    config = ctx.section(game.key.section)
    start = ctx.round_start(config, game.key.round)
    if watch is None or start is None:
        return math.inf
    due = deadline(start, config.default_time_minutes)
    if watch.presence.white is not None and watch.presence.black is not None:
        return math.inf
    if config.default_time_minutes == 0:
        check = start + ctx.config.zero_default_check_after
        # A player marked absent before the start loses once the start has passed.
        first = [forfeit_moment(start)] if marked_absent(watch.presence) else []
        return next((m for m in [*first, check] if m > ctx.now), math.inf)
    for mark in [*warning_marks(start, due, ctx.config.warn_before), forfeit_moment(due)]:
        if mark > ctx.now:
            return mark
    return math.inf


def _late_message(
    ctx: RulesContext, game: GameState, absent: Iterable[Colour], left: int
) -> Phrase:
    config = ctx.section(game.key.section)
    return say(
        "%(who)s not at the board; default time in %(min)s min %(s)s s (at "
        "%(default)s min); mark them present if they are there",
        who=_who(ctx, game, absent),
        min=left // 60,
        s=format(left % 60, "02d"),
        default=config.default_time_minutes,
    )


def _presence_rules(ctx: RulesContext, game: GameState, now: float) -> list[Observable]:
    watch = ctx.watches.get(game.id)
    config = ctx.section(game.key.section)
    start = ctx.round_start(config, game.key.round)
    if watch is None or start is None or now < start:
        return []
    due = deadline(start, config.default_time_minutes)
    out: list[Observable] = []
    if config.default_time_minutes == 0:
        return _zero_default_check(ctx, game, watch, start, now)
    for mark in warning_marks(start, due, ctx.config.warn_before):
        if mark > now:
            break
        absent = absent_colours(watch.presence, mark)
        if not absent:
            continue
        left = int(due - mark)
        alert_id = f"late:{game.id}:{left}"
        raised = ctx.alert(
            alert_id,
            "late",
            mark,
            _late_message(ctx, game, absent, left),
            game=game,
            players=tuple(ctx.name_of(game, c) for c in absent),
        )
        if raised:
            # A newer warning on the same matter replaces the older ones.
            out += _close_late(
                ctx, game, mark, say("replaced by %(alert)s", alert=alert_id), keep=alert_id
            )
        out += raised
    if default_time_passed(now, due):  # at the default time itself a player is in time
        absent = absent_colours(watch.presence, due)
        result = forfeit_result(absent)
        if result is not None:
            # An absence the arbiter marked after the default time is proposed when marked.
            passed = forfeit_moment(due)
            at = max([passed, *(watch.presence.absent_since(c) or passed for c in absent)])
            who = " and ".join(f"{c} ({ctx.name_of(game, c)})" for c in absent)
            proposed = result_rules.propose(
                ctx,
                game,
                result,
                "default-time",
                at,
                f"{who} absent at the default time ({config.default_time_minutes} min)",
            )
            if proposed:
                # The warnings are overtaken: the forfeit's own alert is the matter now.
                why = say("the default time passed: forfeit %(result)s proposed", result=result)
                out += _close_late(ctx, game, at, why)
            out += proposed
    return out


def _late_update(
    ctx: RulesContext, game: GameState, alert: Alert, presence: Presence, t: float
) -> list[Observable]:
    """A late warning names only who is still missing, and says who came."""
    names = {c: ctx.name_of(game, c) for c in COLOURS}
    named = [c for c in COLOURS if names[c] in alert.players]
    still = [c for c in named if presence.of(c) is None]
    came = [c for c in named if presence.of(c) is not None]
    if not came or not still:
        return []
    left = int(alert.id.rsplit(":", 1)[-1]) if alert.id.rsplit(":", 1)[-1].isdigit() else 0
    message = say(
        "%(late)s; %(came)s is at the board now (%(how)s)",
        late=_late_message(ctx, game, still, left),
        came=_who(ctx, game, came),
        how=_how_word(presence.how(came[0])),
    )
    update = AlertUpdated(alert.id, t, english(message), tuple(names[c] for c in still), message)
    return ctx.update_alert(update)


def _close_late(
    ctx: RulesContext, game: GameState, t: float, why: str | Phrase, *, keep: str = ""
) -> list[Observable]:
    """Close the game's open `late` warnings but `keep`, saying why."""
    return ctx.resolve(
        ctx.open_about("game", game.id), lambda a: a.kind == "late" and a.id != keep, t, why
    )


def _check_message(ctx: RulesContext, game: GameState, absent: Iterable[Colour]) -> Phrase:
    return say(
        "no sign of %(who)s %(minutes)s min after the start; the default time is 0, so a "
        "player who was not at the board at the start loses: mark them present, or "
        "record the forfeit",
        who=_who(ctx, game, absent),
        minutes=ctx.config.zero_default_check_after // 60,
    )


def _zero_default_check(
    ctx: RulesContext, game: GameState, watch: Watch, start: float, now: float
) -> list[Observable]:
    out: list[Observable] = []
    marked = marked_absent(watch.presence)
    if marked:
        if not default_time_passed(now, start):
            return []  # at the start itself a player is in time (Laws 6.7.1)
        # The arbiter's decision: whoever they marked absent loses (proposed).
        result = forfeit_result(marked)
        passed = forfeit_moment(start)
        at = max([passed, *(watch.presence.absent_since(c) or passed for c in marked)])
        who = " and ".join(f"{c} ({ctx.name_of(game, c)})" for c in marked)
        if result is not None:
            proposed = result_rules.propose(
                ctx, game, result, "default-time", at, f"{who} marked absent (default time 0)"
            )
            if proposed:
                out += ctx.resolve(
                    ctx.open_about("game", game.id),
                    lambda a: a.kind == "check-presence",
                    at,
                    say(
                        "%(who)s marked absent: forfeit %(result)s proposed",
                        who=_who(ctx, game, marked),
                        result=result,
                    ),
                )
            out += proposed
        return out
    check = start + ctx.config.zero_default_check_after
    if now < check:
        return []
    absent = absent_colours(watch.presence, check)
    if not absent:
        return []
    return ctx.alert(
        f"check-presence:{game.id}",
        "check-presence",
        check,
        _check_message(ctx, game, absent),
        game=game,
        players=tuple(ctx.name_of(game, c) for c in absent),
    )


def _check_update(
    ctx: RulesContext,
    game: GameState,
    alert: Alert,
    colour: Colour,
    t: float,
    how: How,
    by: str,
) -> list[Observable]:
    """The zero-default check stays open when a player it names turns up late (that is
    the forfeit case): it says when they came. The arbiter's mark answers for one player:
    the alert then names the others, and closes once it names nobody."""
    name = ctx.name_of(game, colour)
    if name not in alert.players:
        return []
    named = [c for c in COLOURS if ctx.name_of(game, c) in alert.players]
    if how == "arbiter":
        named = [c for c in named if c != colour]
        if not named:
            why = say("%(who)s marked present by %(by)s", who=_who(ctx, game, [colour]), by=by)
            return ctx.resolve([alert], lambda a: True, t, why)
    message = _check_text(ctx, game, named)
    players = tuple(ctx.name_of(game, c) for c in named)
    return ctx.update_alert(AlertUpdated(alert.id, t, english(message), players, message))


def _check_text(ctx: RulesContext, game: GameState, named: list[Colour]) -> Phrase:
    """The zero-default check about `named`, with when each of them was first seen."""
    watch = ctx.watches.get(game.id)
    config = ctx.section(game.key.section)
    start = ctx.round_start(config, game.key.round) or 0.0
    message = _check_message(ctx, game, named)
    for c in named:
        seen = watch.presence.of(c) if watch is not None else None
        if seen is None:
            continue
        message = say(
            "%(check)s; %(who)s first seen %(minutes)s min after the start (%(how)s): mark "
            "them present if they were at the board at the start, or record the forfeit",
            check=message,
            who=_who(ctx, game, [c]),
            minutes=int(max(0.0, seen - start) // 60),
            how=_how_word(watch.presence.how(c) if watch is not None else ""),
        )
    return message


# -- tables no board sees: the hall walk ------------------------------------------------------


def _hall_check(ctx: RulesContext, section: str, round_number: int, now: float) -> list[Observable]:
    """At the default time (with a zero one, some minutes after the start): one alert
    listing the walked tables nobody has said who is at; it follows the marks and closes
    once every table is known. A table known with a player marked absent: the forfeit."""
    config = ctx.section(section)
    start = ctx.round_start(config, round_number)
    if start is None:
        return []
    due = deadline(start, config.default_time_minutes)
    moment = due if config.default_time_minutes else start + ctx.config.zero_default_check_after
    if now < moment:
        ctx.wake(moment)
        return []
    # The alert asks for the walk at the default time; a forfeit waits until it has passed.
    decided = max(moment, forfeit_moment(due))
    out: list[Observable] = []
    if default_time_passed(now, due):
        out += _hall_forfeits(ctx, section, round_number, due, decided)
    else:
        ctx.wake(decided)
    tables = unchecked_tables(ctx, section, round_number)
    out += _tables_alert(ctx, section, round_number, tables, moment, now)
    return out


def _hall_forfeits(
    ctx: RulesContext, section: str, round_number: int, due: float, at_least: float
) -> list[Observable]:
    """The forfeits of the walked tables whose players are both known, one of them (or
    both) marked absent: proposed at `at_least` or at the mark, whichever is later."""
    out: list[Observable] = []
    for game in ctx.book.games.values():
        if game.key.section != section or game.key.round != round_number:
            continue
        watch = ctx.watches.get(game.id)
        if watch is None or ctx.watched(game.id) is None or not walked(ctx.event, game):
            continue
        if unknown_colours(watch.presence, due):
            continue
        absent = marked_absent(watch.presence)
        result = forfeit_result(absent)
        if result is None:
            continue
        at = max([at_least, *(watch.presence.absent_since(c) or at_least for c in absent)])
        who = " and ".join(f"{c} ({ctx.name_of(game, c)})" for c in absent)
        out += result_rules.propose(
            ctx, game, result, "default-time", at, f"{who} marked absent at the default time"
        )
    return out


def _tables_alert(
    ctx: RulesContext,
    section: str,
    round_number: int,
    tables: list[int],
    moment: float,
    now: float,
) -> list[Observable]:
    base = f"check-tables:{section}:{round_number}"
    episodes = [base, *(f"{base}:{n}" for n in range(2, 100))]
    # The alert of the latest episode: a list emptied and then refilled (a mark undone
    # after the alert closed) is a new alert, unless the arbiter had acknowledged it.
    current = next((i for i in reversed(episodes) if i in ctx.alerts), None)
    message = _tables_message(ctx, section, tables)
    if current is not None and ctx.is_open(current):
        if not tables:
            return ctx.resolve(
                [ctx.alerts[current]],
                lambda a: True,
                max(now, moment),
                say("every table is marked"),
            )
        update = AlertUpdated(current, max(now, moment), english(message), (), message)
        return ctx.update_alert(update)
    if not tables:
        return []
    if current is not None:
        if current in ctx.acknowledged:
            return []
        following = episodes.index(current) + 1
        if following >= len(episodes):
            return []
        current = episodes[following]
    else:
        current = base
    at = moment if current == base else max(now, moment)
    return ctx.alert(
        current, "check-tables", at, message, section=section, round_number=round_number,
        players=(),
    )  # fmt: skip


def _tables_message(ctx: RulesContext, section: str, tables: list[int]) -> Phrase:
    config = ctx.section(section)
    listed = ", ".join(str(t) for t in tables)
    if config.default_time_minutes == 0:
        return say(
            "check tables %(tables)s: no e-board and no check-in says who was at the board "
            "at the start (the default time is 0); mark each player present or absent",
            tables=listed,
        )
    return say(
        "check tables %(tables)s: no e-board and no check-in says who is at the board at "
        "the default time (%(minutes)s min); mark each player present or absent",
        tables=listed,
        minutes=config.default_time_minutes,
    )


def _how_word(how: str) -> Phrase:
    if how == "board":
        return say("seen on the board")
    if how == "check-in":
        return say("checked in")
    return say("marked by the arbiter")


def _who(ctx: RulesContext, game: GameState, absent: Iterable[Colour]) -> Value:
    """ "white (Agirre, Jon) and black (Goikoetxea, Asier)", in the desk's language."""
    return and_list(
        [
            say("%(colour)s (%(name)s)", colour=colour_word(c), name=ctx.name_of(game, c))
            for c in absent
        ]
    )
