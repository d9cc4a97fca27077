"""`--host`: an empty one (every interface) and malformed names are refused before anything
starts, with one clear message; `serve` says which interfaces it listens on."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from broadcast.cli import main
from broadcast.cli import serve as cli_serve
from broadcast.cli.args import exposure, listen_host
from broadcast.service.event_service import EventService
from tests.support.paths import ROOT
from tests.support.serve_args import serve_args

EVENT = ROOT / "examples" / "pamplona-masters.toml"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    try:
        code = main(argv)
    except SystemExit as exc:
        code = int(exc.code or 0)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "internal error" not in err
    return code, err


@pytest.mark.parametrize("host", ["", " "])
def test_an_empty_host_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    code, err = _run(["serve", str(EVENT), "--host", host, "--db", str(tmp_path / "j")], capsys)
    assert code == 2 and "every interface" in err
    assert not (tmp_path / "j").exists()  # refused before the journal was opened


@pytest.mark.parametrize(
    "host", ["a" * 64 + ".example.org", "x" * 254, "bad_name.example", "-lead.example", "a..b"]
)
def test_a_malformed_host_name_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], host: str
) -> None:
    code, err = _run(["serve", str(EVENT), f"--host={host}", "--db", str(tmp_path / "j")], capsys)
    assert code == 2
    errors = [line for line in err.splitlines() if "error" in line]
    assert len(errors) == 1 and "not an address or a host name" in errors[0]


def test_demo_checks_its_host_too(capsys: pytest.CaptureFixture[str]) -> None:
    code, err = _run(["demo", "--host", ""], capsys)
    assert code == 2 and "every interface" in err


def test_good_hosts_pass() -> None:
    assert listen_host("127.0.0.1") == "127.0.0.1"
    assert listen_host(" 0.0.0.0 ") == "0.0.0.0"
    assert listen_host("[::1]") == "::1"
    assert listen_host("localhost") == "localhost"
    assert listen_host("live-1.example.org.") == "live-1.example.org."
    assert listen_host("a" * 63 + ".example") == "a" * 63 + ".example"


def test_exposure_says_who_can_connect() -> None:
    assert exposure([("127.0.0.1", 8080)]) == "127.0.0.1: this computer only"
    assert "every IPv4 interface" in exposure([("0.0.0.0", 8080)])
    assert "every interface" in exposure([("::", 8080, 0, 0)])
    assert "anyone on its network" in exposure([("192.168.1.5", 8080)])
    both = exposure([("127.0.0.1", 8080), ("::1", 8080, 0, 0)])
    assert both == "127.0.0.1: this computer only; ::1: this computer only"


async def test_serve_prints_which_interfaces_it_listens_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = serve_args(tmp_path)
    up: asyncio.Future[EventService] = asyncio.get_running_loop().create_future()
    serving = asyncio.ensure_future(cli_serve.serve(args, credentials=None, started=up.set_result))
    try:
        service = await asyncio.wait_for(asyncio.shield(up), 60)
        await asyncio.sleep(0.1)
        service.stop()
        assert await asyncio.wait_for(serving, 30) == 0
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)
    assert "listening on 127.0.0.1: this computer only" in capsys.readouterr().out
