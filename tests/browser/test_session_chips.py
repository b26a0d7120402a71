"""Issue 18, defect 6: the chip bar stays one row at any count; a jump shows the divider whole."""

from __future__ import annotations

import pytest

from agent_core import NewMessage
from chat_app.root import root
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.chat_app.identities import mint_token, owner_of

SESSIONS = 50


def _many_sessions(app, owner: str, count: int = SESSIONS) -> str:
    store = root().store
    thread_id = thread_service.create_thread(app, owner, f"{count} sessions").id
    for number in range(1, count + 1):
        session = store.current_session(thread_id)
        store.append(
            thread_id,
            session.id,
            [
                NewMessage(role="user", content=f"Session {number}: continue the work"),
                NewMessage(
                    role="assistant", content=f"Part {number} is done.\n\n" + "More detail. " * 30
                ),
            ],
        )
        if number < count:
            handoff = {
                "session_number": number,
                "trigger": "auto",
                "utilization": 0.82,
                "model": "simulator",
                "created_at": "2026-01-01T00:00:00Z",
                "completed_work": [f"Finished part {number}"],
                "in_progress": [],
                "remaining_tasks": ["More parts"],
                "key_decisions": [],
                "files_modified": [],
                "current_state_summary": f"Part {number} done.",
                "open_todos": [],
                "pinned_files": [],
                "previous_handoff": None,
                "focus": None,
            }
            store.commit_reset(
                thread_id,
                old_session_id=session.id,
                trigger="auto",
                utilization=0.82,
                model="simulator",
                handoff=handoff,
                handoff_path=f"HANDOFF-{number}.md",
                handoff_markdown="-",
                context=[NewMessage(role="handoff", content="<handoff-context>")],
            )
    return thread_id


def _box(locator) -> dict:
    return locator.evaluate("el => el.getBoundingClientRect().toJSON()")


@pytest.mark.parametrize("width", [1280, 390])
def test_fifty_sessions_keep_one_chip_row_and_a_jump_shows_the_divider(
    server_db, page, screenshot_dir, width: int, app
) -> None:
    token = mint_token()
    thread_id = _many_sessions(app, owner_of(token))
    page.set_viewport_size({"width": width, "height": 820})
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    page.goto(f"/t/{thread_id}")
    bar = page.locator(".baton-chips")
    bar.wait_for()
    chips = bar.locator(".baton-chip")
    assert chips.count() == SESSIONS
    chip_height = _box(chips.first)["height"]
    assert _box(bar)["height"] < chip_height * 1.6  # one row, whatever the count
    # In reading order, and the current (last) session is in view without scrolling the bar.
    assert [chips.nth(i).get_attribute("data-session") for i in (0, SESSIONS - 1)] == ["50", "1"]
    assert _box(chips.nth(SESSIONS - 1))["x"] < _box(chips.nth(0))["x"]
    current = bar.locator(".baton-chip", has_text="current")
    assert current.get_attribute("data-session") == str(SESSIONS)
    bar_box, current_box = _box(bar), _box(current)
    assert bar_box["x"] <= current_box["x"] and current_box["right"] <= bar_box["right"] + 1
    page.screenshot(path=str(screenshot_dir / f"chips-50-{width}.png"))

    header = page.locator(".baton-sticky-header")
    for number in (25, 2):
        bar.locator(f".baton-chip[data-session='{number}']").click()
        divider = page.locator(f".baton-divider[data-session='{number}']")
        divider.wait_for()
        page.wait_for_timeout(600)  # the scroll and the flash settle
        top = _box(divider)["top"]
        assert top >= _box(header)["bottom"], f"session {number}'s divider is under the header"
        assert _box(divider)["bottom"] <= 820
    page.screenshot(path=str(screenshot_dir / f"chips-jump-{width}.png"))

    # The menu lists every session and jumps too.
    page.locator("#session-menu").click()
    items = page.locator(".baton-session-menu-item")
    items.first.wait_for()
    assert items.count() == SESSIONS
    page.screenshot(path=str(screenshot_dir / f"chips-menu-{width}.png"))
    page.locator(".baton-session-menu-item[data-session='10']").click()
    divider = page.locator(".baton-divider[data-session='10']")
    divider.wait_for()
    page.wait_for_timeout(600)
    assert _box(divider)["top"] >= _box(header)["bottom"]
    assert _box(divider)["bottom"] <= 820


def test_a_few_chips_sit_at_the_start_of_the_bar(server_db, page, app) -> None:
    token = mint_token()
    thread_id = _many_sessions(app, owner_of(token), count=3)
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    page.goto(f"/t/{thread_id}")
    bar = page.locator(".baton-chips")
    bar.wait_for()
    first = bar.locator(".baton-chip[data-session='1']")
    assert _box(first)["x"] - _box(bar)["x"] < 2
    assert _box(bar.locator(".baton-chip[data-session='3']"))["x"] > _box(first)["x"]
