"""What a turn runs on: the store and engine for a thread, the context window, the live
channel between tabs and workers, and the turn process."""
