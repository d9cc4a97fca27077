"""What a config reloaded after the start says differently about the players than the
event's journal, in words for the arbiter: the event keeps the players its journal
registered (the journal is the truth), so each line says what differs, what the event
does about it, and how to apply a change that can be applied (a late entry, a
replacement). A change in the config is reported, never silently lost."""

from __future__ import annotations

import json

from broadcast.config.model import EventConfig, PlayerEntry, SectionConfig
from broadcast.fide.berger import berger_round
from broadcast.tournament.tournament_events import RoundPaired
from broadcast.tournament.tournament_state import SectionState, TournamentState

__all__ = ["LATE_ENTRY_ROUTE", "REPLACEMENT_ROUTE", "registration_changes", "round_robin_pairings"]


def round_robin_pairings(event: EventConfig, tournament: TournamentState) -> list[RoundPaired]:
    """The Berger tables of every round-robin section's rounds not paired yet: what a new
    journal starts with, after the players' registration."""
    out = []
    for section in event.sections:
        if section.system not in ("round-robin", "double-round-robin") or section.is_team:
            continue  # a team section pairs teams (actions.teams), its boards from lineups
        n = len(section.players)
        cycles = 2 if section.system == "double-round-robin" else 1
        for r in range(1, section.rounds + 1):
            if r not in tournament.section(section.name).rounds:
                out.append(
                    RoundPaired(section.name, r, tuple(berger_round(n, r, cycles)), "berger")
                )
    return out


LATE_ENTRY_ROUTE = "/api/v1/arbiter/late-entries"
REPLACEMENT_ROUTE = "/api/v1/arbiter/replacements"

_FIELDS = ("name", "rating", "fide_id", "federation", "title", "sex", "birth")


def _differences(old: PlayerEntry, new: PlayerEntry) -> list[str]:
    return [
        f"{name} {getattr(old, name)!r} -> {getattr(new, name)!r}"
        for name in _FIELDS
        if getattr(old, name) != getattr(new, name)
    ]


def _missing_from_event(section: SectionConfig, state: SectionState, entry: PlayerEntry) -> str:
    """A player the config lists and the event does not have: how to add them."""
    head = (
        f"{section.name}: player {entry.number} ({entry.name}) is in the config but not in "
        f"the event, which keeps the {len(state.players)} players its journal registered: "
        "they are not paired and not in the standings"
    )
    if section.system != "swiss":
        return (
            f"{head}. A round robin takes no late entry (its Berger tables are fixed); to "
            "put them in the place of a player who has not played yet: desk Tournament → "
            f'Replace player, or POST {REPLACEMENT_ROUTE} {{"section": {json.dumps(section.name)}, '
            '"player": N, "name": ...}'
        )
    body = json.dumps({"section": section.name, "config_player": entry.number})
    rounds = state.config.rounds
    joins = state.last_paired_round + 1
    if joins > rounds:
        return f"{head}. Every round is paired: it is too late for a late entry"
    if entry.number != state.next_number:
        return (
            f"{head}. To add them as a late entry (paired from round {joins}): desk "
            f"Tournament → Late entry, or POST {LATE_ENTRY_ROUTE} with their particulars; "
            f"they get the next free starting number, {state.next_number}, not "
            f"{entry.number} (renumber them in the config to keep the two in step)"
        )
    return (
        f"{head}. To add them as a late entry (paired from round {joins}): desk Tournament → "
        f"Late entry (config player {entry.number}), or POST {LATE_ENTRY_ROUTE} {body}"
    )


def _missing_from_config(section: SectionConfig, state: SectionState, entry: PlayerEntry) -> str:
    """A player the event has and the config does not list: the event keeps them."""
    number = entry.number
    keep = "the event keeps them; add them to the config to keep the two in step"
    late = next((e for e in state.late_entries if e.player.number == number), None)
    if late is not None:
        return (
            f"{section.name}: player {number} ({entry.name}) joined as a late entry from "
            f"round {late.from_round} and is not in the config: {keep}"
        )
    came = next((r for r in state.replacements if r.newcomer.number == number), None)
    if came is not None:
        return (
            f"{section.name}: player {number} ({entry.name}) replaced player {came.player} "
            f"({came.original.name}) from round {came.from_round} and is not in the config: "
            f"{keep}"
        )
    return (
        f"{section.name}: player {number} ({entry.name}) is no longer in the config: the "
        "event keeps them with their games and points (withdraw them at the desk to stop "
        "pairing them)"
    )


def registration_changes(section: SectionConfig, state: SectionState) -> tuple[str, ...]:
    """One line per player the config adds, drops or describes differently from the
    players the section's journal registered (its start, late entries, replacements);
    empty when they agree, or before the players are registered."""
    registered = state.players
    if not registered:
        return ()
    listed = {p.number: p for p in section.players}
    out: list[str] = []
    for number in sorted(listed.keys() - registered.keys()):
        out.append(_missing_from_event(section, state, listed[number]))
    for number in sorted(registered.keys() - listed.keys()):
        out.append(_missing_from_config(section, state, registered[number]))
    for number in sorted(listed.keys() & registered.keys()):
        old, new = registered[number], listed[number]
        if old == new:
            continue
        came = next(
            (
                r
                for r in reversed(state.replacements)
                if r.newcomer.number == number == r.player and r.newcomer == old
            ),
            None,
        )
        if came is not None:
            out.append(
                f"{section.name}: player {number} was replaced by {old.name} from round "
                f"{came.from_round} (the journal): the event keeps {old.name}; the config "
                f"still lists {new.name} (update it to keep the two in step)"
            )
            continue
        out.append(
            f"{section.name}: player {number}'s details differ in the config "
            f"({'; '.join(_differences(old, new))}): the event keeps the particulars it "
            "registered on every page, the TRF and the prize list (a registered player's "
            "particulars are not changed after the start)"
        )
    return tuple(out)
