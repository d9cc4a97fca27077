"""Federation flags as small SVG images, drawn here (no emoji font, no image files). Pure.

Chess federations use FIDE's three-letter codes. The common ones are drawn as their
stripes or crosses, simplified to what reads at 16 pixels (no emblems, no stars); any
other well-formed code gets a plain grey flag, so a page never shows a broken image and
the code next to it says which federation it is.
"""

from __future__ import annotations

import re

__all__ = ["FLAGS", "flag_svg", "is_code"]

_CODE = re.compile(r"^[A-Z]{3}$")

# code -> (kind, colours): "h" horizontal bands top to bottom, "v" vertical bands left to
# right (a colour named twice is a band twice as wide), "x" a Nordic cross (field, cross,
# optional inner cross), "+" a centred cross (field, cross).
FLAGS: dict[str, tuple[str, tuple[str, ...]]] = {
    "ARG": ("h", ("#74acdf", "#fff", "#74acdf")),
    "ARM": ("h", ("#d90012", "#0033a0", "#f2a800")),
    "AUT": ("h", ("#ed2939", "#fff", "#ed2939")),
    "AZE": ("h", ("#0092bc", "#e4002b", "#00af66")),
    "BEL": ("v", ("#000", "#fdda24", "#ef3340")),
    "BOL": ("h", ("#d52b1e", "#f9e300", "#007934")),
    "BUL": ("h", ("#fff", "#00966e", "#d62612")),
    "COL": ("h", ("#fcd116", "#fcd116", "#003893", "#ce1126")),
    "DEN": ("x", ("#c8102e", "#fff")),
    "ENG": ("+", ("#fff", "#ce1124")),
    "EST": ("h", ("#0072ce", "#000", "#fff")),
    "FIN": ("x", ("#fff", "#002f6c")),
    "FRA": ("v", ("#0055a4", "#fff", "#ef4135")),
    "GEO": ("+", ("#fff", "#ff0000")),
    "GER": ("h", ("#000", "#dd0000", "#ffce00")),
    "HUN": ("h", ("#ce2939", "#fff", "#477050")),
    "IND": ("h", ("#ff9933", "#fff", "#138808")),
    "IRI": ("h", ("#239f40", "#fff", "#da0000")),
    "IRL": ("v", ("#169b62", "#fff", "#ff883e")),
    "ISL": ("x", ("#02529c", "#fff", "#dc1e35")),
    "ITA": ("v", ("#009246", "#fff", "#ce2b37")),
    "LAT": ("h", ("#9e3039", "#9e3039", "#fff", "#9e3039", "#9e3039")),
    "LTU": ("h", ("#fdb913", "#006a44", "#c1272d")),
    "MEX": ("v", ("#006847", "#fff", "#ce1126")),
    "NED": ("h", ("#ae1c28", "#fff", "#21468b")),
    "NGR": ("v", ("#008751", "#fff", "#008751")),
    "NOR": ("x", ("#ba0c2f", "#fff", "#00205b")),
    "PER": ("v", ("#d91023", "#fff", "#d91023")),
    "POL": ("h", ("#fff", "#dc143c")),
    "POR": ("v", ("#006600", "#006600", "#ff0000", "#ff0000", "#ff0000")),
    "ROU": ("v", ("#002b7f", "#fcd116", "#ce1126")),
    "RUS": ("h", ("#fff", "#0039a6", "#d52b1e")),
    "SUI": ("+", ("#da291c", "#fff")),
    "SWE": ("x", ("#006aa7", "#fecc00")),
    "ESP": ("h", ("#aa151b", "#f1bf00", "#f1bf00", "#aa151b")),
    "UKR": ("h", ("#0057b7", "#ffd700")),
    "UZB": ("h", ("#0099b5", "#fff", "#1eb53a")),
    "YEM": ("h", ("#ce1126", "#fff", "#000")),
}

_PLAIN = ("h", ("#b0bec5",))
_W, _H = 24, 16


def is_code(text: str) -> bool:
    """A well-formed federation code: three capital letters."""
    return bool(_CODE.match(text))


def _bands(kind: str, colours: tuple[str, ...]) -> list[str]:
    n = len(colours)
    out = []
    for i, colour in enumerate(colours):
        if kind == "h":
            y0, y1 = _H * i / n, _H * (i + 1) / n
            out.append(
                f'<rect x="0" y="{y0:g}" width="{_W}" height="{y1 - y0:g}" fill="{colour}"/>'
            )
        else:
            x0, x1 = _W * i / n, _W * (i + 1) / n
            out.append(
                f'<rect x="{x0:g}" y="0" width="{x1 - x0:g}" height="{_H}" fill="{colour}"/>'
            )
    return out


def _cross(kind: str, colours: tuple[str, ...]) -> list[str]:
    field, cross, *inner = colours
    cx = 8 if kind == "x" else _W / 2  # a Nordic cross sits towards the hoist
    out = [f'<rect width="{_W}" height="{_H}" fill="{field}"/>']
    out.append(f'<rect x="{cx - 2:g}" y="0" width="4" height="{_H}" fill="{cross}"/>')
    out.append(f'<rect x="0" y="{_H / 2 - 2:g}" width="{_W}" height="4" fill="{cross}"/>')
    if inner:
        out.append(f'<rect x="{cx - 1:g}" y="0" width="2" height="{_H}" fill="{inner[0]}"/>')
        out.append(f'<rect x="0" y="{_H / 2 - 1:g}" width="{_W}" height="2" fill="{inner[0]}"/>')
    return out


def flag_svg(code: str) -> str | None:
    """The flag of federation `code` as an SVG document; a plain flag for a code we do not
    draw; None for text that is not a federation code (the caller answers 404)."""
    code = code.upper()
    if not is_code(code):
        return None
    kind, colours = FLAGS.get(code, _PLAIN)
    shapes = _bands(kind, colours) if kind in ("h", "v") else _cross(kind, colours)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" '
        f'width="{_W}" height="{_H}">{"".join(shapes)}'
        f'<rect width="{_W}" height="{_H}" fill="none" stroke="#0003"/></svg>'
    )
