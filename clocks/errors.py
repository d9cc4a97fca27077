"""`BoardwireError`: the one base of every error boardwire raises on purpose.

`except BoardwireError` catches what boardwire reports (a config mistake, a damaged
journal, a refused action, a board that does not answer), and nothing else: a bug is
still a bug. Each family keeps its builtin base too (`ValueError` for bad input, and so
on), so existing handlers keep working.

It lives in `clocks/`, the bottom package (it imports nothing of ours), so that every
package can derive from it without an import against the layers' direction.
"""

from __future__ import annotations

__all__ = ["BoardwireError"]


class BoardwireError(Exception):
    """An error boardwire raises on purpose, with a message a user can act on."""
