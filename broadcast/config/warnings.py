"""What `check` warns about in a valid config: settings that load but are most likely not
what the organizer meant, or that the regulation asks to look at.

- a section's base time under 10 minutes: "120+30" is 2 min + 30 s (time controls are in
  seconds), not two hours;
- results applied at once with an early-draw rule: a kings-signal draw before the
  minimum stays a proposal (the rule holds whatever the result's source);
- foreign players without a FIDE id where the section asks for one (Sestao art. 7).

Pure: the loaded config in, lines of text out.
"""

from __future__ import annotations

from broadcast.config.model import EventConfig, SectionConfig
from clocks.timecontrol import spell_time_control

__all__ = ["MIN_CLASSICAL_SECONDS", "config_warnings"]

MIN_CLASSICAL_SECONDS = 10 * 60  # under this, a game is blitz (FIDE Laws, Appendix B)


def config_warnings(event: EventConfig) -> list[str]:
    """Every warning for `event`, one sentence each, naming the section."""
    out: list[str] = []
    for section in event.sections:
        out += _short_base_time(section)
        out += _early_draw_applied(event, section)
        out += _foreign_without_fide_id(section)
    return out


def _short_base_time(section: SectionConfig) -> list[str]:
    tc = section.time_control
    if tc.untimed:
        return []
    base = min(tc.initial_seconds("white"), tc.initial_seconds("black"))
    if base >= MIN_CLASSICAL_SECONDS:
        return []
    return [
        f"section {section.name!r}: time_control = {str(tc)!r} is {spell_time_control(tc)}: "
        f"a base time under 10 minutes. Time controls are in seconds: if {base} meant minutes, "
        f'write "{base * 60}+..." or "{base}m+..."'
    ]


def _early_draw_applied(event: EventConfig, section: SectionConfig) -> list[str]:
    rule = section.early_draw
    if rule is None or event.automatic_results != "apply":
        return []
    return [
        f'section {section.name!r}: automatic_results = "apply" with an early-draw rule '
        f"(no draw before move {rule.min_moves} and {rule.min_minutes} min): a kings-signal "
        "draw before that is not applied; it waits as a proposal with an early-draw alert "
        "for the arbiter to confirm or reject"
    ]


def _foreign_without_fide_id(section: SectionConfig) -> list[str]:
    if not section.foreign_players_need_fide_id:
        return []
    home = section.home_federation
    missing = [
        p
        for p in section.players
        if p.federation and p.federation.upper() != home and not p.fide_id
    ]
    return [
        f"section {section.name!r}: player {p.number} {p.name} ({p.federation}) is foreign "
        f"(not {home}) and has no FIDE id; the regulations ask foreign players for one "
        "before the event starts"
        for p in missing
    ]
