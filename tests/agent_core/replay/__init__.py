"""Tests of agent_core.replay."""
