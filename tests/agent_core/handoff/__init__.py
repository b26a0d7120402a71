"""Tests of agent_core.handoff."""
