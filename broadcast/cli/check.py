"""`boardwire check EVENT.toml`: validate an event config and show what it means:
each section's schedule in the event's timezone and its round-1 pairings.

With `--db JOURNAL` (the journal of an event that has started): also what the config
says differently about the players than the journal, each line with what `serve` does
about it and how to apply it (a late entry, a replacement), as `serve` logs it.

Exit status 0 when the config is valid, 1 with every problem listed (file:line:
message, hint) when it is not; 2 when the journal cannot be read (damaged, another
event's: one line, as `serve`, `standings` and `export` say it).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from broadcast.config import ConfigError, EventConfig, SectionConfig, load_event
from broadcast.config.regulations import describe_rules
from broadcast.config.warnings import config_warnings
from broadcast.fide.pairing import Pairing
from clocks.timecontrol import spell_time_control


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Register `check` on the `boardwire` subcommand parser."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "check",
        help="validate an event config; print schedules and round-1 pairings",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "config", metavar="EVENT.toml", nargs="+", help="the event config(s) to check"
    )
    parser.add_argument(
        "--db",
        metavar="JOURNAL",
        help="the event's journal (serve --db): also report how the config's players differ "
        "from the ones the event registered (one config only)",
    )
    parser.set_defaults(handler=run)
    return parser


def round_one(section: SectionConfig) -> tuple[tuple[Pairing, ...], str]:
    """Round-1 pairings of a section and a note on where they come from."""
    from broadcast.fide.berger import berger_round

    if section.system != "swiss":
        cycles = 2 if section.system == "double-round-robin" else 1
        return berger_round(len(section.players), 1, cycles), "Berger table"
    if len(section.players) < 2:
        return (), "no players registered yet"
    from broadcast.fide.dutch import pair_round
    from broadcast.tournament.tournament_events import PlayersRegistered
    from broadcast.tournament.tournament_state import SectionState

    state = SectionState(section).apply(PlayersRegistered(section.name, section.players))
    pairings = pair_round(state.to_crosstable(), 1, total_rounds=section.rounds)
    if section.pairing.kind == "import":
        note = (
            f"preview by FIDE Dutch; the event imports {section.pairing.program}'s pairings "
            "(boardwire pairings --trf FILE --round 1)"
        )
    else:
        note = "FIDE Dutch"
    return pairings, note


def team_round_one(section: SectionConfig) -> list[str]:
    """Round 1 of a team section, match by match (its boards come from the lineups, so
    there is no board list before the round): the team Berger table, or the team Swiss
    (C.04.6) from the teams' order, which is their initial ranking."""
    from broadcast.fide.teams.berger import team_berger_round

    if section.system != "swiss":
        cycles = 2 if section.system == "double-round-robin" else 1
        matches, note = team_berger_round(len(section.teams), 1, cycles), "team Berger table"
    else:
        from broadcast.actions.team_swiss import swiss_rules
        from broadcast.fide.teams.swiss import NoTeamPairing, TeamRecord, pair_team_round

        records = tuple(TeamRecord(t.number, t.number, 0.0, 0.0) for t in section.teams)
        try:
            matches = pair_team_round(records, 1, swiss_rules(section))
        except NoTeamPairing as exc:
            return [f"  round 1 matches: none ({exc})"]
        note = "team Swiss, FIDE C.04.6"
        if section.pairing.kind == "import":
            note = f"preview by the team Swiss; the event imports {section.pairing.program}'s"
    names = {t.number: t.name for t in section.teams}
    lines = [f"  round 1 matches ({note}; the boards follow from the lineups):"]
    for m in matches:
        second = "bye" if m.second is None else f"{m.second:>3} {names.get(m.second, '')}"
        lines.append(f"    match {m.number:>2}  {m.first:>3} {names.get(m.first, '')}  -  {second}")
    return lines


def describe(event: EventConfig) -> list[str]:
    """The report `check` prints, as lines."""
    zone = event.zone
    lines = [
        f"Event: {event.name}" + (f" ({event.site})" if event.site else ""),
        f"  timezone {event.timezone}, broadcast delay {event.broadcast_delay_seconds} s, "
        f"tie-break rules {event.tiebreak_edition}, automatic results: {event.automatic_results}",
    ]
    for section in event.sections:
        lines.append("")
        lines.append(
            f"Section {section.name!r}: {section.system}, {section.rounds} rounds, "
            f"{len(section.players)} players, time control {section.time_control} "
            f"({spell_time_control(section.time_control)}), "
            f"default time {section.default_time_minutes} min"
        )
        lines.append(f"  tie-breaks: {', '.join(section.tiebreaks) or '(none)'}")
        pairing = section.pairing.kind + (
            f" ({section.pairing.program})" if section.pairing.program else ""
        )
        lines.append(f"  pairings: {pairing}")
        if section.byes.allowed:
            b = section.byes
            excluded = ", ".join(map(str, sorted(b.excluded_rounds))) or "none"
            lines.append(
                f"  byes: up to {b.max_byes} worth {b.points:g}, not in rounds {excluded}, "
                f"requested {b.deadline.replace('-', ' ')}"
            )
        if section.no_show_limit is not None:
            lines.append(f"  no-shows before withdrawal: {section.no_show_limit}")
        if section.early_draw is not None:
            rule = section.early_draw
            lines.append(
                f"  no draw offers before move {rule.min_moves} and {rule.min_minutes} min of play"
            )
        lines += describe_rules(section)
        lines.append(f"  schedule ({event.timezone}):")
        for start in section.schedule:
            local = start.start.astimezone(zone)
            lines.append(f"    round {start.round:>2}  {local:%a %Y-%m-%d %H:%M %Z}")
        if section.is_team:
            lines += team_round_one(section)
            continue
        pairings, note = round_one(section)
        lines.append(f"  round 1 pairings ({note}):")
        names = {p.number: p.name for p in section.players}
        for p in pairings:
            if p.black is None:
                lines.append(f"    bye       {p.white:>3} {names.get(p.white, '')}")
            else:
                lines.append(
                    f"    board {p.board:>2}  {p.white:>3} {names.get(p.white, '')}"
                    f"  -  {p.black:>3} {names.get(p.black, '')}"
                )
    if event.boards:
        lines.append("")
        lines.append("Boards:")
        for board in event.boards:
            where = board.port + (f" address {board.address}" if board.address is not None else "")
            if board.found_by_serial:
                where = f"serial {board.serial}, found on " + (
                    f"station {board.station}" if board.station else "any capture station"
                )
            lines.append(f"  board {board.number:>3}  {where}  -> {board.section}")
    return lines


def run(args: argparse.Namespace) -> int:
    """Handler for `boardwire check`; returns the exit code (1 if any config is wrong)."""
    paths = args.config if isinstance(args.config, list) else [args.config]
    db = getattr(args, "db", None)
    if db is not None and len(paths) > 1:
        print("check: --db reads one event's journal: give one EVENT.toml with it", file=sys.stderr)
        return 2
    code = 0
    for i, path in enumerate(paths):
        if len(paths) > 1:
            print(("\n" if i else "") + f"== {path}")
        code = max(code, _check_one(path, db))
    return code


def _check_one(path: str, db: str | None = None) -> int:
    try:
        event = load_event(path)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 1
    for line in describe(event):
        print(line)
    warnings = config_warnings(event)
    if warnings:
        print()
        for warning in warnings:
            print(f"warning: {warning}")
    print(
        "\nOK: the config is valid"
        + (
            f" ({len(warnings)} warning{'s' if len(warnings) != 1 else ''} above)."
            if warnings
            else "."
        )
    )
    return 0 if db is None else _journal_changes(event, Path(db))


def _journal_changes(event: EventConfig, db: Path) -> int:
    """The config's players against the ones the journal registered (as serve says it)."""
    from broadcast.journal.kinds import register_all
    from broadcast.journal.store import Journal, JournalError
    from broadcast.service.journal_reader import fold_journal
    from broadcast.tournament.registration import registration_changes

    if not db.exists():
        print(f"check: no journal at {db} (the --db that serve writes)", file=sys.stderr)
        return 1
    try:
        register_all()
        journal = Journal(db, readonly=True, event=event.name)
        try:
            tournament = fold_journal(journal, event).tournament
        finally:
            journal.close()
    except JournalError as exc:  # one line, as `serve`, `standings` and `export` say it
        print(f"check: cannot read the journal {db}: {exc}", file=sys.stderr)
        return 2
    lines = [
        line
        for section in event.sections
        for line in registration_changes(section, tournament.section(section.name))
    ]
    if not lines:
        print(f"Journal {db}: the config's players are the ones the event registered.")
        return 0
    print(f"\nJournal {db}: the config changed after the start ({len(lines)}):")
    for line in lines:
        print(f"  - {line}")
    return 0


__all__ = ["add_parser", "describe", "round_one", "run"]
