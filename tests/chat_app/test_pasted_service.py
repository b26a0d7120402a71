"""A message too large to send, stored as pasted-N.md in the workspace instead."""

from __future__ import annotations

import pytest

from chat_app.root import root
from chat_app.services.conversation.threads import chats as threads
from chat_app.services.conversation.threads import pasted, workspace


@pytest.fixture(autouse=True)
def database(app) -> None:
    """Every test here runs on its own app (a fresh SQLite file)."""


@pytest.fixture
def thread_id(app) -> str:
    return threads.create_thread(app, "owner-1", "paste").id


def test_names_count_up_past_those_taken() -> None:
    assert pasted.pasted_name([]) == "pasted-1.md"
    assert pasted.pasted_name(["pasted-1.md", "pasted-3.md", "a.py"]) == "pasted-2.md"


def test_a_pasted_text_is_stored_whole_under_the_next_free_name(thread_id: str, app) -> None:
    log = "2026-12-01 12:00:00 INFO request served in 12 ms\n" * 12_000  # ~600 KB

    first = pasted.attach_pasted(app, "owner-1", thread_id, log)
    second = pasted.attach_pasted(app, "owner-1", thread_id, "again")

    assert (first, second) == ("pasted-1.md", "pasted-2.md")
    assert root().store.read_file(thread_id, first) == log
    assert pasted.next_pasted_name(app, "owner-1", thread_id) == "pasted-3.md"
    assert pasted.pasted_message(first).endswith("\n\nAttached: pasted-1.md")


@pytest.mark.parametrize(
    ("owner", "text", "why"),
    [
        ("owner-1", "x" * (workspace.MAX_FILE_BYTES + 1), "a file may be at most 1 MB"),
        ("owner-1", "  \n ", "nothing to attach"),
        ("owner-2", "mine", "This chat does not exist"),
    ],
)
def test_what_cannot_be_attached_writes_nothing(
    thread_id: str, owner: str, text: str, why: str, app
) -> None:
    with pytest.raises(workspace.AttachmentRefused, match=why) as refused:
        pasted.attach_pasted(app, owner, thread_id, text)
    codes = {
        "a file may be at most 1 MB": "file_too_large",
        "nothing to attach": "nothing_to_attach",
        "This chat does not exist": "chat_gone",
    }
    assert refused.value.code == codes[why]
    assert root().store.list_files(thread_id) == []
    assert pasted.next_pasted_name(app, "owner-2", thread_id) == ""


def test_only_a_text_a_file_can_hold_is_offered_as_one() -> None:
    assert pasted.attachable(600_000) and pasted.attachable(workspace.MAX_FILE_BYTES)
    assert not pasted.attachable(workspace.MAX_FILE_BYTES + 1) and not pasted.attachable(0)
