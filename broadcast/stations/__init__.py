"""Capture stations: a venue beyond one machine (issue 35).

A station (`boardwire station`) owns the serial ports of some of the event's boards and
runs what belongs next to the wire: the drivers, with their log recovery. Each board
event it reads is written to its own durable outbox first, then to a Redis Stream of its
own (`wire`). The central `serve --stations` reads every station's stream through a
consumer group (`intake`), hands the events to the one committer as if its own drivers
had read them, journals how far it got in each stream (`broadcast.journal.station_progress`, in
the same transaction as the events) and acknowledges an entry only once that
transaction is durable: a restart of either side loses nothing and applies nothing twice.
"""
