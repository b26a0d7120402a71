"""A compaction's marker: expand it to read the originals, undo it, and see the restored
context in the meter and the timeline, also after a reload."""

from __future__ import annotations

import pytest

from chat_app.root import root
from tests.browser.chat_page import activity, send, submit, wait_idle

OUTPUT = "ORIGINAL OUTPUT {n}: " + "collected 40 items, tests/test_parser.py passed. " * 60


def _compacted_thread(app, server_db, page, *, answered: bool) -> str:
    """A chat whose first six messages a compaction replaced (with the store's own edit and
    marker, as the coordinator writes them); ``answered``: the model replied after it."""
    from agent_core import ContextEdit, NewMessage, build_context
    from chat_app.services.conversation.threads import chats as thread_service
    from chat_app.services.security import identity
    from tests.chat_app.identities import mint_token, owner_of

    token = mint_token()
    thread_id = thread_service.create_thread(app, owner_of(token), "Parser").id
    store = root().store
    session = store.current_session(thread_id)
    rows = [NewMessage(role="user", content="Build a CSV parser for invoices")]
    for n in range(1, 4):
        call = {"name": "run_command", "args": {"command": f"pytest -q part{n}"}, "id": f"c{n}"}
        rows += [
            NewMessage(role="assistant", content=f"Step {n}.", tool_calls=[call]),
            NewMessage(
                role="tool", tool_call_id=f"c{n}", name="run_command", content=OUTPUT.format(n=n)
            ),
        ]
    stored = store.append(thread_id, session.id, rows)
    store.append(thread_id, session.id, [NewMessage(role="assistant", content="Parser done.")])
    store.add_context_edit(
        session.id,
        ContextEdit(
            kind="compaction",
            summary="The parser parts 1-3 pass their tests.",
            upto_seq=stored[-1].seq,
            tokens_before=2400,
            tokens_after=20,
            utilization=0.52,
        ),
        NewMessage(
            role="event",
            content="Compacted 7 earlier messages (2,400 → 20 tokens)",
            meta={"event": "compaction", "edit": 0, "tokens_before": 2400, "tokens_after": 20},
        ),
    )
    assert len(build_context(store, session)) == 2  # the summary and the last reply
    if answered:
        store.append(
            thread_id,
            session.id,
            [
                NewMessage(role="user", content="And totals?"),
                NewMessage(role="assistant", content="Added."),
            ],
        )
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    return thread_id


def _meter(page) -> float:
    return float(page.locator("#context-meter").get_attribute("data-percent") or 0)


def _marker(page, text: str):
    return page.locator(".baton-marker", has_text=text)


def test_a_marker_expands_to_the_original_messages_it_replaced(
    server_db, page, screenshot_dir, app
) -> None:
    thread_id = _compacted_thread(app, server_db, page, answered=False)
    page.goto(f"/t/{thread_id}")
    marker = _marker(page, "Compacted 7 earlier messages")
    marker.wait_for()
    wait_idle(page)
    # Loaded on demand: the marker holds none of them before it opens.
    assert page.locator(".baton-original").count() == 0

    marker.get_by_role("button", name="Show originals").click()
    originals = marker.locator(".baton-original")
    originals.first.wait_for()
    assert originals.count() == 7
    assert "The 7 original messages, as stored." in marker.inner_text()
    assert "Build a CSV parser for invoices" in originals.nth(0).inner_text()
    assert "Ran `pytest -q part1`" in originals.nth(1).inner_text()
    assert "ORIGINAL OUTPUT 2" in originals.nth(4).inner_text()
    marker.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_dir / "marker-originals.png"))

    marker.get_by_role("button", name="Hide originals").click()
    originals.first.wait_for(state="detached")


def test_undo_a_compaction_from_its_marker_restores_the_context(server_db, page, app) -> None:
    from agent_core import build_context

    thread_id = _compacted_thread(app, server_db, page, answered=False)
    page.goto(f"/t/{thread_id}")
    marker = _marker(page, "Compacted 7 earlier messages")
    marker.wait_for()
    wait_idle(page)
    before = _meter(page)
    other = page.context.new_page()  # a second tab on the chat sees the undo, live
    other.goto(f"/t/{thread_id}")
    _marker(other, "Compacted 7 earlier messages").wait_for()
    wait_idle(other)

    marker.get_by_role("button", name="Undo").click()
    note = _marker(page, "Undid the compaction")
    note.wait_for()
    assert "20 → 2,400 tokens" in note.inner_text()
    _marker(other, "Undid the compaction").wait_for(timeout=15_000)
    assert other.get_by_role("button", name="Undo").count() == 0
    page.wait_for_function(
        "(before) => +document.getElementById('context-meter').dataset.percent > before + 10",
        arg=before,
    )
    after = _meter(page)
    assert page.get_by_role("button", name="Undo").count() == 0  # nothing left to undo
    store = root().store
    session = store.current_session(thread_id)
    assert len(build_context(store, session)) == 8  # every original message again

    page.reload()
    _marker(page, "Undid the compaction").wait_for()
    wait_idle(page)
    assert _meter(page) == after
    assert page.get_by_role("button", name="Undo").count() == 0
    assert _marker(page, "Compacted 7 earlier messages").count() == 1


def test_undo_waits_for_a_running_turn_and_says_when_it_is_too_late(server_db, page, app) -> None:
    thread_id = _compacted_thread(app, server_db, page, answered=True)
    page.goto(f"/t/{thread_id}")
    marker = _marker(page, "Compacted 7 earlier messages")
    marker.wait_for()
    wait_idle(page)
    undo = marker.get_by_role("button", name="Undo")
    assert undo.is_disabled()
    assert "it can no longer be undone" in marker.inner_text()

    fresh = _compacted_thread(app, server_db, page, answered=False)
    page.goto(f"/t/{fresh}")
    marker = _marker(page, "Compacted 7 earlier messages")
    marker.wait_for()
    wait_idle(page)
    undo = marker.get_by_role("button", name="Undo")
    assert undo.is_enabled()
    send(page, "Add a totals row")
    if activity(page) == "idle":
        pytest.fail("the turn ended before the test could look at the running page")
    assert (
        marker.get_by_role("button", name="Undo").is_disabled()
        or page.get_by_role("button", name="Undo").count() == 0
    )
    wait_idle(page)


def test_undo_a_handoff_from_its_divider_gives_back_the_previous_session(page) -> None:
    from tests.browser.chat_page import start_chat

    start_chat(page, "Write a tiny greeting module")
    wait_idle(page)
    page.reload()  # the meter as a page load measures the stored session
    page.locator("[data-role=assistant]").first.wait_for()
    wait_idle(page)
    before = _meter(page)
    submit(page, "/handoff")
    divider = page.locator("[data-session='2'].baton-divider")
    divider.wait_for()
    wait_idle(page)
    page.reload()
    divider.wait_for()
    wait_idle(page)
    # the fresh session holds the handoff, not the conversation: the meter shows another
    # figure (so seeing ``before`` again below means the old session is back)
    assert _meter(page) != before

    divider.get_by_role("button", name="Undo /handoff").click()
    _marker(page, "Undid the /handoff: session 1 goes on where it stopped").wait_for()
    divider.wait_for(state="detached")
    page.wait_for_function(
        "(before) => +document.getElementById('context-meter').dataset.percent === before",
        arg=before,
    )
    assert page.locator(".baton-chip").count() <= 1

    page.reload()
    _marker(page, "Undid the /handoff").wait_for()
    wait_idle(page)
    assert page.locator("[data-session='2'].baton-divider").count() == 0
    assert _meter(page) == before
