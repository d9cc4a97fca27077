"""`serve`'s parsed arguments for in-process tests: the Pamplona example, a journal in
`tmp_path`, loopback, a free port, no boards, no delay."""

from __future__ import annotations

import argparse
from pathlib import Path

from tests.support.paths import ROOT

EVENT = ROOT / "examples" / "pamplona-masters.toml"


def serve_args(tmp_path: Path) -> argparse.Namespace:
    return argparse.Namespace(
        event=EVENT,
        db=tmp_path / "j.sqlite",
        host="127.0.0.1",
        port=0,
        board=[],
        sim=False,
        speed=1.0,
        games=None,
        round=1,
        delay=0.0,
    )
