"""Baton's engine: context accounting, resets with structured handoffs, compaction."""
