"""FIDE Dutch pairings in a worker process, so that a big Swiss never stalls the venue.

The one place a running server pairs a Swiss round: the arbiter desk's form, the API's
POST and `serve --sim`'s rehearsal shortcut all come here (through
`broadcast.actions.pairings.dutch_off_loop`, which checks the section before and after).
It takes plain values, a section's crosstable and `pair_round`'s options, so the service
floor needs nothing of the actions above it.

A process, not a thread. The Dutch engine (`broadcast.fide.dutch`) is pure Python: about
a second for a 300-player round (docs/performance.md), more for a bigger open. On the
event loop it stops everything for that long (boards, journal, every page). In a thread
it holds the interpreter's lock, and the loop gets it back only at each switch interval
(5 ms): measured on a 300-player round, the loop ran a third as often, each turn about
5 ms late (17 ms at worst), against 0.1 ms (3.5 ms at worst) with a process. The process
costs about 0.1 s to start (a fresh interpreter, `broadcast.service.pairing_job`), which
the arbiter who asked waits for, nobody else.

One job per section and round: asking again while it is being paired is refused
(`PairingBusy`, 409 in the API).
"""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import sys
from typing import Any

from broadcast.fide.crosstable import Crosstable
from broadcast.fide.dutch import PairingOptions
from broadcast.fide.pairing import Pairing
from broadcast.phrases import Phrase
from broadcast.service.committer import ActionError

__all__ = ["PairingBusy", "PairingWorker"]

JOB_MODULE = "broadcast.service.pairing_job"


class PairingBusy(ActionError):
    """That round is already being paired (or was paired from a section since changed)."""


class PairingWorker:
    """Pairs rounds in a worker process of their own (`python -m
    broadcast.service.pairing_job`), one at a time per section and round."""

    def __init__(self) -> None:
        self._running: dict[tuple[str, int], asyncio.subprocess.Process | None] = {}

    def busy(self, section: str, round_number: int) -> bool:
        """That round of that section is being paired now."""
        return (section, round_number) in self._running

    async def pair(
        self,
        section: str,
        round_number: int,
        crosstable: Crosstable,
        options: PairingOptions,
    ) -> tuple[Pairing, ...]:
        """FIDE Dutch pairings of `round_number` from `crosstable` (the section's, as a
        value) and `options` (`pair_round`'s), made in the worker process. `PairingBusy`
        while that round is being paired already; `ActionError` with the engine's reason
        when it cannot pair it."""
        key = (section, round_number)
        if key in self._running:
            raise PairingBusy(f"round {round_number} of {section} is being paired already: wait")
        self._running[key] = None
        try:
            job = {"crosstable": crosstable, "round": round_number, "options": options}
            kind, value = await self._run(key, pickle.dumps(job))
        finally:
            del self._running[key]
        if kind != "ok":
            raise ActionError(value if isinstance(value, Phrase) else str(value))
        return tuple(value)

    async def _run(self, key: tuple[str, int], job: bytes) -> tuple[str, Any]:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            JOB_MODULE,
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
