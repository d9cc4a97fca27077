"""docs/cli.md, which the README calls the list of every command and option, against the
argparse parser: every subcommand has its section and its row in the commands table,
every option of a subcommand is named in its section, and the usage block of a section
names no option the command does not take."""

from __future__ import annotations

import argparse
import re

import pytest

from broadcast.cli import build_parser
from tests.support.paths import ROOT

DOC = ROOT / "docs" / "cli.md"
TEXT = DOC.read_text(encoding="utf-8")
PARSER = build_parser()
COMMANDS: dict[str, argparse.ArgumentParser] = next(
    a.choices for a in PARSER._actions if isinstance(a, argparse._SubParsersAction)
)
# `## \`boardwire NAME ...\`` up to the next `## ` heading
SECTIONS = {
    m.group(1): m.group(2)
    for m in re.finditer(r"^## `boardwire (\w+)[^`]*`\n(.*?)(?=^## |\Z)", TEXT, re.S | re.M)
}
OPTION = re.compile(r"(?<![\w-])(--?[a-z][\w-]*)")


def options(parser: argparse.ArgumentParser) -> set[str]:
    return {o for a in parser._actions for o in a.option_strings if o not in ("-h", "--help")}


def named(option: str, text: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(option)}(?![\w-])", text) is not None


def test_every_command_has_a_section_and_a_row_and_nothing_else_does() -> None:
    assert sorted(SECTIONS) == sorted(COMMANDS)
    table = re.findall(r"^\| \[`(\w+)`\]\(#", TEXT, re.M)
    assert sorted(table) == sorted(COMMANDS)


def test_the_global_options_are_named_before_the_commands() -> None:
    intro = TEXT.split("\n## ", 1)[0]
    missing = sorted(o for o in options(PARSER) if not named(o, intro))
    assert not missing, f"docs/cli.md's introduction lacks {missing}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_every_option_is_in_the_commands_section(command: str) -> None:
    section = SECTIONS.get(command, "")
    missing = sorted(o for o in options(COMMANDS[command]) if not named(o, section))
    assert not missing, f"docs/cli.md's `boardwire {command}` section lacks {missing}"


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_usage_block_names_only_options_the_command_takes(command: str) -> None:
    usage = re.match(r"\s*```\n(.*?)```", SECTIONS.get(command, ""), re.S)
    assert usage is not None, f"docs/cli.md's `boardwire {command}` section has no usage block"
    takes = options(COMMANDS[command]) | options(PARSER)
    stale = sorted({o for o in OPTION.findall(usage.group(1)) if o not in takes})
    assert not stale, f"`boardwire {command}` takes no {stale} (docs/cli.md's usage block)"
