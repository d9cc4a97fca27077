"""Reaching Redis for `serve --publish` and `mirror --redis`: the URL, the password, and
what to tell the organizer when Redis says no.

A password written in the URL on the command line is readable by every user of the
machine (`ps`, /proc/PID/cmdline). `redis_password` takes it from a file
(`--redis-password-file`, first) or from `BOARDWIRE_REDIS_PASSWORD`; `cli_url_warning`
is the warning for a URL that holds one anyway. Messages never show the password
(`shown`). `redis_problem` turns Redis's own refusals (a key of another type, a wrong
password) into a sentence that names the key or the setting to fix.
"""

from __future__ import annotations

import logging
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from redis import asyncio as aioredis
from redis.exceptions import AuthenticationError, ResponseError

from clocks.errors import BoardwireError

__all__ = [
    "PASSWORD_ENV",
    "PublishUrlError",
    "RedisPasswordError",
    "RedisTarget",
    "check_redis_url",
    "cli_url_warning",
    "is_wrong_type",
    "redis_password",
    "redis_problem",
    "shown",
    "where",
    "wrong_type",
]

log = logging.getLogger(__name__)

PASSWORD_ENV = "BOARDWIRE_REDIS_PASSWORD"


class PublishUrlError(BoardwireError, ValueError):
    """A --publish / mirror --redis URL that is not a Redis URL."""


class RedisPasswordError(BoardwireError, ValueError):
    """A Redis password file that cannot be used (missing, unreadable, empty)."""


def shown(url: str) -> str:
    """`url` as it may be printed: its password (if any) replaced by ***."""
    parts = urlsplit(url)
    if parts.password is None:
        return url[:200]
    user = parts.username or ""
    host = parts.netloc.rsplit("@", 1)[-1]
    return parts._replace(netloc=f"{user}:***@{host}").geturl()[:200]


def where(url: str) -> str:
    """HOST:PORT of a Redis URL (never its password)."""
    parts = urlsplit(url)
    try:
        port = parts.port or 6379
    except ValueError:
        port = 6379
    return f"{parts.hostname}:{port}"


def check_redis_url(url: str) -> str:
    """`url` if it is a redis:// (or rediss://) URL, else PublishUrlError saying why."""
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss") or not parts.hostname:
        raise PublishUrlError(
            f"{shown(url)[:100]!r} is not a Redis URL: write redis://HOST:PORT/DB "
            "(e.g. redis://127.0.0.1:6379/0)"
        )
    try:
        parts.port  # noqa: B018 (a port that is not a number raises here)
    except ValueError:
        raise PublishUrlError(f"{shown(url)[:100]!r}: the port is not a number") from None
    return url


def cli_url_warning(url: str, option: str) -> str | None:
    """The warning for a URL given on the command line with a password in it (None: none)."""
    if urlsplit(url).password is None:
        return None
    return (
        f"{option}: the URL holds the Redis password, which every user of this machine can "
        f"read in the process list; put it in {PASSWORD_ENV} or in a file named with "
        "--redis-password-file, and leave it out of the URL"
    )


def redis_password(file: Path | None, env: Mapping[str, str] = os.environ) -> str | None:
    """The Redis password from `file` (its first line) or else from PASSWORD_ENV; None
    when neither is given. RedisPasswordError for a file that cannot be used."""
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
            mode = file.stat().st_mode
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise RedisPasswordError(
                f"--redis-password-file {file}: cannot be read ({reason})"
            ) from None
        lines = text.splitlines()
        password = lines[0].strip() if lines else ""
        if not password:
            raise RedisPasswordError(f"--redis-password-file {file}: the file is empty")
        if mode & stat.S_IROTH:
            # Said, not refused: the organizer may know the machine has no other users.
            log.warning(
                "--redis-password-file %s can be read by every user of this machine (chmod 600 %s)",
                file,
                file,
            )
        return password
    return env.get(PASSWORD_ENV) or None


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """A Redis URL and the password to use when the URL holds none."""

    url: str
    password: str | None = field(default=None, repr=False)

    def client(self, **options: Any) -> aioredis.Redis:
        # A password in the URL wins over this one (redis-py's rule for from_url).
        return aioredis.Redis.from_url(self.url, password=self.password, **options)

    @property
    def where(self) -> str:
        return where(self.url)


def redis_problem(exc: BaseException, target: str) -> str | None:
    """What to tell the organizer when Redis refuses the password (None: not that; an
    outage or a timeout is said by the caller, a key of another type by `wrong_type`)."""
    text = str(exc)
    # A pipeline's error names its command first: look for Redis's word anywhere.
    words = [w for w in ("WRONGPASS", "NOAUTH") if w in text]
    if isinstance(exc, AuthenticationError) or words:
        return (
            f"Redis at {target} refuses the password ({(words or ['AUTH'])[0]}): set the "
            f"right one in {PASSWORD_ENV} or --redis-password-file"
        )
    return None


def is_wrong_type(exc: BaseException) -> bool:
    return isinstance(exc, ResponseError) and "WRONGTYPE" in str(exc)


def wrong_type(target: str, key: str, held: str, wanted: str) -> str:
    """The message for a key holding another type than boardwire's (someone SET it)."""
    return (
        f"Redis at {target}: the key {key!r} holds a {held}, not the {wanted} boardwire "
        "writes there: something else uses that name. Once nothing needs it, delete it "
        f"(redis-cli -h {target.rsplit(':', 1)[0]} DEL {key}); this goes on by itself then"
    )
