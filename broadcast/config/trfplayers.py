"""Player lists from a TRF-16 file (as Vega or Swiss-Manager export them), through
the tournament TRF reader; only the player data is used, not the rounds."""

from __future__ import annotations

from typing import Any

from broadcast.fide.trf import read_trf


def read_trf_players(text: str) -> list[tuple[int | None, dict[str, Any]]]:
    """(line, player fields) for every 001 line; raises ValueError (TrfError) if the
    file cannot be read."""
    file = read_trf(text)
    lines = [i for i, line in enumerate(text.splitlines(), start=1) if line.startswith("001")]
    out: list[tuple[int | None, dict[str, Any]]] = []
    for index, player in enumerate(file.crosstable.players):
        values: dict[str, Any] = {"number": player.start, "name": player.name}
        if player.rating:
            values["rating"] = player.rating
        if player.fide_id:
            values["fide_id"] = str(player.fide_id)
        for key in ("federation", "title", "sex", "birth"):
            value = getattr(player, key)
            if value:
                values[key] = value
        out.append((lines[index] if index < len(lines) else None, values))
    return out
