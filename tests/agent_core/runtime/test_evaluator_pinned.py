"""The evaluator's configuration is a pinned file: every session after a reset starts with it,
verbatim, in the model's context, and the handoff names it."""

from __future__ import annotations

from agent_core.context._build import build_context
from agent_core.storage._memory_store import InMemoryStore
from tests.agent_core.runtime_helpers import make_setup, run

EVALUATOR = '{"rubric": "invoices parse with quoted fields", "threshold": 0.9}'


async def test_the_evaluator_config_is_carried_across_every_reset() -> None:
    store = InMemoryStore()
    store.write_file("t1", "evaluator.json", EVALUATOR)
    await run(make_setup(store, window=2200), "Build a CSV parser for invoices")
    sessions = store.sessions("t1")
    assert len(sessions) >= 3
    for session in sessions[1:]:
        context = "\n".join(str(m.content) for m in build_context(store, session))
        assert EVALUATOR in context, session.number
        assert "evaluator.json" in (session.handoff or {}).get("pinned_files", [])
