"""Tests of agent_core.strategies."""
