"""The position's picture as PNG, for link previews: chat and social sites show a PNG
`og:image`, many of them no SVG.

Rendered from our own SVG (`web.board_svg`) by CairoSVG, which needs the cairo library
(Debian's `libcairo2`, which chromium brings too). Without it `png_of` answers None and
the previews point at the SVG: the pages work as before, nothing else needs installing.
Rendering takes tens of milliseconds, so callers run it off the event loop; the same
position is rendered once (a bounded cache).
"""

from __future__ import annotations

from functools import lru_cache

__all__ = ["PNG_TYPE", "SIZE", "png_available", "png_of"]

PNG_TYPE = "image/png"
SIZE = 480  # pixels a side, as og:image:width/height say


@lru_cache(maxsize=1)
def png_available() -> bool:
    """Whether PNG pictures can be made here (CairoSVG and the cairo library load)."""
    try:
        import cairosvg  # noqa: F401
    except (ImportError, OSError):  # OSError: the cairo library itself is missing
        return False
    return True


@lru_cache(maxsize=256)
def png_of(svg: str) -> bytes | None:
    """`svg` (a board picture of ours) as a SIZE x SIZE PNG, or None without cairo."""
    if not png_available():
        return None
    import cairosvg

    return bytes(
        cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=SIZE, output_height=SIZE)
    )
