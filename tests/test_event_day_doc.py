"""docs/event-day.md's commands with the doc's own example password ('a long passphrase'):
every curl in its shell blocks, run by bash with curl and jq standing in, sends the
password as one argument."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import ROOT

DOC = ROOT / "docs" / "event-day.md"
PASSWORD = "a long passphrase"
BLOCKS = re.findall(r"```sh\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)

# curl records its arguments, one per line, in a file of its own (a piped curl runs in a
# subshell); jq swallows its input
STANDINS = """
curl() { printf '%s\\n' "$@" > "$(mktemp "$OUT/curl-XXXXXX")"; printf '[]'; }
jq() { cat > /dev/null; }
"""


def test_the_doc_has_the_password_and_curl_blocks() -> None:
    text = DOC.read_text(encoding="utf-8")
    assert f"BOARDWIRE_ARBITER_PASSWORD='{PASSWORD}'" in text
    assert sum("curl" in b for b in BLOCKS) >= 3


@pytest.mark.parametrize("block", [b for b in BLOCKS if "curl" in b])
def test_every_curl_sends_a_password_with_spaces_whole(block: str, tmp_path: Path) -> None:
    subprocess.run(
        ["bash", "-c", STANDINS + block],
        env={"BOARDWIRE_ARBITER_PASSWORD": PASSWORD, "OUT": str(tmp_path), "PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    calls = sorted(tmp_path.glob("curl-*"))
    assert len(calls) == len(re.findall(r"\bcurl ", block)), block
    for call in calls:
        args = call.read_text().splitlines()
        assert "-u" in args, args
        assert args[args.index("-u") + 1] == f"arbiter:{PASSWORD}", args
