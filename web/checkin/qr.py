"""A table's address with the round's code, and its QR code as inline SVG (segno).

The address is `ORIGIN/t/TABLE?c=CODE`: a phone that scans it opens the table's page with
the code filled in. The origin is the one the hall's phones reach the server at: the
server's public URL (`serve --public-url`) when it has one, else the one the desk was
last opened at from another machine than the server itself (the arbiter's laptop on the
venue's network; `remember_origin`), else the one asked with. Pure apart from that memory.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import quote

import segno
from markupsafe import Markup

__all__ = ["OriginMemory", "qr_svg", "table_path", "table_url"]


def table_path(table: int, code: str | None = None) -> str:
    """The table page's path, with the code when given."""
    path = f"/t/{table}"
    return f"{path}?c={quote(code)}" if code else path


def table_url(origin: str, table: int, code: str | None = None) -> str:
    """The table page's full address (what the QR code says)."""
    return origin.rstrip("/") + table_path(table, code)


def qr_svg(text: str, title: str = "") -> Markup:
    """`text` as a QR code (error correction M, a quiet zone of 4 modules), as inline SVG
    without a size (the page's CSS gives it one), black on white whatever the theme."""
    code = segno.make(text, error="m", micro=False)
    svg = code.svg_inline(scale=1, border=4, omitsize=True, light="#fff", title=title or None)
    return Markup(svg.replace("<svg ", '<svg role="img" ', 1))


def _local(host: str) -> bool:
    name = (
        host.rsplit(":", 1)[0].strip("[]") if not host.startswith("[") else host[1:].split("]")[0]
    )
    if name in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class OriginMemory:
    """The origin the hall reaches the server at, as far as the server can tell."""

    def __init__(self, public_origin: str | None = None) -> None:
        self.public_origin = public_origin
        self.seen: str | None = None
        self.loopback: str | None = None

    def remember(self, scheme: str, host: str) -> None:
        """A request reached the server at `scheme://host` (kept unless it is the server's
        own loopback, which no phone in the hall can reach)."""
        if not host or len(host) > 255:
            return
        if _local(host):
            self.loopback = f"{scheme}://{host}"
        else:
            self.seen = f"{scheme}://{host}"

    def origin(self, fallback: str | None = None) -> str | None:
        """The public URL, else the origin seen from the venue, else the one asked with
        (`fallback`), else the server's own loopback (a sheet printed on the server itself
        without `--public-url`: its QR codes reach no phone, and the desk says so)."""
        return self.public_origin or self.seen or fallback or self.loopback

    @property
    def reachable(self) -> bool:
        """The QR codes point at an address the hall's phones can reach."""
        return bool(self.public_origin or self.seen)
