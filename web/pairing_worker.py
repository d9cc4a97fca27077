"""FIDE Dutch pairings in a worker process, so that a big Swiss never stalls the venue.

The Dutch engine (`broadcast.fide.dutch_engine`) is pure Python: about a second for a
300-player round (docs/performance.md), more for a bigger open. Run on the event loop it
stops everything for that long (boards, journal, every page); run in a thread it holds the
interpreter's lock, and the loop, which must take the lock back after each socket call,
slows down. So it runs in a process of its
own (`web.pairing_job`, a fresh interpreter): the loop hands it the section's crosstable
(a value), goes on serving the boards, and publishes the pairings when they come back. The request that asked waits for them (the desk's
form, the API's POST); nothing else does.

One round at a time per section and round: asking again while it is being paired is
refused (409 in the API). When the section changed meanwhile (a result entered), the
pairings are refused too: they were made from results that are no longer the section's.
"""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import sys
from typing import Any

from broadcast.actions.pairings import check_results_in, pairing_options
from broadcast.fide.pairing import Pairing
from broadcast.service.event_service import ActionError, EventService
from broadcast.tournament.state import StateError


class PairingBusy(ActionError):
    """That round is already being paired."""


class PairingWorker:
    """Pairs rounds in a worker process of their own (`python -m web.pairing_job`)."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, int], asyncio.subprocess.Process | None] = {}

    async def dutch(
        self, service: EventService, section: str, round_number: int, *, override: bool = False
    ) -> tuple[Pairing, ...]:
        """FIDE Dutch pairings for a round from the results so far (as
        `broadcast.actions.pairings.dutch_pairings`), made in the worker process; refused
        at once while a round before it has games without a result, unless `override`."""
        try:
            state = service.tournament.section(section)
        except StateError as exc:
            raise ActionError(str(exc)) from None
        check_results_in(state, round_number, override=override)
        key = (section, round_number)
        if key in self._running:
            raise PairingBusy(f"round {round_number} of {section} is being paired already: wait")
        self._running[key] = None
        try:
            job = {
                "crosstable": state.to_crosstable(),
                "round": round_number,
                "options": pairing_options(state, round_number),
            }
            kind, value = await self._run(key, pickle.dumps(job))
        finally:
            del self._running[key]
        if kind != "ok":
            raise ActionError(str(value))
        if service.tournament.section(section) is not state:
            raise PairingBusy(
                f"{section} changed while round {round_number} was being paired (a result "
                "or a bye came in): pair it again"
            )
        return tuple(value)

    async def _run(self, key: tuple[str, int], job: bytes) -> tuple[str, Any]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "web.pairing_job",
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        self._running[key] = process
        try:
            out, err = await process.communicate(job)
        except BaseException:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()
            raise
        if process.returncode != 0:
            last = err.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no message"]
            raise ActionError(f"the pairing worker failed: {last[0][:200]}")
        outcome: tuple[str, Any] = pickle.loads(out)  # our own child's answer
        return outcome

    def close(self) -> None:
        """Stop pairings still running (the server stops)."""
        for process in self._running.values():
            if process is not None and process.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    process.kill()


__all__ = ["PairingBusy", "PairingWorker"]
