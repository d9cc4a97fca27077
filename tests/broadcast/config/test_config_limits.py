"""Event config against hostile or sloppy files: nesting, huge strings, counts, encodings,
control characters. Each is one clear ConfigError, never a crash or a runaway."""

from __future__ import annotations

from pathlib import Path

import pytest

from broadcast.config import ConfigError, load_event, load_event_text
from broadcast.config.reader import MAX_ENTRIES, MAX_STRING
from broadcast.text import clean_text
from tests.broadcast.config.test_loader import GOOD


def _messages(text: str, path: Path) -> str:
    with pytest.raises(ConfigError) as info:
        load_event_text(text, path)
    return str(info.value)


def test_deeply_nested_arrays_are_one_error(tmp_path: Path) -> None:
    text = GOOD.replace('site = "Somewhere"', "site = " + "[" * 5000 + "]" * 5000)
    assert "nested too deeply" in _messages(text, tmp_path / "e.toml")


def test_a_huge_player_name_is_refused(tmp_path: Path) -> None:
    text = GOOD.replace('name = "Alpha, Ann"', f'name = "{"A" * 1_000_000}"')
    assert f"at most {MAX_STRING} characters" in _messages(text, tmp_path / "e.toml")


def test_a_file_beyond_the_size_limit_is_not_read(tmp_path: Path) -> None:
    file = tmp_path / "e.toml"
    file.write_text(GOOD + "#" * (9 * 1024 * 1024))
    with pytest.raises(ConfigError, match="larger than"):
        load_event(file)


def test_a_folder_as_config_is_one_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="folder"):
        load_event(tmp_path)


def test_too_many_entries(tmp_path: Path) -> None:
    boards = "".join(
        f'\n[[board]]\nnumber = {n}\nport = "/dev/x{n}"\nsection = "Open"\n'
        for n in range(3, MAX_ENTRIES + 10)
    )
    assert f"at most {MAX_ENTRIES}" in _messages(GOOD + boards, tmp_path / "e.toml")


def _csv_event(tmp_path: Path, data: bytes) -> Path:
    (tmp_path / "players.csv").write_bytes(data)
    start = GOOD.index("[[section.player]]")
    end = GOOD.index("[[board]]")
    text = GOOD[:start] + GOOD[end:]
    text = text.replace("no_show_limit = 2", 'no_show_limit = 2\nplayers_csv = "players.csv"')
    file = tmp_path / "e.toml"
    file.write_text(text)
    return file


def test_a_latin1_players_csv_is_read(tmp_path: Path) -> None:
    data = 'number,name,rating\n1,"Ibáñez, Iñigo",2300\n2,"Müller, Jörg",2200\n'
    event = load_event(_csv_event(tmp_path, data.encode("latin-1")))
    assert [p.name for p in event.sections[0].players] == ["Ibáñez, Iñigo", "Müller, Jörg"]


def test_a_utf8_players_csv_with_bom_is_read(tmp_path: Path) -> None:
    data = 'number,name\n1,"Ibáñez, Iñigo"\n2,"Beta, Bob"\n'
    event = load_event(_csv_event(tmp_path, data.encode("utf-8-sig")))
    assert event.sections[0].players[0].name == "Ibáñez, Iñigo"


def test_a_csv_field_beyond_the_csv_limit_is_one_error(tmp_path: Path) -> None:
    data = b'number,name\n1,"' + b"x" * 200_000 + b'"\n'
    with pytest.raises(ConfigError) as info:
        load_event(_csv_event(tmp_path, data))
    assert "CSV" in str(info.value) or "characters" in str(info.value)


def test_control_characters_in_names_are_stripped(tmp_path: Path) -> None:
    text = GOOD.replace('name = "Alpha, Ann"', 'name = "Alpha\\u001b[31m, Ann\\u202e"')
    text = text.replace('name = "Test Open"', 'name = "Test\\u0007 Open"')
    event = load_event_text(text, tmp_path / "e.toml")
    assert event.name == "Test  Open"
    names = [p.name for p in event.sections[0].players]
    assert names[0] == "Alpha [31m, Ann"
    assert not any(ord(c) < 32 for n in names for c in n)
    data = 'number,name\n1,"Evil\x1b]0;pwned\x07, Eve"\n2,"Beta, Bob"\n'
    csv_event = load_event(_csv_event(tmp_path, data.encode()))
    assert "\x1b" not in csv_event.sections[0].players[0].name


def test_clean_text_keeps_letters() -> None:
    assert clean_text("  Ibáñez, Iñigo ") == "Ibáñez, Iñigo"
    assert clean_text("a\tb\nc\x00") == "a b c"
