"""Bad tool calls on the SQL store (SQLite and PostgreSQL): error results, the turn goes on.

The PostgreSQL column of a workspace path is ``varchar(MAX_PATH_CHARS)``; an over-long path
once failed the whole turn there and lost the call.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.messages import AIMessage

from agent_core.storage import MAX_PATH_CHARS
from agent_core.testing import ScriptedChatModel
from chat_app.db.engine import get_engine
from chat_app.db.store import SqlStore
from tests.agent_core.runtime_helpers import make_setup, of_type, run
from tests.chat_app.db.backends import create_thread, migrated_sqlite, pg_url  # noqa: F401

LONG_PATH = "src/" + "a" * 596  # 600 characters


@pytest.fixture(params=["sqlite", "postgres"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return migrated_sqlite(tmp_path)
    return request.getfixturevalue("pg_url")


def call(name: str, args: dict, call_id: str) -> dict:
    return {"name": name, "args": args, "id": call_id, "type": "tool_call"}


async def test_an_over_long_path_is_an_error_result_and_the_turn_finishes(url: str) -> None:
    engine = get_engine(url)
    store, thread = SqlStore(engine), create_thread(engine)
    calls = [
        call("write_file", {"path": LONG_PATH, "content": "x = 1\n"}, "long"),
        call("run_command", {"command": 'echo "unbalanced'}, "quote"),
        call("write_file", {"path": "src/ok.py", "content": "x = 1\n"}, "ok"),
    ]
    model = ScriptedChatModel([AIMessage(content="", tool_calls=calls), "Wrote src/ok.py."])
    setup = make_setup(store, thread_id=thread, model=model, window=200_000)
    events = await run(setup, "write the files")
    assert not of_type(events, "error")
    rows = store.messages(store.current_session(thread).id)
    assert [r.role for r in rows] == ["user", "assistant", "tool", "tool", "tool", "assistant"]
    results = {r.tool_call_id: (r.content, r.meta.get("status")) for r in rows if r.role == "tool"}
    assert results["long"] == (
        f"error: write_file: the path is 600 characters long; the workspace allows at most "
        f"{MAX_PATH_CHARS}. Use a shorter path",
        "error",
    )
    assert results["quote"][1] == "error"
    assert results["ok"] == ("wrote src/ok.py (2 lines)", None)
    assert rows[-1].content == "Wrote src/ok.py."
    assert store.list_files(thread) == ["src/ok.py"]
