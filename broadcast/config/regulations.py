"""Config tables for the rules a regulation adds beyond pairings and schedules:
`[section.no_shows]`, `[section.withdrawal]`, `[section.late_entries]`,
`[section.playoff]`, `[section.prizes]` (with `[[section.prizes.pool]]`). Read through a `TomlReader`, which collects the issues.
"""

from __future__ import annotations

from typing import Any, cast

from broadcast.config.locate import KeyPath
from broadcast.config.model import (
    FIRST_ROUND_NO_SHOW,
    ON_NO_SHOW_LIMIT,
    PRIZE_SPLITS,
    PRIZE_TIES,
    REMAINING_GAMES,
    RETENTION_BASES,
    SINGLE_ABSENCE,
    UNDER_HALF,
    WITHHELD_PRIZES,
    FirstRoundNoShow,
    LateEntryRules,
    NoShowRules,
    OnNoShowLimit,
    PlayoffRules,
    PrizeCategory,
    PrizePool,
    PrizeRules,
    PrizeSplit,
    PrizeTies,
    RemainingGames,
    RetentionBasis,
    SectionConfig,
    SingleAbsence,
    System,
    TaxRetention,
    UnderHalf,
    WithdrawalRules,
    WithheldPrizes,
)
from broadcast.config.reader import TomlReader
from clocks.timecontrol import TimeControl, parse_time_control, spell_time_control

__all__ = [
    "CATEGORY_KEYS",
    "LATE_ENTRY_KEYS",
    "NO_SHOW_KEYS",
    "PLAYOFF_KEYS",
    "POOL_KEYS",
    "PRIZE_KEYS",
    "REGULATION_SECTION_KEYS",
    "RETENTION_KEYS",
    "WITHDRAWAL_KEYS",
    "describe_rules",
    "late_entry_rules",
    "no_show_rules",
    "playoff_rules",
    "prize_rules",
    "withdrawal_rules",
]

NO_SHOW_KEYS = ("limit", "first_round", "single_absence", "on_limit")
WITHDRAWAL_KEYS = ("remaining_games", "under_half")
LATE_ENTRY_KEYS = ("missed_round_points",)
PLAYOFF_KEYS = ("time_control", "games", "armageddon_time_control", "armageddon_draw_winner")
PRIZE_KEYS = (
    "places",
    "ties",
    "pool",
    "currency",
    "forfeit_wins",
    "eliminated_lose_prizes",
    "withheld",
    "retention",
    "category",
    "one_prize_per_player",
    "order",
)
CATEGORY_KEYS = (
    "name",
    "places",
    "rating_from",
    "rating_below",
    "sex",
    "born_from",
    "born_until",
    "federation",
    "players",
)
RETENTION_KEYS = ("above", "rate", "foreign_rate", "federation", "applies_to")
POOL_KEYS = ("amount", "split")
REGULATION_SECTION_KEYS = ("no_shows", "withdrawal", "playoff", "prizes", "late_entries")


def no_show_rules(
    check: TomlReader, raw: dict[str, Any], at: KeyPath, limit: int | None
) -> tuple[NoShowRules, int | None]:
    """The no-show rules, and the limit (`no_show_limit` or `[section.no_shows] limit`)."""
    table = check.get_table(raw, "no_shows", at)
    if table is None:
        return NoShowRules(), limit
    here: KeyPath = (*at, "no_shows")
    check.unknown_keys(table, NO_SHOW_KEYS, here)
    own = check.get_int(table, "limit", here, minimum=1, example=2)
    if own is not None and limit is not None and own != limit:
        check.error(
            (*here, "limit"),
            f"no_shows.limit = {own} contradicts no_show_limit = {limit}",
            "give the limit once",
        )
    first = check.get_choice(table, "first_round", here, FIRST_ROUND_NO_SHOW, default="count")
    single = check.get_choice(table, "single_absence", here, SINGLE_ABSENCE, default="count")
    on_limit = check.get_choice(table, "on_limit", here, ON_NO_SHOW_LIMIT, default="alert")
    rules = NoShowRules(
        cast(FirstRoundNoShow, first),
        cast(SingleAbsence, single),
        cast(OnNoShowLimit, on_limit),
    )
    return rules, own if own is not None else limit


def withdrawal_rules(
    check: TomlReader, raw: dict[str, Any], at: KeyPath, system: System | None = None
) -> WithdrawalRules:
    table = check.get_table(raw, "withdrawal", at)
    if table is None:
        return WithdrawalRules()
    here: KeyPath = (*at, "withdrawal")
    check.unknown_keys(table, WITHDRAWAL_KEYS, here)
    games = check.get_choice(table, "remaining_games", here, REMAINING_GAMES, default="forfeit")
    under_half = check.get_choice(table, "under_half", here, UNDER_HALF, default="leave-out")
    if system == "swiss" and table.get("under_half") == "leave-out":
        check.error(
            (*here, "under_half"),
            'under_half = "leave-out" is a round-robin rule (FIDE C.06): a Swiss keeps '
            "a withdrawn player's results",
            'remove the key, or write under_half = "keep"',
        )
    return WithdrawalRules(cast(RemainingGames, games), cast(UnderHalf, under_half))


def _time_control(check: TomlReader, table: dict[str, Any], key: str, at: KeyPath) -> TimeControl:
    text = check.get_str(table, key, at, required=True, example="300")
    try:
        return parse_time_control(text or "300")
    except ValueError as exc:
        check.error((*at, key), str(exc), "e.g. 300 (5 minutes) or w:300,b:240 (Armageddon)")
        return parse_time_control("300")


def late_entry_rules(
    check: TomlReader, raw: dict[str, Any], at: KeyPath, system: System | None
) -> LateEntryRules:
    """`[section.late_entries]`: the points of each round a late entry missed (a Swiss
    rule: a round robin's Berger tables take no late entry)."""
    table = check.get_table(raw, "late_entries", at)
    if table is None:
        return LateEntryRules()
    here: KeyPath = (*at, "late_entries")
    check.unknown_keys(table, LATE_ENTRY_KEYS, here)
    if system in ("round-robin", "double-round-robin"):
        check.error(
            here,
            "late entries are a Swiss rule; a round robin's Berger tables are fixed",
            "remove the [section.late_entries] table (a player who has not played yet can "
            "still be replaced at the desk)",
        )
    points = table.get("missed_round_points", 0)
    if isinstance(points, bool) or points not in (0, 0.5):
        check.error(
            (*here, "missed_round_points"),
            f"missed_round_points = {points!r}: FIDE gives a late entry 0 or 0.5 per missed round",
            "use 0 (no points, the default) or 0.5 (half-point byes for missed rounds)",
        )
        points = 0
    return LateEntryRules(float(points))


def playoff_rules(
    check: TomlReader, raw: dict[str, Any], at: KeyPath, system: System | None
) -> PlayoffRules | None:
    table = check.get_table(raw, "playoff", at)
    if table is None:
        return None
    here: KeyPath = (*at, "playoff")
    check.unknown_keys(table, PLAYOFF_KEYS, here)
    blitz = _time_control(check, table, "time_control", here)
    armageddon = _time_control(check, table, "armageddon_time_control", here)
    games = check.get_int(table, "games", here, default=2, minimum=1, maximum=20, example=2)
    winner = check.get_choice(
        table, "armageddon_draw_winner", here, ("black", "white"), default="black"
    )
    if armageddon.symmetric and "armageddon_time_control" in table:
        check.error(
            (*here, "armageddon_time_control"),
            "an Armageddon gives the sides different times",
            'write it per side, e.g. "w:300,b:240"',
        )
    return PlayoffRules(blitz, armageddon, games or 2, cast(Any, winner))


def prize_rules(check: TomlReader, raw: dict[str, Any], at: KeyPath) -> PrizeRules | None:
    table = check.get_table(raw, "prizes", at)
    if table is None:
        return None
    here: KeyPath = (*at, "prizes")
    check.unknown_keys(table, PRIZE_KEYS, here)
    places: list[float] = []
    value = table.get("places", [])
    if not isinstance(value, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in value
    ):
        check.error(
            (*here, "places"),
            "prizes.places must be a list of amounts, 1st place first",
            "write places = [2000, 1000, 500]",
        )
    else:
        places = [float(v) for v in value]
    ties = check.get_choice(table, "ties", here, PRIZE_TIES, default="share")
    if ties == "share-points" and "playoff" in raw:
        check.error(
            (*here, "ties"),
            'ties = "share-points" would share first place, which [section.playoff] decides',
            'use ties = "share" (players level after every tie-break share)',
        )
    currency = check.get_str(table, "currency", here, default="EUR", example="EUR")
    categories = tuple(_categories(check, table, here))
    order: tuple[str, ...] = ()
    names = ["general", *(c.name for c in categories)]
    raw_order = table.get("order", [])
    if not isinstance(raw_order, list) or not all(v in names for v in raw_order):
        check.error(
            (*here, "order"),
            f"order must list prize names among {names}",
            'write order = ["general", "Best woman"] (equal amounts: the first listed wins)',
        )
    else:
        order = tuple(raw_order)
    pools: list[PrizePool] = []
    for i, pool in enumerate(check.get_array_of_tables(table, "pool", here)):
        where: KeyPath = (*here, "pool", i)
        check.unknown_keys(pool, POOL_KEYS, where)
        amount = pool.get("amount")
        if isinstance(amount, bool) or not isinstance(amount, int | float) or amount < 0:
            check.error(where, "a prize pool needs amount = a number >= 0", "write amount = 3500")
            continue
        split = check.get_choice(pool, "split", where, PRIZE_SPLITS, default="wins")
        pools.append(PrizePool(float(amount), cast(PrizeSplit, split)))
    return PrizeRules(
        tuple(places),
        cast(PrizeTies, ties),
        tuple(pools),
        currency,
        forfeit_wins=_flag(check, table, "forfeit_wins", here, default=True),
        # Not written is not False: `check` warns where the no-show rules disqualify.
        eliminated_lose_prizes=(
            _flag(check, table, "eliminated_lose_prizes", here, default=False)
            if "eliminated_lose_prizes" in table
            else None
        ),
        withheld=cast(
            WithheldPrizes,
            check.get_choice(table, "withheld", here, WITHHELD_PRIZES, default="pass-on"),
        ),
        retention=_retention(check, table, here),
        categories=categories,
        one_prize_per_player=_flag(check, table, "one_prize_per_player", here, default=True),
        order=order,
    )


def _amounts(check: TomlReader, table: dict[str, Any], at: KeyPath) -> tuple[float, ...]:
    value = table.get("places", [])
    if not isinstance(value, list) or not all(
        isinstance(v, int | float) and not isinstance(v, bool) and v >= 0 for v in value
    ):
        check.error(
            (*at, "places"),
            "places must be a list of amounts, the best first",
            "write places = [150, 100]",
        )
        return ()
    return tuple(float(v) for v in value)


def _categories(check: TomlReader, table: dict[str, Any], at: KeyPath) -> list[PrizeCategory]:
    out: list[PrizeCategory] = []
    for i, raw in enumerate(check.get_array_of_tables(table, "category", at)):
        where: KeyPath = (*at, "category", i)
        check.unknown_keys(raw, CATEGORY_KEYS, where)
        name = check.get_str(raw, "name", where, required=True, example="Best woman")
        if name in ("general", *(c.name for c in out)):
            check.error((*where, "name"), f"prize category {name!r} is named twice", "rename it")
        listed = raw.get("players")
        players: frozenset[int] | None = None
        if listed is not None:
            if not isinstance(listed, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in listed
            ):
                check.error(
                    (*where, "players"),
                    "players must be a list of starting numbers",
                    "write players = [12, 17]",
                )
            else:
                players = frozenset(listed)
        sex = check.get_str(raw, "sex", where, example="F").upper()
        sex = "F" if sex == "W" else sex  # the TRF writes "w" for women
        if sex not in ("", "F", "M"):
            check.error((*where, "sex"), f"sex = {sex!r}: use F (women) or M (men)", 'sex = "F"')
        out.append(
            PrizeCategory(
                name,
                _amounts(check, raw, where),
                rating_from=check.get_int(raw, "rating_from", where, minimum=0, example=1800),
                rating_below=check.get_int(raw, "rating_below", where, minimum=1, example=2000),
                sex=sex,
                born_from=check.get_int(raw, "born_from", where, minimum=1900, example=2009),
                born_until=check.get_int(raw, "born_until", where, minimum=1900, example=1965),
                federation=check.get_str(raw, "federation", where, example="ESP").upper(),
                players=players,
            )
        )
    return out


def _flag(
    check: TomlReader, table: dict[str, Any], key: str, at: KeyPath, *, default: bool
) -> bool:
    value = table.get(key, default)
    if not isinstance(value, bool):
        check.error(
            (*at, key), f"{key} must be true or false, got {value!r}", f"write {key} = true"
        )
        return default
    return value


def _amount(
    check: TomlReader, table: dict[str, Any], key: str, at: KeyPath, *, maximum: float | None
) -> float | None:
    value = table.get(key)
    if value is None:
        return None
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or value < 0
        or (maximum is not None and value > maximum)
    ):
        bound = f" and at most {maximum:g}" if maximum is not None else ""
        check.error(
            (*at, key), f"{key} must be a number >= 0{bound}, got {value!r}", f"write {key} = 15"
        )
        return None
    return float(value)


def _retention(check: TomlReader, table: dict[str, Any], at: KeyPath) -> TaxRetention | None:
    raw = check.get_table(table, "retention", at)
    if raw is None:
        return None
    here: KeyPath = (*at, "retention")
    check.unknown_keys(raw, RETENTION_KEYS, here)
    above = _amount(check, raw, "above", here, maximum=None)
    rate = _amount(check, raw, "rate", here, maximum=100)
    foreign = _amount(check, raw, "foreign_rate", here, maximum=100)
    federation = check.get_str(raw, "federation", here, example="ESP").upper()
    if rate is None:
        check.error(here, "a retention needs rate = the percent retained", "write rate = 15")
        return None
    if foreign is not None and not federation:
        check.error(
            (*here, "foreign_rate"),
            "foreign_rate needs federation = the home federation (whose players pay rate)",
            'write federation = "ESP"',
        )
    basis = check.get_choice(raw, "applies_to", here, RETENTION_BASES, default="each-prize")
    return TaxRetention(above or 0.0, rate, foreign, federation, cast(RetentionBasis, basis))


def describe_rules(section: SectionConfig) -> list[str]:
    """Lines for `boardwire check`: what the section's regulation tables say."""
    lines: list[str] = []
    rules = section.no_shows
    if rules.first_round == "exclude":
        lines.append("  absent in round 1: excluded from the event")
    if rules.single_absence == "disqualify-unless-continue":
        lines.append(
            "  any absence disqualifies unless the player asks to continue in time (in "
            "writing, before the next round is paired: desk 'Player asks to continue')"
        )
    if section.no_show_limit is not None and rules.on_limit == "withdraw":
        lines.append("  reaching the no-show limit withdraws the player at once")
    if section.system == "swiss":
        points = section.late_entries.missed_round_points
        lines.append(
            f"  late entries: {points:g} points per missed round "
            + ("(half-point byes, H)" if points else "(Z)")
            + ", paired from the round they join; desk 'Late entry'"
        )
    if section.system != "swiss":
        games = {
            "forfeit": "forfeits won by the opponents (shown on every page and in PGN/TRF)",
            "remove": "removed from the pairings, pages and PGN",
        }[section.withdrawal.remaining_games]
        lines.append(f"  a withdrawn player's later games: {games}")
        if section.withdrawal.under_half == "leave-out":
            lines.append(
                "  a player who leaves having played under half of their games: their "
                "results and those against them are left out of the standings (FIDE C.06)"
            )
    if section.playoff is not None:
        p = section.playoff
        lines += [
            f"  tie for first: undecided until played off: two players play {p.games} games "
            f"at {p.time_control} ({spell_time_control(p.time_control)}), then an Armageddon "
            f"{p.armageddon_time_control} ({spell_time_control(p.armageddon_time_control)}; "
            f"a draw: {p.armageddon_draw_winner} wins)",
            f"    three or more: leagues at {p.time_control} until one or two are left; the "
            "arbiter pairs each game (desk 'Pair play-off game') on the section's boards",
        ]
    if section.prizes is not None:
        places = ", ".join(f"{a:g}" for a in section.prizes.places) or "none"
        pools = ", ".join(f"{p.amount:g} by {p.split}" for p in section.prizes.pools)
        ties = {
            "share": "players level after every tie-break share",
            "share-points": "players level on points share",
            "tiebreak": "the tie-breaks decide, no sharing",
        }[section.prizes.ties]
        lines.append(
            f"  prizes ({section.prizes.currency}): places {places}, ties {section.prizes.ties}"
            + (f", pools {pools}" if pools else "")
            + f" ({ties})"
        )
        prizes = section.prizes
        if prizes.pools:
            counted = "count" if prizes.forfeit_wins else "do not count"
            lines.append(f"    forfeit wins {counted} as victories for the pools")
        if prizes.eliminated_lose_prizes:
            goes = (
                "it is not awarded"
                if prizes.withheld == "not-awarded"
                else "it passes to the next eligible player"
            )
            lines.append(f"    a player eliminated by the no-show rules loses any prize ({goes})")
        for category in prizes.categories:
            amounts = ", ".join(f"{a:g}" for a in category.places)
            lines.append(f"    category {category.name}: {amounts}")
        if prizes.categories:
            rule = (
                "one prize per player, the larger one"
                if prizes.one_prize_per_player
                else "a player may win several"
            )
            lines.append(
                f"    {rule}" + (f"; order {', '.join(prizes.order)}" if prizes.order else "")
            )
        tax = prizes.retention
        if tax is not None:
            foreign = (
                f", {tax.foreign_rate:g}% for players not of {tax.federation}"
                if tax.foreign_rate is not None
                else ""
            )
            basis = "each prize on its own" if tax.applies_to == "each-prize" else "the total"
            lines.append(f"    tax retention above {tax.above:g} ({basis}): {tax.rate:g}%{foreign}")
    return lines
