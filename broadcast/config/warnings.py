"""What `check` warns about in a valid config: settings that load but are most likely not
what the organizer meant, or that the regulation asks to look at.

- a section's base time under 10 minutes: "120+30" is 2 min + 30 s (time controls are in
  seconds), not two hours;
- results applied at once with an early-draw rule: a kings-signal draw before the
  minimum stays a proposal (the rule holds whatever the result's source);
- foreign players without a FIDE id where the section asks for one (Sestao art. 7);
- no-show rules that put players out of the event (round-1 exclusion, an absence that
  disqualifies, the limit that withdraws) next to prizes that do not say whether those
  players may still win one (`eliminated_lose_prizes` not written): the prize list would
  pay a disqualified player (the Sestao audit, D4).

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
        out += _prizes_open_to_the_eliminated(section)
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


def _eliminating_rules(section: SectionConfig) -> list[str]:
    """The section's no-show rules that put a player out of the event, as the config
    writes them."""
    rules = section.no_shows
    out = []
    if rules.first_round == "exclude":
        out.append('first_round = "exclude"')
    if rules.single_absence == "disqualify-unless-continue":
        out.append('single_absence = "disqualify-unless-continue"')
    if section.no_show_limit is not None and rules.on_limit == "withdraw":
        out.append(f'no_show_limit = {section.no_show_limit} with on_limit = "withdraw"')
    return out


def _prizes_open_to_the_eliminated(section: SectionConfig) -> list[str]:
    prizes = section.prizes
    if prizes is None or prizes.eliminated_lose_prizes is not None:
        return []  # no prizes, or the config says what becomes of them
    if not (prizes.places or prizes.categories or prizes.pools):
        return []
    rules = _eliminating_rules(section)
    if not rules:
        return []
    return [
        f"section {section.name!r}: the no-show rules disqualify players "
        f"([section.no_shows] {', '.join(rules)}) but [section.prizes] does not say "
        "whether they may still win a prize, so the prize list pays them: write "
        "eliminated_lose_prizes = true (a disqualified player's prize passes on), or "
        "eliminated_lose_prizes = false if the chief arbiter decides each case with "
        "the desk's Withhold prize"
    ]
