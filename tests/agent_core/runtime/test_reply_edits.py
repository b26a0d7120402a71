"""A regenerated reply: its rows stay stored, the model's view leaves them out while another
reply is chosen, and undoing the edit brings them back."""

from __future__ import annotations

from agent_core.context._build import build_context
from agent_core.storage._memory_store import InMemoryStore
from agent_core.storage._records import ContextEdit, NewMessage


def test_a_reply_edit_hides_the_earlier_reply_from_the_model_until_undone() -> None:
    store = InMemoryStore()
    session = store.current_session("t")
    store.append("t", session.id, [NewMessage(role="user", content="name a colour")])
    first = store.append("t", session.id, [NewMessage(role="assistant", content="red")])
    store.add_context_edit(
        session.id, ContextEdit(kind="reply", summary="", seqs=[r.seq for r in first])
    )
    store.append("t", session.id, [NewMessage(role="assistant", content="blue")])

    assert [m.content for m in build_context(store, session)] == ["name a colour", "blue"]
    assert [m.content for m in store.messages(session.id)] == ["name a colour", "red", "blue"]
    store.undo_context_edit(session.id, 0)
    assert [m.content for m in build_context(store, session)] == ["name a colour", "red", "blue"]
