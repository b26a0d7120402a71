"""Tests of agent_core.transcripts."""
