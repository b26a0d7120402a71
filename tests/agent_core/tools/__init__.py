"""Tests of agent_core.tools."""
