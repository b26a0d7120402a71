"""Tests of agent_core.accounting."""
