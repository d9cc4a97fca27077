"""Table numbers: one number names a table of the hall everywhere.

A round's games are placed by their pairing board inside a section (board 1 is the top
game). The hall numbers its tables across sections: each section plays on the tables
`first_table .. first_table + n - 1`, so in a four-section event the Kutxa section's
board 2 is table 17, on the desk, in alerts, on the pages and on the printed sheets.

A section's first table is its `first_table` in the event file; without it, the section
follows the tables of the section before it in the file (the first one starts at table 1).
A section takes as many tables as it has games when everyone plays (half its players,
rounded down: a bye has no table), or as many as it has hall boards without a `table`,
whichever is more. A single section without `first_table` plays on tables 1, 2, ...:
its tables are its boards.

A hall board (`[[board]]`) stands on its `table`; without one, the k-th hall board of a
section (in number order, among those without a `table`) stands on the section's k-th
table, so it carries pairing board k. The board's `number` names the e-board itself (its
label, its place on a bus); where it stands is its table. Tables with no e-board simply
have none: their games are played on the scoresheet.

`table_problems` is what the loader refuses: sections whose tables overlap, two hall
boards on one table, and a hall board on a table that is not its section's (the table of
another section, or one before its section's first). A table past the last game of its
section (before the next section's tables) is its section's: a Swiss with late entries
grows into it, and a board there simply carries nothing until it does.
"""

from __future__ import annotations

from dataclasses import dataclass

from broadcast.config.model import BoardConfig, EventConfig, SectionConfig

__all__ = [
    "TableProblem",
    "board_at_table",
    "board_table",
    "first_tables",
    "hall_board_at",
    "section_tables",
    "table_label",
    "table_of",
    "table_problems",
    "tables_are_boards",
]


@dataclass(frozen=True, slots=True)
class _Layout:
    """Everything the functions here answer, computed once per config."""

    firsts: dict[str, int]  # section -> first table, in the event's section order
    sizes: dict[str, int]  # section -> tables it takes
    boards: dict[int, int]  # hall board number -> its table
    at_table: dict[int, BoardConfig]  # table -> the hall board on it (the first, if two)


def _own_boards(event: EventConfig, section: SectionConfig) -> list[BoardConfig]:
    return sorted((b for b in event.boards if b.section == section.name), key=lambda b: b.number)


def _layout(event: EventConfig) -> _Layout:
    firsts: dict[str, int] = {}
    sizes: dict[str, int] = {}
    boards: dict[int, int] = {}
    following = 1
    for section in event.sections:
        own = _own_boards(event, section)
        placed = [b for b in own if b.table is None]
        first = section.first_table if section.first_table is not None else following
        size = max(len(section.players) // 2, len(placed), 1)
        firsts[section.name], sizes[section.name] = first, size
        for k, board in enumerate(placed):
            boards[board.number] = first + k
        for board in own:
            if board.table is not None:
                boards[board.number] = board.table
        following = max(following, first + size)
    # A board of a section the config does not have (a hand-built config): its own table.
    for board in event.boards:
        boards.setdefault(board.number, board.table if board.table is not None else board.number)
    at_table: dict[int, BoardConfig] = {}
    for board in sorted(event.boards, key=lambda b: b.number):
        at_table.setdefault(boards[board.number], board)
    return _Layout(firsts, sizes, boards, at_table)


# Keyed by identity: a config is immutable and hashing one (every player) per lookup would
# cost more than the lookup; the config is kept alive beside its answer, so its id is not
# reused while the entry stands.
_KNOWN: dict[int, tuple[EventConfig, _Layout]] = {}


def _of(event: EventConfig) -> _Layout:
    known = _KNOWN.get(id(event))
    if known is not None and known[0] is event:
        return known[1]
    layout = _layout(event)
    if len(_KNOWN) > 64:
        _KNOWN.clear()
    _KNOWN[id(event)] = (event, layout)
    return layout


def first_tables(event: EventConfig) -> dict[str, int]:
    """Each section's first table, in the event's section order."""
    return dict(_of(event).firsts)


def table_of(event: EventConfig, section: str, board: int) -> int:
    """The hall table of a section's pairing board (a section the config does not name
    starts at table 1)."""
    return _of(event).firsts.get(section, 1) + board - 1


def board_at_table(event: EventConfig, table: int) -> tuple[str, int] | None:
    """The section and pairing board played at a table, or None when no section starts
    at or before it (the section whose range holds the table, latest start first: a table
    past a section's games, before the next section's first, is still the section's)."""
    firsts = _of(event).firsts
    candidates = [(first, name) for name, first in firsts.items() if first <= table]
    if not candidates:
        return None
    first, name = max(candidates)
    return name, table - first + 1


def section_tables(event: EventConfig, section: str, boards: int) -> range:
    """The tables a section's `boards` games of a round stand on."""
    first = _of(event).firsts.get(section, 1)
    return range(first, first + boards)


def board_table(event: EventConfig, board: BoardConfig | int) -> int:
    """The table a hall board stands on (by its config or its number)."""
    number = board if isinstance(board, int) else board.number
    table = _of(event).boards.get(number)
    if table is not None:
        return table
    return number if isinstance(board, int) or board.table is None else board.table


def hall_board_at(event: EventConfig, table: int) -> BoardConfig | None:
    """The hall board standing on a table, or None (most tables have no e-board)."""
    return _of(event).at_table.get(table)


def tables_are_boards(event: EventConfig) -> bool:
    """Every section's table is its pairing board (one section from table 1): the pages
    then say "Board 4" as ever; otherwise they say the table."""
    return all(first == 1 for first in _of(event).firsts.values()) and len(event.sections) <= 1


def table_label(event: EventConfig, section: str, board: int) -> str:
    """How a game's place is said to people: "Table 17" (in English; translated where
    shown)."""
    return f"Table {table_of(event, section, board)}"


@dataclass(frozen=True, slots=True)
class TableProblem:
    """A contradiction in the config's tables: where it is (a section's `first_table`, or
    a board's `table` or `number` when its table was not written), what, and a hint."""

    section: str | None
    board: int | None
    key: str
    message: str
    hint: str


def table_problems(event: EventConfig) -> list[TableProblem]:
    """Sections whose tables overlap, two hall boards on one table, a hall board on a
    table that is not its section's. Empty for a config that is consistent."""
    layout = _of(event)
    out: list[TableProblem] = []
    ranges = [(layout.firsts[s.name], layout.sizes[s.name], s) for s in event.sections]
    for i, (first, size, section) in enumerate(ranges):
        for other_first, other_size, other in ranges[:i]:
            if first < other_first + other_size and other_first < first + size:
                out.append(_overlap(section, first, size, other, other_first, other_size))
                break
    seen: dict[int, BoardConfig] = {}
    for board in sorted(event.boards, key=lambda b: b.number):
        table = layout.boards[board.number]
        key = "table" if board.table is not None else "number"
        if table in seen:
            out.append(
                TableProblem(
                    None,
                    board.number,
                    key,
                    f"board {board.number} and board {seen[table].number} both stand on "
                    f"table {table}",
                    "one e-board per table: give one of them another `table = N`",
                )
            )
            continue
        seen[table] = board
        if board.section not in layout.firsts:
            continue  # its unknown section is reported on its own
        place = board_at_table(event, table)
        if place is None or place[0] != board.section:
            first = layout.firsts[board.section]
            whose = f"{place[0]!r}'s (its board {place[1]})" if place else "no section's"
            out.append(
                TableProblem(
                    None,
                    board.number,
                    key,
                    f"board {board.number} of {board.section!r} stands on table {table}, "
                    f"which is {whose}",
                    f"{board.section!r} plays from table {first} "
                    f"(tables {first}..{first + layout.sizes[board.section] - 1}): "
                    "give the board one of them as `table = N`, or the section another "
                    "first_table",
                )
            )
    return out


def _overlap(
    section: SectionConfig,
    first: int,
    size: int,
    other: SectionConfig,
    other_first: int,
    other_size: int,
) -> TableProblem:
    # Only a section with its own first_table lands on earlier tables (one without it
    # follows them all), so the hint is about that first_table.
    hint = (
        f"start {section.name!r} at table {other_first + other_size} or later "
        f"(first_table = {other_first + other_size}), or give {other.name!r} "
        "a first_table clear of it"
    )
    return TableProblem(
        section.name,
        None,
        "first_table",
        f"section {section.name!r} plays on tables {first}..{first + size - 1}, which "
        f"overlap {other.name!r}'s tables {other_first}..{other_first + other_size - 1}",
        hint,
    )
