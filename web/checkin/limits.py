"""How many wrong codes the table pages take, so that guessing a round's code stays
hopeless (`web.checkin.codes`: about 1e9 codes).

Per client (its address; behind a trusted proxy the forwarded one, `web.proxy`): a burst
of `PER_CLIENT_BURST` wrong codes, then one every `60 / PER_CLIENT_PER_MINUTE` seconds.
All clients together: `GLOBAL_PER_SECOND` wrong codes a second (a spray from many
addresses), in bursts of `GLOBAL_BURST`. While a client (or everybody) is held, even the
right code is refused with 429 and Retry-After, so that no guess is ever confirmed to the
party that is held. A hall's phones behind one address share its allowance; a player who
scanned the QR code never types one. Pure apart from the clock (passed in).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable

from web.limits import TokenBucket

__all__ = [
    "GLOBAL_BURST",
    "GLOBAL_PER_SECOND",
    "PER_CLIENT_BURST",
    "PER_CLIENT_PER_MINUTE",
    "CodeLimits",
]

PER_CLIENT_BURST = 10
PER_CLIENT_PER_MINUTE = 10
GLOBAL_BURST = 200
GLOBAL_PER_SECOND = 2.0
MAX_CLIENTS = 10_000  # the clients remembered (the quietest go first): bounded memory


class CodeLimits:
    """Wrong codes, counted per client and overall (`now`: monotonic seconds)."""

    def __init__(self, now: Callable[[], float] = time.monotonic) -> None:
        self.now = now
        self.everyone = TokenBucket(GLOBAL_PER_SECOND, GLOBAL_BURST, now)
        self.clients: OrderedDict[str, TokenBucket] = OrderedDict()

    def _bucket(self, client: str) -> TokenBucket | None:
        return self.clients.get(client)

    def wait(self, client: str) -> float:
        """Seconds before `client` may try a code (0: now)."""
        own = self._bucket(client)
        waits = [self.everyone.wait(), own.wait() if own is not None else 0.0]
        return max(waits)

    def wrong(self, client: str) -> None:
        """`client` typed a wrong code: it counts against it and against everybody."""
        own = self._bucket(client)
        if own is None:
            own = TokenBucket(PER_CLIENT_PER_MINUTE / 60.0, PER_CLIENT_BURST, self.now)
            self.clients[client] = own
            while len(self.clients) > MAX_CLIENTS:
                self.clients.popitem(last=False)
        self.clients.move_to_end(client)
        own.take()
        self.everyone.take()
