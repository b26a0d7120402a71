"""Tests of agent_core.runtime."""
