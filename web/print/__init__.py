"""Printed sheets for the venue's notice board (A4, HTML with a print stylesheet).

Pairings by table and by name, results, standings and the crosstable of a section
(`sheets`: what they show, pure; `render`: the HTML; `routes`: `/print/...` from the
delayed public state, `/arbiter/print/...` live at the desk, with each table's QR code
from `web.checkin` on the desk's pairing sheet).
"""
