"""What an action changed in the tournament, part by part, and how to put it back.

An arbiter's action is undone by a counter-action that puts back, part by part, what the
action changed: the journal keeps both. `tournament_changes(before, after)` lists the
parts two states differ in, each with its value before and after; `put_back` sets each
part to its value before, once it has checked that the part still holds what the action
left (`holds`). A part is small enough that unrelated decisions taken since do not stand
in the way: one player's withdrawal, one round's pairings, one game's result, one
no-show of one player.

The parts, by the shape of the section's fields:

- `SectionEntry`: one key of a keyed record (a player's entry, withdrawal, prize
  withheld, play-off game...), absent or present with its value;
- `SectionMember`: one round in a player's set of rounds (byes granted, no-shows,
  continuations);
- `SectionLog`: the entries an action appended to a log (bye requests and decisions,
  late entries, replacements), or took out of it (an undo); putting back takes them out
  (puts them in) again;
- `RoundPairing`: a round's pairings and their source, or no such round;
- `RoundEntry`: one game result or one bye code of a round;
- `TeamPart`: a team section's round matches (with who paired them), or one team's
  lineup for a round (`team_rounds`).

A value absent is `()`, present `(value,)`: the journal's codec stores both as they are.
Pure; every field of `SectionState` is in one of these shapes (a test says so), so a state
put back is the state before, field for field.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from broadcast.tournament.section import RoundState, StateError
from broadcast.tournament.tournament_state import SectionState, TournamentState

__all__ = [
    "KEYED",
    "LOGS",
    "MEMBERS",
    "RoundEntry",
    "RoundPairing",
    "SectionEntry",
    "SectionLog",
    "SectionMember",
    "TeamPart",
    "TournamentChange",
    "describe_part",
    "holds",
    "inconsistency",
    "put_back_tournament",
    "tournament_changes",
    "uncovered_fields",
]

KEYED = (
    "players",
    "withdrawn",
    "withdraw_reasons",
    "withdrawn_by",
    "playoff",
    "prizes_withheld",
    "prizes_restored",
    "joined",
    "missed_points",
)
"""Keyed records of a section: one part per key."""

MEMBERS = ("granted_byes", "no_shows", "continuations")
"""Per player, a set of rounds (no-shows as a sorted tuple): one part per round."""

LOGS = ("bye_log", "late_entries", "replacements")
"""Append-only logs: an action's part is what it appended."""

_FIXED = ("config",)
_ROUNDS = ("rounds",)
_TEAMS = ("team_rounds",)

Opt = tuple[Any, ...]
"""A value that may be absent: `()`, or `(value,)`."""


@dataclass(frozen=True, slots=True)
class SectionEntry:
    """One key of a section's keyed record (`field` one of `KEYED`)."""

    section: str
    field: str
    key: int
    before: Opt
    after: Opt


@dataclass(frozen=True, slots=True)
class SectionMember:
    """Round `member` in player `key`'s set `field` (one of `MEMBERS`)."""

    section: str
    field: str
    key: int
    member: int
    before: bool
    after: bool


@dataclass(frozen=True, slots=True)
class SectionLog:
    """Log `field` (one of `LOGS`) had `before` at position `at`, and has `after` there
    (an action appends: `before` empty; an undo takes out: `after` empty)."""

    section: str
    field: str
    at: int
    before: tuple[Any, ...]
    after: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class RoundPairing:
    """A round's pairings and source: `()` for a round not paired, else `(pairings,
    source)`."""

    section: str
    round: int
    before: Opt
    after: Opt


@dataclass(frozen=True, slots=True)
class RoundEntry:
    """One entry of a round's `results` (by White) or `bye_codes` (by player)."""

    section: str
    round: int
    field: str
    key: int
    before: Opt
    after: Opt


@dataclass(frozen=True, slots=True)
class TeamPart:
    """A team round's matches (`team` 0; the value `(matches, source)`), or team `team`'s
    lineup for `round` (the value the `LineupSubmitted` that stands)."""

    section: str
    round: int
    team: int
    before: Opt
    after: Opt


TournamentChange = SectionEntry | SectionMember | SectionLog | RoundPairing | RoundEntry | TeamPart


def _opt(mapping: Mapping[Any, Any], key: Any) -> Opt:
    return (mapping[key],) if key in mapping else ()


def _members(value: Any) -> frozenset[int]:
    return frozenset(value) if value is not None else frozenset()


def _section_changes(old: SectionState, new: SectionState) -> Iterator[TournamentChange]:
    name = new.name
    for f in KEYED:
        a, b = getattr(old, f), getattr(new, f)
        if a is b:
            continue
        for key in sorted(set(a) | set(b)):
            before, after = _opt(a, key), _opt(b, key)
            if before != after:
                yield SectionEntry(name, f, key, before, after)
    for f in MEMBERS:
        a, b = getattr(old, f), getattr(new, f)
        if a is b:
            continue
        for key in sorted(set(a) | set(b)):
            was, now = _members(a.get(key)), _members(b.get(key))
            for member in sorted(was ^ now):
                yield SectionMember(name, f, key, member, member in was, member in now)
    for f in LOGS:
        a, b = tuple(getattr(old, f)), tuple(getattr(new, f))
        if a is b or a == b:
            continue
        head = 0
        while head < min(len(a), len(b)) and a[head] == b[head]:
            head += 1
        tail = 0
        while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
            tail += 1
        yield SectionLog(name, f, head, a[head : len(a) - tail], b[head : len(b) - tail])
    if old.rounds is not new.rounds:
        for number in sorted(set(old.rounds) | set(new.rounds)):
            yield from _round_changes(name, number, old.rounds.get(number), new.rounds.get(number))
    if old.team_rounds is not new.team_rounds:
        for key in sorted(set(_team_entries(old)) | set(_team_entries(new))):
            gone, came = _opt(_team_entries(old), key), _opt(_team_entries(new), key)
            if gone != came:
                yield TeamPart(name, key[0], key[1], gone, came)


def _team_entries(section: SectionState) -> dict[tuple[int, int], Any]:
    """A team section's rounds as parts: (round, 0) its matches and their source,
    (round, team) a team's lineup."""
    rounds = section.team_rounds
    out: dict[tuple[int, int], Any] = {
        (r, 0): (matches, rounds.sources.get(r, "")) for r, matches in rounds.matches.items()
    }
    out.update(rounds.lineups)
    return out


def _round_changes(
    section: str, number: int, old: RoundState | None, new: RoundState | None
) -> Iterator[TournamentChange]:
    if old is new:
        return
    before: Opt = (old.pairings, old.source) if old is not None else ()
    after: Opt = (new.pairings, new.source) if new is not None else ()
    if before != after:
        yield RoundPairing(section, number, before, after)
    for f in ("results", "bye_codes"):
        a = getattr(old, f) if old is not None else {}
        b = getattr(new, f) if new is not None else {}
        for key in sorted(set(a) | set(b)):
            was, now = _opt(a, key), _opt(b, key)
            if was != now:
                yield RoundEntry(section, number, f, key, was, now)


def tournament_changes(
    before: TournamentState, after: TournamentState
) -> tuple[TournamentChange, ...]:
    """Every part in which `after` differs from `before`, with both values."""
    out: list[TournamentChange] = []
    for name, new in after.sections.items():
        old = before.sections.get(name)
        if old is None or old is new:
            continue
        out += _section_changes(old, new)
    return tuple(out)


def _current(section: SectionState, change: TournamentChange) -> Any:
    """The part as it is now, in the shape of the change's `after`."""
    match change:
        case SectionEntry():
            return _opt(getattr(section, change.field), change.key)
        case SectionMember():
            return change.member in _members(getattr(section, change.field).get(change.key))
        case SectionLog():
            log = getattr(section, change.field)
            return tuple(log[change.at : change.at + len(change.after)])
        case RoundPairing():
            rnd = section.rounds.get(change.round)
            return (rnd.pairings, rnd.source) if rnd is not None else ()
        case RoundEntry():
            rnd = section.rounds.get(change.round)
            return _opt(getattr(rnd, change.field), change.key) if rnd is not None else ()
        case TeamPart():
            return _opt(_team_entries(section), (change.round, change.team))
    raise StateError(f"not a tournament change: {change!r}")  # pragma: no cover


def _after(change: TournamentChange) -> Any:
    return change.after


def holds(tournament: TournamentState, change: TournamentChange) -> bool:
    """Does the part still hold what the action left in it?"""
    section = tournament.sections.get(change.section)
    return section is not None and _current(section, change) == _after(change)


def _with(mapping: Mapping[Any, Any], key: Any, value: Opt) -> dict[Any, Any]:
    out = dict(mapping)
    if value:
        out[key] = value[0]
    else:
        out.pop(key, None)
    return out


def _put_member(section: SectionState, change: SectionMember) -> SectionState:
    mapping = getattr(section, change.field)
    rounds = set(_members(mapping.get(change.key)))
    if change.before:
        rounds.add(change.member)
    else:
        rounds.discard(change.member)
    value: Any = tuple(sorted(rounds)) if change.field == "no_shows" else frozenset(rounds)
    updated: dict[str, Any] = {change.field: _with(mapping, change.key, (value,) if rounds else ())}
    return replace(section, **updated)


def _put_round(section: SectionState, change: RoundPairing | RoundEntry) -> SectionState:
    rounds = dict(section.rounds)
    rnd = rounds.get(change.round)
    if isinstance(change, RoundPairing):
        if not change.before:
            if rnd is not None and (rnd.results or rnd.bye_codes):
                raise StateError(
                    f"round {change.round} of {section.name} has results or byes recorded "
                    "since: it cannot be unpaired"
                )
            rounds.pop(change.round, None)
        else:
            pairings, source = change.before
            if rnd is None:
                rnd = RoundState(change.round, pairings, source)
            rounds[change.round] = replace(rnd, pairings=pairings, source=source)
    else:
        if rnd is None:
            raise StateError(f"round {change.round} of {section.name} is not paired")
        entries: dict[str, Any] = {
            change.field: _with(getattr(rnd, change.field), change.key, change.before)
        }
        rounds[change.round] = replace(rnd, **entries)
    return replace(section, rounds=rounds)


def _put(section: SectionState, change: TournamentChange) -> SectionState:
    match change:
        case SectionEntry():
            mapping: dict[str, Any] = {
                change.field: _with(getattr(section, change.field), change.key, change.before)
            }
            return replace(section, **mapping)
        case SectionMember():
            return _put_member(section, change)
        case SectionLog():
            log = tuple(getattr(section, change.field))
            end = change.at + len(change.after)
            kept: dict[str, Any] = {change.field: log[: change.at] + change.before + log[end:]}
            return replace(section, **kept)
        case RoundPairing() | RoundEntry():
            return _put_round(section, change)
        case TeamPart():
            return _put_team(section, change)
    raise StateError(f"not a tournament change: {change!r}")  # pragma: no cover


def _put_team(section: SectionState, change: TeamPart) -> SectionState:
    rounds = section.team_rounds
    if change.team:
        lineups = _with(rounds.lineups, (change.round, change.team), change.before)
        return replace(section, team_rounds=replace(rounds, lineups=lineups))
    paired, source = change.before[0] if change.before else ((), "")
    matches = _with(rounds.matches, change.round, (paired,) if change.before else ())
    sources = _with(rounds.sources, change.round, (source,) if change.before else ())
    return replace(section, team_rounds=replace(rounds, matches=matches, sources=sources))


def _order(change: TournamentChange) -> int:
    """Rounds come back before their results, and go only after them; logs last (their
    positions were taken on the state after the action)."""
    if isinstance(change, RoundPairing) or (isinstance(change, TeamPart) and not change.team):
        return 0 if change.before else 2
    if isinstance(change, SectionLog):
        return 3
    return 1


def put_back_tournament(
    tournament: TournamentState, changes: Sequence[TournamentChange]
) -> TournamentState:
    """Each part as it was before its action. StateError when a part no longer holds
    what the action left, when a lineup of a round paired board by board would change
    while its boards stay (a paired round's lineups stay), or when the section would not
    hold together afterwards (a player paired who is not in it any more): nothing is
    changed then."""
    sections = dict(tournament.sections)
    touched: set[str] = set()
    # Logs are put back from the last appended, so that earlier positions stay right.
    ordered = sorted(
        enumerate(changes),
        key=lambda ic: (_order(ic[1]), -ic[1].at if isinstance(ic[1], SectionLog) else ic[0]),
    )
    for _, change in ordered:
        section = sections.get(change.section)
        if section is None:
            raise StateError(f"no section {change.section!r}")
        if _current(section, change) != _after(change):
            raise StateError(f"{describe_part(change)} has changed since")
        sections[change.section] = _put(section, change)
        touched.add(change.section)
    for change in changes:
        if isinstance(change, TeamPart) and change.team:
            was, now = tournament.sections[change.section], sections[change.section]
            if change.round in was.rounds and change.round in now.rounds:
                # A paired round's lineups stay: its boards were paired from them.
                raise StateError(
                    f"round {change.round} of {change.section} is paired board by board "
                    f"from its lineups, so team {change.team}'s lineup stays: undo the "
                    "round's boards first"
                )
    for name in touched:
        problem = inconsistency(sections[name])
        if problem:
            raise StateError(f"{name}: {problem}")
    return replace(tournament, sections=sections)


def inconsistency(section: SectionState) -> str:
    """What does not hold together ("" = nothing): a player paired, scored or counted
    who is not in the section, a result for a game no pairing has, a round paired
    before the one before it. A fold keeps these true event by event; an action put
    back out of order (an undo) is checked against them."""
    for number in sorted(section.rounds):
        if number > 1 and number - 1 not in section.rounds:
            return f"round {number} is paired but round {number - 1} is not"
        rnd = section.rounds[number]
        whites = {p.white for p in rnd.pairings if p.black is not None}
        for pairing in rnd.pairings:
            for player in pairing.players():
                if player not in section.players:
                    return f"round {number} pairs player {player}, who is not in the section"
        for white in rnd.results:
            if white not in whites:
                return f"round {number} has a result for White {white} without that game"
        for player in rnd.bye_codes:
            if player not in section.players:
                return f"round {number} gives player {player} a bye, who is not in the section"
    for name, mapping in (
        ("withdrawn", section.withdrawn),
        ("no-shows", section.no_shows),
        ("byes", section.granted_byes),
        ("joined", section.joined),
    ):
        for player in mapping:
            if player not in section.players:
                return f"player {player} has {name} recorded but is not in the section"
    teams = section.team_rounds
    for number, team in sorted(teams.lineups):
        if teams.match_of(number, team) is None:
            return f"team {team} has a lineup for round {number}, which has no match for it"
    for game in section.playoff.values():
        for player in (game.white, game.black):
            if player not in section.players:
                return (
                    f"play-off game {game.number} pairs player {player}, who is not in the section"
                )
    return ""


def describe_part(change: TournamentChange) -> str:
    """The part in a few words, for a refusal ("round 3's pairings of Open")."""
    match change:
        case SectionEntry() | SectionMember():
            return f"{change.field.replace('_', ' ')} of player {change.key} in {change.section}"
        case SectionLog():
            return f"the {change.field.replace('_', ' ')} of {change.section}"
        case RoundPairing():
            return f"round {change.round}'s pairings in {change.section}"
        case RoundEntry():
            what = "result of White" if change.field == "results" else "bye code of player"
            return f"round {change.round}'s {what} {change.key} in {change.section}"
        case TeamPart():
            if not change.team:
                return f"round {change.round}'s matches in {change.section}"
            return f"team {change.team}'s lineup for round {change.round} in {change.section}"
    return "a part of the tournament"  # pragma: no cover


def _covered() -> set[str]:
    return {*KEYED, *MEMBERS, *LOGS, *_FIXED, *_ROUNDS, *_TEAMS}


def uncovered_fields() -> list[str]:
    """Fields of `SectionState` no part covers (a test keeps this empty)."""
    return [f.name for f in fields(SectionState) if f.name not in _covered()]
