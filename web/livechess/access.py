"""Who may use the LiveChess API. Pure.

On loopback (the default) the API is the operator's own machine's, as LiveChess's is:
no login. Bound beyond loopback it is the venue's live view on a LAN, so it follows the
arbiter's authentication: HTTP Basic with the arbiter's user and password, or a token
in the URL (`?token=...`). Why both: scripts and DgtAngel-like tools can send a Basic
header, but a browser page (Lichess's DGT board page) opens a WebSocket from a URL it is
given and cannot add headers; a token in that URL is what it can carry. The token is
derived from the arbiter's password and the event's name (HMAC), so it stays the same
across restarts (a client configured once keeps working) and changes when the password
does; `serve` prints it at start on the operator's terminal.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress

__all__ = ["api_token", "is_loopback", "token_ok"]


def is_loopback(host: str) -> bool:
    """Only this computer can connect to `host`."""
    if host.lower() == "localhost":
        return True
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return ipaddress.ip_address(bare.split("%")[0]).is_loopback
    except ValueError:
        return False


def api_token(credentials: tuple[str, str], event: str) -> str:
    """The API's token for these arbiter credentials and this event."""
    user, password = credentials
    message = f"livechess-api\0{user}\0{event}".encode()
    return hmac.new(password.encode(), message, hashlib.sha256).hexdigest()[:32]


def token_ok(supplied: str, credentials: tuple[str, str], event: str) -> bool:
    return hmac.compare_digest(supplied.encode(), api_token(credentials, event).encode())
