"""Token accounting: exact counts (tiktoken), calibration, the model table."""
