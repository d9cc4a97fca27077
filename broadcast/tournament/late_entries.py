"""Late entries and replacements, as the tournament fold applies them: a newcomer joins a
Swiss section's next unpaired round with the next free starting number, or takes a
player's place (their starting number, when that player has no result yet; else the
next free one, the games staying with whoever played them). Each refuses, in words for
the arbiter, what FIDE's rules or the section's system do not allow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, TypeVar

from broadcast.config.model import PlayerEntry
from broadcast.fide.pairing import Pairing
from broadcast.phrases import say
from broadcast.tournament.eligibility import out_reason
from broadcast.tournament.section import SectionRecord, StateError
from broadcast.tournament.tournament_events import PlayerEntered, PlayerReplaced

S = TypeVar("S", bound=SectionRecord)


def _check_newcomer(
    section: SectionRecord, entry: PlayerEntry, from_round: int, missed: float
) -> None:
    if not entry.name.strip():
        raise StateError("a newcomer needs a name")
    if not 1 <= from_round <= section.config.rounds:
        raise StateError(f"round {from_round} is outside 1..{section.config.rounds}")
    if missed not in (0.0, 0.5):
        raise StateError(
            f"{missed!r} points per missed round: FIDE allows 0 or 0.5 for a late entry"
        )


def entered(section: S, event: PlayerEntered) -> S:
    if section.config.system != "swiss":
        raise StateError(
            say(
                "section %(section)s is a round robin: its Berger tables are fixed, so "
                "nobody can join it late (a player who has not played yet can be replaced)",
                section=repr(section.name),
            )
        )
    entry = event.player
    last = section.last_paired_round
    if last >= section.config.rounds:
        raise StateError(
            say(
                "every round of %(section)s is paired: it is too late to enter",
                section=repr(section.name),
            )
        )
    _check_newcomer(section, entry, event.from_round, event.missed_points)
    if entry.number != section.next_number:
        raise StateError(
            say(
                "a late entry gets the next free starting number, %(next)s, not %(number)s",
                next=section.next_number,
                number=entry.number,
            )
        )
    if event.from_round <= last:
        raise StateError(
            say(
                "round %(round)s is already paired: a late entry joins a round not paired "
                "yet (the next is %(next)s)",
                round=event.from_round,
                next=last + 1,
            )
        )
    return replace(
        section,
        players={**section.players, entry.number: entry},
        joined={**section.joined, entry.number: event.from_round},
        missed_points={**section.missed_points, entry.number: event.missed_points},
        late_entries=(*section.late_entries, event),
    )


def replaced(section: S, event: PlayerReplaced) -> S:
    original = section.player_entry(event.player)
    if original != event.original:
        raise StateError(f"player {event.player} is {original.name}, not {event.original.name}")
    new = event.newcomer
    _check_newcomer(section, new, event.from_round, event.missed_points)
    recorded = section.recorded_rounds(event.player)
    if new.number == event.player:
        return _takes_number(section, event, recorded)
    if section.config.system != "swiss":
        raise StateError(
            f"section {section.name!r} is a round robin: its Berger tables are fixed, so a "
            f"player can be replaced only before their first result (player "
            f"{event.player} has one in round {recorded[0] if recorded else '?'})"
        )
    if not recorded:
        raise StateError(
            f"player {event.player} has no result yet: the newcomer takes starting "
            f"number {event.player} itself"
        )
    if new.number != section.next_number:
        raise StateError(
            f"the newcomer gets the next free starting number, {section.next_number}, "
            f"not {new.number}"
        )
    if event.from_round <= recorded[-1]:
        raise StateError(
            f"player {event.player} has a result in round {recorded[-1]}: the newcomer "
            f"takes their place from round {recorded[-1] + 1}"
        )
    played = section.played_rounds(event.player)
    if played and not event.override.strip():
        listed = ", ".join(str(r) for r in played)
        raise StateError(
            f"player {event.player} has played (rounds {listed}): only the arbiter's "
            "override replaces a player who has played, once they have withdrawn"
        )
    if played and not out_reason(section, event.player, event.from_round):
        raise StateError(
            f"player {event.player} has played and is still in the event in round "
            f"{event.from_round}: withdraw them first, then replace them"
        )
    rounds = dict(section.rounds)
    for number, rnd in section.rounds.items():
        if number >= event.from_round and rnd.game_of(event.player) is not None:
            pairings = tuple(_substitute(p, event.player, new.number) for p in rnd.pairings)
            codes = dict(rnd.bye_codes)
            if codes.pop(event.player, None) == "U":  # the pairing bye goes with the place
                codes[new.number] = "U"
            rounds[number] = replace(rnd, pairings=pairings, bye_codes=codes)
    start = section.withdrawn.get(event.player)
    withdrawn, reasons = dict(section.withdrawn), dict(section.withdraw_reasons)
    withdrawn_by = dict(section.withdrawn_by)
    if start is None or start > event.from_round:
        withdrawn[event.player] = event.from_round
        reasons[event.player] = f"replaced by {new.number} {new.name}"
        withdrawn_by[event.player] = event.by
    return replace(
        section,
        players={**section.players, new.number: new},
        rounds=rounds,
        withdrawn=withdrawn,
        withdraw_reasons=reasons,
        withdrawn_by=withdrawn_by,
        joined={**section.joined, new.number: event.from_round},
        missed_points={**section.missed_points, new.number: event.missed_points},
        replacements=(*section.replacements, event),
    )


def _takes_number(section: S, event: PlayerReplaced, recorded: tuple[int, ...]) -> S:
    """The newcomer takes the starting number of a player without any result: the
    original's requests (byes), absences and decisions go with them."""
    number = event.player
    if recorded:
        raise StateError(
            f"player {number} has a result in round {recorded[0]}: the games stay with "
            f"whoever played them, so the newcomer gets the next free number, "
            f"{section.next_number}"
        )
    if section.no_shows.get(number):
        raise StateError(f"player {number} has a no-show counted: they have a result")
    paired = [r for r, rnd in section.rounds.items() if rnd.game_of(number) is not None]
    if paired and min(paired) < event.from_round:
        raise StateError(
            f"player {number} is paired in round {min(paired)}: the newcomer takes "
            f"their place from that round"
        )
    if section.config.system != "swiss" and event.from_round != 1:
        raise StateError(
            "a round robin's newcomer plays every game of the starting number: from round 1"
        )

    def without(mapping: Mapping[int, Any]) -> dict[int, Any]:
        return {k: v for k, v in mapping.items() if k != number}

    joined = without(section.joined)
    missed = without(section.missed_points)
    if event.from_round > 1:
        joined[number] = event.from_round
        missed[number] = event.missed_points
    return replace(
        section,
        players={**section.players, number: event.newcomer},
        granted_byes=without(section.granted_byes),
        withdrawn=without(section.withdrawn),
        withdraw_reasons=without(section.withdraw_reasons),
        withdrawn_by=without(section.withdrawn_by),
        no_shows=without(section.no_shows),
        continuations=without(section.continuations),
        prizes_withheld=without(section.prizes_withheld),
        prizes_restored=without(section.prizes_restored),
        joined=joined,
        missed_points=missed,
        replacements=(*section.replacements, event),
    )


def _substitute(pairing: Pairing, old: int, new: int) -> Pairing:
    """The pairing with starting number `old` replaced by `new`."""
    if pairing.white == old:
        return replace(pairing, white=new)
    if pairing.black == old:
        return replace(pairing, black=new)
    return pairing


__all__ = ["entered", "replaced"]
