"""Replaying a recorded session through the app's pipeline, and its report."""
