"""Tests of agent_core.storage."""
