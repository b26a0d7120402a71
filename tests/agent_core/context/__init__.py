"""Tests of agent_core.context."""
