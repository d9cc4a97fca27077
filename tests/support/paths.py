"""Where the repository's folders are, for tests anywhere under tests/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the repository
TESTS = ROOT / "tests"
DATA = TESTS / "data"
EXAMPLES = ROOT / "examples"
