"""FIDE Dutch pairings in a worker process, so that a big Swiss never stalls the venue.

The Dutch engine is pure Python and grows steeply: a 2,000-player round takes tens of
seconds. Run on the event loop it stops everything for that long (boards, journal, every
page); run in a thread it holds the interpreter's lock, and the loop, which must take the
lock back after each socket call, crawls. So it runs in a process of its own: the loop
hands it the section's crosstable (a value), goes on serving the boards, and publishes
the pairings when they come back. The request that asked waits for them (the desk's
form, the API's POST); nothing else does.

One round at a time per section and round: asking again while it is being paired is
refused (409 in the API). When the section changed meanwhile (a result entered), the
pairings are refused too: they were made from results that are no longer the section's.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from broadcast.service import ActionError, EventService
from broadcast.tournament.crosstable import Crosstable
from broadcast.tournament.pairing import Pairing
from broadcast.tournament.state import StateError


class PairingBusy(ActionError):
    """That round is already being paired."""


def _pair(
    crosstable: Crosstable, round_number: int, total_rounds: int, absent: frozenset[int]
) -> tuple[Pairing, ...] | str:
    """In the worker: the pairings, or why there are none (PairingError's message)."""
    from broadcast.tournament.dutch import PairingError, pair_round

    try:
        return pair_round(crosstable, round_number, total_rounds=total_rounds, absent=absent)
    except PairingError as exc:
        return str(exc)


class PairingWorker:
    """Pairs rounds in one worker process (started at the first pairing, kept after)."""

    def __init__(self) -> None:
        self._pool: ProcessPoolExecutor | None = None
        self._running: set[tuple[str, int]] = set()

    def _executor(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # spawn, not fork: the service has threads (the journal's fsync, the web's
            # answers), and a forked child could inherit one of their locks held.
            self._pool = ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn"))
        return self._pool

    async def dutch(
        self, service: EventService, section: str, round_number: int
    ) -> tuple[Pairing, ...]:
        """FIDE Dutch pairings for a round from the results so far (as
        `EventService.dutch_pairings`), made in the worker process."""
        try:
            state = service.tournament.section(section)
        except StateError as exc:
            raise ActionError(str(exc)) from None
        key = (section, round_number)
        if key in self._running:
            raise PairingBusy(f"round {round_number} of {section} is being paired already: wait")
        self._running.add(key)
        try:
            crosstable = state.to_crosstable()
            absent = state.absent_for(round_number)
            loop = asyncio.get_running_loop()
            try:
                result = await loop.run_in_executor(
                    self._executor(), _pair, crosstable, round_number, state.config.rounds, absent
                )
            except BrokenProcessPool:
                self._pool = None  # a new worker next time
                raise ActionError("the pairing worker stopped: try again") from None
        finally:
            self._running.discard(key)
        if isinstance(result, str):
            raise ActionError(result)
        if service.tournament.section(section) is not state:
            raise PairingBusy(
                f"{section} changed while round {round_number} was being paired (a result "
                "or a bye came in): pair it again"
            )
        return result

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
