"""Writing the published files: each one replaced in one step."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: str | Path, text: str, *, mode: int = 0o644) -> None:
    """Replace `path` in one step, so a reader never sees half a file.

    The file gets `mode` (mkstemp would leave it 0600, unreadable to a web server or an
    uploader running as another user)."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


__all__ = ["write_atomically"]
