"""Board drivers: the serial link, single boards, the bus, supervision, discovery."""
