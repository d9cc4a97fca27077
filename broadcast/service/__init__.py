"""The running event: the one fold, commits, the hall, actions and the runtime."""
