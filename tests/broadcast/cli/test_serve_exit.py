"""`serve`'s exit code (the one `run_event` wiring, shared with `demo`): 0 when stopped,
even after a task failed and was restarted by the supervisor; non-zero when something
fatal happened (the service itself raised, board events not written to the journal)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from broadcast.cli import serve as cli_serve
from broadcast.service.event_service import EventService
from broadcast.service.supervisor import Backoff
from tests.support.serve_args import serve_args


async def _serve_until(tmp_path: Path, then: object) -> int:
    up: asyncio.Future[EventService] = asyncio.get_running_loop().create_future()
    serving = asyncio.ensure_future(
        cli_serve.serve(serve_args(tmp_path), credentials=None, started=up.set_result)
    )
    try:
        service = await asyncio.wait_for(asyncio.shield(up), 60)
        assert callable(then)
        await then(service)
        return await asyncio.wait_for(serving, 30)
    finally:
        serving.cancel()
        await asyncio.gather(serving, return_exceptions=True)


@pytest.mark.expected_log(r"the flaky task stopped: RuntimeError: once")
async def test_a_task_restarted_by_the_supervisor_is_not_fatal(tmp_path: Path) -> None:
    async def then(service: EventService) -> None:
        service.supervisor.backoff = Backoff(first=0.01, longest=0.01, healthy_after=0.05)
        runs: list[int] = []

        async def flaky() -> None:
            runs.append(1)
            if len(runs) == 1:
                raise RuntimeError("once")
            await asyncio.Event().wait()

        service.supervisor.start("the flaky task", flaky, stops="nothing")
        while len(runs) < 2:
            await asyncio.sleep(0.01)
        service.stop()

    assert await _serve_until(tmp_path, then) == 0


@pytest.mark.expected_log(r"the event stopped on an error")
async def test_the_service_raising_is_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def broken(self: EventService) -> None:
        await asyncio.sleep(0.05)
        raise RuntimeError("the runtime broke")

    monkeypatch.setattr(EventService, "run", broken)

    async def then(service: EventService) -> None:
        pass

    assert await _serve_until(tmp_path, then) == 1
    assert "the event stopped on an error" in capsys.readouterr().err


async def test_events_left_unwritten_are_fatal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    async def then(service: EventService) -> None:
        monkeypatch.setattr(type(service.journal), "unwritten", property(lambda self: 3))
        service.stop()

    assert await _serve_until(tmp_path, then) == 1
    assert "3 event(s) could not be written to the journal" in capsys.readouterr().err
