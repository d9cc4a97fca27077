"""The checks of one `[[section]]`: its system, rounds, time control, tie-breaks,
pairing source, schedule, byes and early-draw rule, together with its players
(`players`) and regulation tables (`regulations`). Each reads through a `TomlReader`
and reports its mistakes there; a section with any mistake is not built.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any, cast

from broadcast.config.locate import KeyPath
from broadcast.config.model import (
    ACCELERATIONS,
    BYE_DEADLINES,
    CHECK_IN,
    PAIRING_KINDS,
    SYSTEMS,
    Acceleration,
    ByeDeadline,
    ByePolicy,
    CheckIn,
    EarlyDrawRule,
    PairingKind,
    PairingSource,
    RoundStart,
    SectionConfig,
    System,
)
from broadcast.config.players import section_players
from broadcast.config.reader import TomlReader
from broadcast.config.regulations import (
    REGULATION_SECTION_KEYS,
    late_entry_rules,
    no_show_rules,
    playoff_rules,
    prize_rules,
    withdrawal_rules,
)
from broadcast.config.teams import TEAM_SECTION_KEYS, check_team_tiebreak, section_teams
from broadcast.config.tiebreaks import check_tiebreak
from clocks.timecontrol import TimeControl, parse_time_control

__all__ = [
    "BYE_KEYS",
    "EARLY_DRAW_KEYS",
    "SCHEDULE_KEYS",
    "SECTION_KEYS",
    "bye_policy",
    "early_draw_rule",
    "pairing_source",
    "round_starts",
    "section_config",
    "tiebreak_codes",
]

SECTION_KEYS = (
    "name",
    "system",
    "rounds",
    "timezone",
    "time_control",
    "default_time_minutes",
    "tiebreaks",
    "no_show_limit",
    "pairing",
    "pairing_program",
    "players_csv",
    "players_trf",
    "player",
    "schedule",
    "byes",
    "early_draw",
    "home_federation",
    "foreign_players_need_fide_id",
    "first_table",
    "player_results",
    "check_in",
    "unrated_opponent_rating",
    "acceleration",
    *REGULATION_SECTION_KEYS,
    *TEAM_SECTION_KEYS,
)
SCHEDULE_KEYS = ("round", "date", "time", "timezone")
BYE_KEYS = ("max", "points", "excluded_rounds", "not_in_last_rounds", "request_deadline")
EARLY_DRAW_KEYS = ("min_moves", "min_minutes")


def section_config(
    reader: TomlReader, raw: dict[str, Any], index: int, event_zone: str
) -> SectionConfig | None:
    """The section `raw` (the `index`th [[section]]) checked, or None if it has a
    mistake (reported); `event_zone` is the timezone it inherits."""
    at: KeyPath = ("section", index)
    before = len(reader.issues)
    reader.unknown_keys(raw, SECTION_KEYS, at)
    name = reader.get_str(raw, "name", at, required=True, default=f"#{index + 1}", example="Open")
    system = cast(System | None, reader.get_choice(raw, "system", at, SYSTEMS))
    rounds = reader.get_int(raw, "rounds", at, required=True, minimum=1, maximum=99, example=9)
    zone = event_zone
    if "timezone" in raw:
        zone = reader.get_str(raw, "timezone", at, default=event_zone)
        if not reader.check_zone(zone, (*at, "timezone")):
            zone = event_zone

    tc_text = reader.get_str(raw, "time_control", at, required=True, example="5400+30")
    time_control: TimeControl | None = None
    if tc_text:
        try:
            time_control = parse_time_control(tc_text)
        except ValueError as exc:
            reader.error(
                (*at, "time_control"),
                str(exc),
                "e.g. 5400+30 (90 min + 30 s), 40/5400+30:1800+30, 7200+30",
            )
    default_time = reader.get_int(
        raw, "default_time_minutes", at, default=0, minimum=0, maximum=24 * 60, example=30
    )
    is_team = any(key in raw for key in TEAM_SECTION_KEYS)
    tiebreaks = tiebreak_codes(reader, raw, at, system, team=is_team)
    no_show_limit = reader.get_int(raw, "no_show_limit", at, minimum=1, example=2)
    first_table = reader.get_int(raw, "first_table", at, minimum=1, maximum=9999, example=16)
    players = section_players(reader, raw, at)
    team_rules, teams, players = section_teams(reader, raw, at, players, rounds)
    pairing = pairing_source(reader, raw, at, system, team=is_team)
    schedule = round_starts(reader, raw, at, rounds, zone)
    byes = bye_policy(reader, raw, at, rounds, system)
    early = early_draw_rule(reader, raw, at)
    no_shows, no_show_limit = no_show_rules(reader, raw, at, no_show_limit)
    withdrawal = withdrawal_rules(reader, raw, at, system)
    unrated = _unrated_opponent_rating(reader, raw, at)
    acceleration = _acceleration(reader, raw, at, system)
    playoff = playoff_rules(reader, raw, at, system)
    prizes = prize_rules(reader, raw, at)
    home = reader.get_str(raw, "home_federation", at, default="", example="ESP") or ""
    need_fide_id = raw.get("foreign_players_need_fide_id", False)
    if not isinstance(need_fide_id, bool):
        reader.error(
            (*at, "foreign_players_need_fide_id"),
            f"foreign_players_need_fide_id must be true or false, not {need_fide_id!r}",
            "foreign_players_need_fide_id = true",
        )
    if need_fide_id and not home:
        reader.error(
            (*at, "foreign_players_need_fide_id"),
            "foreign_players_need_fide_id needs the home federation to tell who is foreign",
            'add home_federation = "ESP" (the FIDE code of the host federation)',
        )
    late_entries = late_entry_rules(reader, raw, at, system)

    entrants = teams if is_team else players  # a team round robin pairs the teams
    if system in ("round-robin", "double-round-robin") and rounds is not None and entrants:
        n = len(entrants)
        per_cycle = n - 1 if n % 2 == 0 else n
        expected = per_cycle * (2 if system == "double-round-robin" else 1)
        if rounds != expected:
            reader.error(
                (*at, "rounds"),
                f"a {system} of {n} {'teams' if is_team else 'players'} has {expected} "
                f"rounds, not {rounds}",
                f"set rounds = {expected}, or check the player list",
            )
    if system in ("round-robin", "double-round-robin") and not players and not is_team:
        reader.error(
            at,
            f"round-robin section {name!r} has no players",
            "its Berger pairings need the players and their drawn numbers: "
            "add [[section.player]] entries, players_csv or players_trf",
        )
    if len(reader.issues) != before or system is None or rounds is None or time_control is None:
        return None
    return SectionConfig(
        name=name,
        system=system,
        rounds=rounds,
        schedule=schedule,
        time_control=time_control,
        default_time_minutes=default_time or 0,
        tiebreaks=tiebreaks,
        byes=byes,
        no_show_limit=no_show_limit,
        early_draw=early,
        pairing=pairing,
        players=players,
        no_shows=no_shows,
        withdrawal=withdrawal,
        playoff=playoff,
        prizes=prizes,
        home_federation=home.upper(),
        foreign_players_need_fide_id=bool(need_fide_id),
        late_entries=late_entries,
        first_table=first_table,
        player_results=reader.get_flag(raw, "player_results", at),
        check_in=cast(
            CheckIn | None,
            reader.get_choice(raw, "check_in", at, CHECK_IN) if "check_in" in raw else None,
        ),
        unrated_opponent_rating=unrated,
        acceleration=acceleration,
        team_rules=team_rules,
        teams=teams,
    )


def _acceleration(
    reader: TomlReader, raw: dict[str, Any], at: KeyPath, system: System | None
) -> Acceleration | None:
    """`acceleration = "baku"`: a Swiss paired with the Baku acceleration (C.04.5.1)."""
    if "acceleration" not in raw:
        return None
    value = cast(Acceleration | None, reader.get_choice(raw, "acceleration", at, ACCELERATIONS))
    if value is not None and system is not None and system != "swiss":
        reader.error(
            (*at, "acceleration"),
            f"acceleration applies to Swiss pairings; a {system} has fixed pairings",
            "remove acceleration, or make the section a swiss",
        )
        return None
    return value


def _unrated_opponent_rating(reader: TomlReader, raw: dict[str, Any], at: KeyPath) -> int | None:
    """`unrated_opponent_rating`: the rating ARO/TPR/APRO give an opponent without a FIDE
    rating, or None ("leave-out", the default) to leave those games out."""
    value = raw.get("unrated_opponent_rating", "leave-out")
    if value == "leave-out":
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3500:
        reader.error(
            (*at, "unrated_opponent_rating"),
            f'unrated_opponent_rating must be a rating from 0 to 3500 or "leave-out", '
            f"not {value!r}",
            "e.g. unrated_opponent_rating = 1000, or 0 where the regulations rate them 0",
        )
        return None
    return value


def tiebreak_codes(
    reader: TomlReader,
    raw: dict[str, Any],
    at: KeyPath,
    system: System | None,
    *,
    team: bool = False,
) -> tuple[str, ...]:
    """The tie-break codes, upper-cased, each one the standings engine can compute (for
    a team section, `team`: the tie-breaks for teams)."""
    value = raw.get("tiebreaks", [])
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        reader.error(
            (*at, "tiebreaks"),
            "tiebreaks must be a list of FIDE codes",
            'write tiebreaks = ["BH-C1", "SB", "PS", "DE", "APRO"]',
        )
        return ()
    out: list[str] = []
    for i, code in enumerate(value):
        normal = code.strip().upper()
        problem = (
            check_team_tiebreak(normal) if team else check_tiebreak(normal, swiss=system == "swiss")
        )
        if problem:
            reader.error((*at, "tiebreaks", i), f"tie-break {code!r}: {problem[0]}", problem[1])
        elif normal in out:
            reader.error((*at, "tiebreaks", i), f"tie-break {code!r} is listed twice", "remove one")
        else:
            out.append(normal)
    return tuple(out)


def pairing_source(
    reader: TomlReader,
    raw: dict[str, Any],
    at: KeyPath,
    system: System | None,
    *,
    team: bool = False,
) -> PairingSource:
    """Who pairs the section: boardwire (Dutch, Berger; the team Swiss of C.04.6 for a
    team section, `team`) or a program whose TRF is imported."""
    default = ("team-swiss" if team else "dutch") if system == "swiss" else "berger"
    kind = cast(PairingKind, reader.get_choice(raw, "pairing", at, PAIRING_KINDS, default=default))
    program = reader.get_str(raw, "pairing_program", at) or None
    if system in ("round-robin", "double-round-robin") and kind != "berger":
        reader.error(
            (*at, "pairing"),
            f"a {system} is paired from the Berger tables, not {kind!r}",
            'remove pairing or write pairing = "berger"',
        )
    if system == "swiss" and team and kind == "dutch":
        reader.error(
            (*at, "pairing"),
            "a team Swiss pairs teams, not players: the Dutch system is for individuals",
            'use pairing = "team-swiss" (FIDE C.04.6) or "import" (a team TRF)',
        )
    if kind == "team-swiss" and not team:
        reader.error(
            (*at, "pairing"),
            "pairing = 'team-swiss' pairs teams, and this section has none",
            'use pairing = "dutch", or add [section.teams] and its [[section.team]] entries',
        )
    if system == "swiss" and kind == "berger":
        reader.error(
            (*at, "pairing"),
            "a Swiss cannot use Berger tables",
            'use pairing = "dutch" (boardwire pairs) or "import" (TRF from Vega/Swiss-Manager)',
        )
    if kind == "import" and program is None:
        reader.error(
            at,
            "pairing = 'import' needs the program that writes the TRF",
            'add pairing_program = "Vega" (or "Swiss-Manager", "JaVaFo", ...)',
        )
    if kind != "import" and program is not None:
        reader.error(
            (*at, "pairing_program"),
            f"pairing_program is only used with pairing = 'import' (this section uses {kind!r})",
            'remove it, or set pairing = "import"',
        )
    return PairingSource(kind, program)


def round_starts(
    reader: TomlReader, raw: dict[str, Any], at: KeyPath, rounds: int | None, zone: str
) -> tuple[RoundStart, ...]:
    """The start of each round, in order; every round 1..rounds needs one."""
    entries = reader.get_array_of_tables(raw, "schedule", at)
    if not entries:
        if "schedule" not in raw:
            reader.error(
                at,
                "the section has no schedule",
                "add one [[section.schedule]] per round: round = 1, date = 2025-09-12, time = 17:00:00",
            )
        return ()
    starts: list[RoundStart] = []
    for i, entry in enumerate(entries):
        here: KeyPath = (*at, "schedule", i)
        reader.unknown_keys(entry, SCHEDULE_KEYS, here)
        number = reader.get_int(entry, "round", here, required=True, minimum=1, example=i + 1)
        date = entry.get("date")
        time = entry.get("time")
        if isinstance(date, dt.datetime) or not isinstance(date, dt.date):
            reader.error(
                (*here, "date") if "date" in entry else here,
                "each round needs a date" if date is None else f"date {date!r} is not a date",
                "write date = 2025-09-12 (a TOML date, no quotes)",
            )
            date = None
        if not isinstance(time, dt.time):
            reader.error(
                (*here, "time") if "time" in entry else here,
                "each round needs a start time" if time is None else f"time {time!r} is not a time",
                "write time = 17:00:00 (a TOML local time, no quotes)",
            )
            time = None
        elif time.tzinfo is not None:
            reader.error((*here, "time"), "the time must not carry an offset", "use timezone = ...")
            time = None
        entry_zone = zone
        if "timezone" in entry:
            entry_zone = reader.get_str(entry, "timezone", here, default=zone)
            if not reader.check_zone(entry_zone, (*here, "timezone")):
                entry_zone = zone
        if number is None or date is None or time is None:
            continue
        if rounds is not None and number > rounds:
            reader.error(
                (*here, "round"),
                f"round {number} is scheduled but the section has {rounds} rounds",
                f"use rounds 1..{rounds}, or raise rounds",
            )
            continue
        if any(s.round == number for s in starts):
            reader.error((*here, "round"), f"round {number} is scheduled twice", "keep one entry")
            continue
        starts.append(RoundStart(number, date, time, entry_zone))
    starts.sort(key=lambda s: s.round)
    if rounds is not None:
        missing = sorted(set(range(1, rounds + 1)) - {s.round for s in starts})
        if missing and len(starts) == len(entries):
            reader.error(
                (*at, "schedule"),
                f"no start time for round(s) {', '.join(map(str, missing))}",
                "add a [[section.schedule]] entry for each",
            )
    for earlier, later in itertools.pairwise(starts):
        if later.start <= earlier.start:
            index = next(i for i, e in enumerate(entries) if e.get("round") == later.round)
            reader.error(
                (*at, "schedule", index),
                f"round {later.round} starts at {later.start:%Y-%m-%d %H:%M %Z}, not after "
                f"round {earlier.round} ({earlier.start:%Y-%m-%d %H:%M %Z})",
                "check the date and time",
            )
    return tuple(starts)


def bye_policy(
    reader: TomlReader, raw: dict[str, Any], at: KeyPath, rounds: int | None, system: System | None
) -> ByePolicy:
    """The requested-bye rules of `[section.byes]` (none if the table is absent)."""
    table = reader.get_table(raw, "byes", at)
    if table is None:
        return ByePolicy()
    here: KeyPath = (*at, "byes")
    reader.unknown_keys(table, BYE_KEYS, here)
    max_byes = reader.get_int(table, "max", here, required=True, minimum=0, example=3) or 0
    points = table.get("points", 0.5)
    if isinstance(points, bool) or points not in (0, 0.5, 1):
        reader.error(
            (*here, "points"),
            f"bye points {points!r} are not a FIDE bye value",
            "use 0.5 (half-point bye H), 1 (full-point bye F) or 0 (zero-point bye Z)",
        )
        points = 0.5
    excluded: set[int] = set()
    if "excluded_rounds" in table:
        value = table["excluded_rounds"]
        if not isinstance(value, list) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in value
        ):
            reader.error(
                (*here, "excluded_rounds"),
                "excluded_rounds must be a list of round numbers",
                "write excluded_rounds = [8, 9]",
            )
        else:
            for i, r in enumerate(value):
                if rounds is not None and not 1 <= r <= rounds:
                    reader.error(
                        (*here, "excluded_rounds", i),
                        f"round {r} does not exist",
                        f"rounds are 1..{rounds}",
                    )
                excluded.add(r)
    last = reader.get_int(table, "not_in_last_rounds", here, minimum=0, example=2)
    if last is not None and rounds is not None:
        if last > rounds:
            reader.error(
                (*here, "not_in_last_rounds"),
                f"not_in_last_rounds = {last} exceeds the {rounds} rounds",
                f"use 0..{rounds}",
            )
        else:
            excluded.update(range(rounds - last + 1, rounds + 1))
    deadline = cast(
        ByeDeadline,
        reader.get_choice(table, "request_deadline", here, BYE_DEADLINES, default="before-round"),
    )
    if max_byes and system in ("round-robin", "double-round-robin"):
        reader.error(
            (*here, "max"),
            "requested byes are a Swiss rule; a round robin has no byes to grant",
            "remove the [section.byes] table",
        )
    return ByePolicy(max_byes, float(points), frozenset(excluded), deadline)


def early_draw_rule(reader: TomlReader, raw: dict[str, Any], at: KeyPath) -> EarlyDrawRule | None:
    """The `[section.early_draw]` rule, or None if the section has none."""
    table = reader.get_table(raw, "early_draw", at)
    if table is None:
        return None
    here: KeyPath = (*at, "early_draw")
    reader.unknown_keys(table, EARLY_DRAW_KEYS, here)
    moves = reader.get_int(table, "min_moves", here, default=0, minimum=0, maximum=200, example=30)
    minutes = reader.get_int(
        table, "min_minutes", here, default=0, minimum=0, maximum=24 * 60, example=60
    )
    if not moves and not minutes:
        reader.error(
            here,
            "an early-draw rule needs min_moves or min_minutes",
            "e.g. min_moves = 30 and min_minutes = 60, or remove the table",
        )
    return EarlyDrawRule(moves or 0, minutes or 0)
