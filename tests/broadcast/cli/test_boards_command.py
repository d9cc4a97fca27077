"""`boardwire boards` finds emulated boards the way it finds real ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from boardsim.sim import Simulator
from broadcast.cli.main import _cmd_boards, build_parser


async def test_boards_lists_running_simulators_as_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with Simulator(2, rundir=tmp_path / "single", first_serial=3001):
        async with Simulator(3, bus=True, rundir=tmp_path / "bus", first_serial=4001):
            args = build_parser().parse_args(["boards", "--json"])
            assert await _cmd_boards(args) == 0
    rows = json.loads(capsys.readouterr().out)
    found = {r["serial"]: r for r in rows if r.get("serial")}
    assert {"03001", "03002", "04001", "04002", "04003"} <= set(found)
    assert found["03001"]["mode"] == "single" and found["04002"]["mode"] == "bus"
    assert found["04002"]["bus_address"] == 4002
    assert found["03002"]["clock_present"] is True


async def test_boards_port_prints_a_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    async with Simulator(1, rundir=tmp_path / "one", first_serial=5001, register=False) as sim:
        args = build_parser().parse_args(["boards", "--port", sim.devices[0].path])
        assert await _cmd_boards(args) == 0
    out = capsys.readouterr().out
    assert "SERIAL" in out and "05001" in out and "single" in out


async def test_boards_port_with_nothing_there_fails_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = build_parser().parse_args(["boards", "--port", str(tmp_path / "missing")])
    assert await _cmd_boards(args) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no such port" in err
