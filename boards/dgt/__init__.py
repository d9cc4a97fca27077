"""The DGT board protocol as pure code: bytes in, messages out, and back."""
