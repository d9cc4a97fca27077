"""What a config reloaded after the start says differently about the players than the
event's journal, in words for the arbiter: the event keeps the players it registered
(the journal is the truth), so a change in the config is reported, never silently lost."""

from __future__ import annotations

from collections.abc import Mapping

from broadcast.config.model import PlayerEntry, SectionConfig

__all__ = ["registration_changes"]

_FIELDS = ("name", "rating", "fide_id", "federation", "title", "sex", "birth")


def registration_changes(
    section: SectionConfig, registered: Mapping[int, PlayerEntry]
) -> tuple[str, ...]:
    """One line per player the config adds, drops or describes differently from the
    players the section registered when it started (empty: they agree)."""
    if not registered:
        return ()
    listed = {p.number: p for p in section.players}
    kept = f"the event keeps the {len(registered)} players it started with"
    out: list[str] = []
    for number in sorted(listed.keys() - registered.keys()):
        out.append(
            f"{section.name}: player {number} ({listed[number].name}) is in the config but "
            f"was not registered when the event started: {kept}, so they are not paired "
            "and not in the standings (a late entry cannot be made by editing the config)"
        )
    for number in sorted(registered.keys() - listed.keys()):
        out.append(
            f"{section.name}: player {number} ({registered[number].name}) is no longer in "
            f"the config: {kept}, so their games and points stay (withdraw them at the "
            "desk to stop pairing them)"
        )
    for number in sorted(listed.keys() & registered.keys()):
        old, new = registered[number], listed[number]
        changed = [
            f"{name} {getattr(old, name)!r} -> {getattr(new, name)!r}"
            for name in _FIELDS
            if getattr(old, name) != getattr(new, name)
        ]
        if changed:
            out.append(
                f"{section.name}: player {number}'s details differ in the config "
                f"({'; '.join(changed)}): the event keeps those it registered"
            )
    return tuple(out)
