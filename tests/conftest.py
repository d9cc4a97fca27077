"""Shared fixtures."""

from __future__ import annotations

import pytest
from support import EventLog


@pytest.fixture
def event_log() -> EventLog:
    return EventLog()
