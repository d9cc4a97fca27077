"""The journal: the append-only store, its codec, event kinds and compaction."""
