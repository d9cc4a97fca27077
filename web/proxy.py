"""Deployment behind a TLS-terminating reverse proxy: trusted proxies and the public origin.

A proxy's `X-Forwarded-Proto`, `X-Forwarded-For` and `X-Forwarded-Host` are honoured only
when the TCP peer is one of the configured trusted proxies; from anyone else they are
ignored (a spectator could otherwise claim any address and dodge the login limit). The
request is then seen by every handler with the client's scheme, address and host, so
cookies get `Secure` under https, the login limit counts the real client, and the Origin
check compares against what the browser saw. A configured public origin
(`https://live.example.org`) is also accepted as the Origin of desk forms and sockets.

The same settings name the arbiters' own networks (`serve --arbiter-network`): clients
there are never locked out of the login (`web.auth`). They are the organizer's word that
only arbiters' machines use them, so a network wider than `ARBITER_NETWORK_WIDEST` (a
/16 or an IPv6 /48) is refused as a mistake.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from aiohttp import web

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@dataclass(frozen=True)
class ProxySettings:
    """Which peers may speak for the client, the origin browsers use (None: as seen), and
    the arbiters' own networks (never locked out of the login)."""

    trusted: tuple[Network, ...] = field(default=())
    public_origin: str | None = None
    arbiters: tuple[Network, ...] = field(default=())  # the arbiters' own networks

    def trusts(self, address: str | None) -> bool:
        if not address:
            return False
        try:
            ip = ipaddress.ip_address(address)
        except ValueError:
            return False
        return any(ip in net for net in self.trusted)


PROXY = web.AppKey("proxy", ProxySettings)


def parse_network(text: str) -> Network:
    """`10.0.0.1`, `10.0.0.0/8` or `::1` as a network; ValueError with a plain message."""
    try:
        return ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(
            f"not an IP address or network: {text!r} (e.g. 127.0.0.1 or 10.0.0.0/8)"
        ) from None


# The widest network accepted as the arbiters' own, by IP version: wider is a typo (or
# "everybody"), and would let anybody there guess the password without a limit.
ARBITER_NETWORK_WIDEST = {4: 16, 6: 48}


def parse_arbiter_network(text: str) -> Network:
    """`parse_network`, refusing networks too wide to be only the arbiters' machines."""
    try:
        net = parse_network(text)
    except ValueError as exc:
        raise ValueError(f"--arbiter-network: {exc}") from None
    widest = ARBITER_NETWORK_WIDEST[net.version]
    if net.prefixlen < widest:
        raise ValueError(
            f"--arbiter-network {text.strip()}: too wide for the arbiters' own machines "
            f"(at most a /{widest}); name the arbiters' room, their VPN or single addresses"
        )
    return net


def parse_origin(text: str) -> str:
    """`https://live.example.org[:port]` (no path) as the origin a browser sends."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"the public URL must look like https://live.example.org, not {text!r}")
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise ValueError(f"the public URL must have no path or query: {text!r}")
    return f"{parts.scheme}://{parts.netloc.lower()}"


def make_settings(
    trusted: Sequence[str], public_url: str | None, arbiters: Sequence[str] = ()
) -> ProxySettings:
    return ProxySettings(
        tuple(parse_network(t) for t in trusted),
        parse_origin(public_url) if public_url else None,
        tuple(parse_arbiter_network(a) for a in arbiters),
    )


def _last(value: str | None) -> str | None:
    """The value the nearest proxy appended (the others could be forged by the client)."""
    if not value:
        return None
    last = value.split(",")[-1].strip()
    return last or None


def forwarded_client(settings: ProxySettings, forwarded_for: str) -> str | None:
    """The first address, from the right, that is not a trusted proxy (None: no header)."""
    hops = [h.strip()[:64] for h in forwarded_for.split(",") if h.strip()]
    if not hops:
        return None
    for hop in reversed(hops):
        if not settings.trusts(hop):
            return hop
    return hops[0]


@web.middleware
async def forwarded(request: web.Request, handler: Handler) -> web.StreamResponse:
    """Rewrite scheme, remote and host from a trusted proxy's headers (first middleware)."""
    settings = request.app.get(PROXY)
    if settings is None or not settings.trusts(request.remote):
        return await handler(request)
    changes: dict[str, str] = {}
    proto = (_last(request.headers.get("X-Forwarded-Proto")) or "").lower()
    if proto in ("http", "https"):
        changes["scheme"] = proto
    client = forwarded_client(settings, request.headers.get("X-Forwarded-For", ""))
    if client is not None:
        changes["remote"] = client
    host = _last(request.headers.get("X-Forwarded-Host"))
    if host is not None:
        changes["host"] = host
    return await handler(request.clone(**changes) if changes else request)  # type: ignore[arg-type]


__all__ = [
    "ARBITER_NETWORK_WIDEST",
    "PROXY",
    "Handler",
    "Network",
    "ProxySettings",
    "forwarded",
    "forwarded_client",
    "make_settings",
    "parse_arbiter_network",
    "parse_network",
    "parse_origin",
]
