"""What the model sees: the context built from stored rows, compaction, todos."""
