"""The players' side of the hall: each table's page (`/t/{table}`, behind the round's
code), the per-round codes, and the QR codes printed on the pairing sheets.

`codes` (the codes, from a key kept with the journal), `limits` (wrong codes), `qr` (the
table's address and its QR code), `page` (the routes; `setup(app)` adds them).
"""
