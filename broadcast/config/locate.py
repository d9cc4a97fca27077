"""Map TOML keys to line numbers.

`tomllib` parses values but forgets where they were, and every config mistake must
be reported with its line. This module scans the (already valid) TOML text once
and records, for every key path, the 1-based line where its value starts.

A key path is a tuple of names and array indexes as they appear in the parsed
document: ``("section", 0, "byes", "max")`` or ``("section", 1, "player", 3)``.
The scanner only runs on text that `tomllib` accepted, so it need not diagnose
syntax errors; it only has to follow strings, brackets and comments correctly.
"""

from __future__ import annotations

__all__ = ["KeyPath", "key_lines", "line_of"]

KeyPath = tuple[str | int, ...]

_BARE_KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.lines: dict[KeyPath, int] = {}
        # Current index of each array of tables, by its path with indexes resolved.
        self.array_counts: dict[KeyPath, int] = {}
        self.array_tables: set[tuple[str, ...]] = set()

    # -- low level -------------------------------------------------------
    def peek(self, n: int = 1) -> str:
        return self.text[self.pos : self.pos + n]

    def advance(self, n: int = 1) -> None:
        chunk = self.text[self.pos : self.pos + n]
        self.line += chunk.count("\n")
        self.pos += n

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def skip_blank(self, newlines: bool) -> None:
        while not self.at_end():
            c = self.text[self.pos]
            if c in " \t\r" or (newlines and c == "\n"):
                self.advance()
            elif c == "#":
                while not self.at_end() and self.text[self.pos] != "\n":
                    self.advance()
            else:
                return

    def skip_to_line_end(self) -> None:
        while not self.at_end() and self.text[self.pos] != "\n":
            self.advance()

    # -- keys --------------------------------------------------------------
    def read_key_part(self) -> str:
        c = self.peek()
        if c == '"':
            return self.read_basic_string()
        if c == "'":
            return self.read_literal_string()
        start = self.pos
        while not self.at_end() and self.text[self.pos] in _BARE_KEY_CHARS:
            self.advance()
        return self.text[start : self.pos]

    def read_dotted_key(self) -> list[str]:
        parts: list[str] = []
        while True:
            self.skip_blank(newlines=False)
            parts.append(self.read_key_part())
            self.skip_blank(newlines=False)
            if self.peek() == ".":
                self.advance()
                continue
            return parts

    # -- strings -------------------------------------------------------------
    def read_basic_string(self) -> str:
        if self.peek(3) == '"""':
            self.advance(3)
            start = self.pos
            while not self.at_end():
                if self.peek() == "\\":
                    self.advance(2)
                elif self.peek(3) == '"""':
                    # Up to two quotes may end the content right before the delimiter.
                    while self.peek(4) == '""""':
                        self.advance()
                    end = self.pos
                    self.advance(3)
                    return self.text[start:end]
                else:
                    self.advance()
            return self.text[start:]
        self.advance()
        out: list[str] = []
        while not self.at_end() and self.peek() != '"':
            if self.peek() == "\\":
                out.append(self.peek(2))
                self.advance(2)
            else:
                out.append(self.peek())
                self.advance()
        self.advance()
        return "".join(out)

    def read_literal_string(self) -> str:
        if self.peek(3) == "'''":
            self.advance(3)
            start = self.pos
            while not self.at_end() and self.peek(3) != "'''":
                self.advance()
            while self.peek(4) == "''''":
                self.advance()
            end = self.pos
            self.advance(3)
            return self.text[start:end]
        self.advance()
        start = self.pos
        while not self.at_end() and self.peek() != "'":
            self.advance()
        end = self.pos
        self.advance()
        return self.text[start:end]

    # -- values ----------------------------------------------------------------
    def read_value(self, path: KeyPath) -> None:
        self.lines.setdefault(path, self.line)
        c = self.peek()
        if c == '"':
            self.read_basic_string()
        elif c == "'":
            self.read_literal_string()
        elif c == "[":
            self.advance()
            index = 0
            while True:
                self.skip_blank(newlines=True)
                if self.peek() == "]":
                    self.advance()
                    return
                self.read_value((*path, index))
                index += 1
                self.skip_blank(newlines=True)
                if self.peek() == ",":
                    self.advance()
        elif c == "{":
            self.advance()
            while True:
                self.skip_blank(newlines=False)
                if self.peek() == "}":
                    self.advance()
                    return
                key_line = self.line
                parts = self.read_dotted_key()
                for depth in range(1, len(parts)):
                    self.lines.setdefault((*path, *parts[:depth]), key_line)
                self.skip_blank(newlines=False)
                self.advance()  # '='
                self.skip_blank(newlines=False)
                self.read_value((*path, *parts))
                self.skip_blank(newlines=False)
                if self.peek() == ",":
                    self.advance()
        else:
            # Numbers, booleans, dates: run to the next delimiter.
            while not self.at_end() and self.peek() not in ",]}\n#":
                self.advance()

    # -- tables ----------------------------------------------------------------
    def resolve(self, parts: list[str]) -> KeyPath:
        """Insert the current index after every array-of-tables prefix."""
        path: list[str | int] = []
        names: list[str] = []
        for part in parts:
            path.append(part)
            names.append(part)
            if tuple(names) in self.array_tables:
                path.append(self.array_counts.get(tuple(path), 0))
        return tuple(path)

    def scan(self) -> dict[KeyPath, int]:
        table: KeyPath = ()
        while True:
            self.skip_blank(newlines=True)
            if self.at_end():
                return self.lines
            line = self.line
            if self.peek(2) == "[[":
                self.advance(2)
                parts = self.read_dotted_key()
                self.advance(2)
                names = tuple(parts)
                parent = (*self.resolve(parts[:-1]), parts[-1])
                self.array_tables.add(names)
                # Counted per parent element: each section's players start again at 0.
                if parent in self.array_counts:
                    self.array_counts[parent] += 1
                else:
                    self.array_counts[parent] = 0
                self.lines.setdefault(parent, line)
                table = self.resolve(parts)
                self.lines.setdefault(table, line)
            elif self.peek() == "[":
                self.advance()
                parts = self.read_dotted_key()
                self.advance()
                table = self.resolve(parts)
                self.lines.setdefault(table, line)
            else:
                parts = self.read_dotted_key()
                for depth in range(1, len(parts)):
                    self.lines.setdefault((*table, *parts[:depth]), line)
                self.skip_blank(newlines=False)
                self.advance()  # '='
                self.skip_blank(newlines=False)
                self.read_value((*table, *parts))
            self.skip_to_line_end()


def key_lines(text: str) -> dict[KeyPath, int]:
    """Line (1-based) of every key path in a TOML document that `tomllib` accepts."""
    return _Scanner(text).scan()


def line_of(lines: dict[KeyPath, int], path: KeyPath) -> int | None:
    """The line of `path`, or of its nearest ancestor that has one (a missing key
    is reported at the table that should have held it)."""
    for end in range(len(path), 0, -1):
        found = lines.get(path[:end])
        if found is not None:
            return found
    return None
