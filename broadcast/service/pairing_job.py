"""The pairing worker's program: `python -m broadcast.service.pairing_job` reads one job
(pickled by `broadcast.service.pairing_worker`, our own process: a trusted pipe) from
stdin, pairs the round with the FIDE Dutch engine and writes the outcome (pickled) to
stdout.

A program of its own rather than `multiprocessing`: a spawned or forkserver child
re-imports the parent's main module (any script that runs a server without a `__main__`
guard would run again), and a forked one inherits the parent's threads' locks.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any


def run(job: dict[str, Any]) -> tuple[str, Any]:
    """("ok", pairings) or ("refused", why: a `Phrase` or English text)."""
    from broadcast.fide.dutch import PairingError, pair_round
    from broadcast.phrases import phrase_of

    try:
        pairings = pair_round(job["crosstable"], job["round"], **job["options"])
    except PairingError as exc:
        return ("refused", phrase_of(exc))  # a Phrase keeps its translation
    return ("ok", pairings)


def main() -> None:
    job = pickle.load(sys.stdin.buffer)
    outcome = run(job)
    sys.stdout.buffer.write(pickle.dumps(outcome))
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()

__all__ = ["main", "run"]
