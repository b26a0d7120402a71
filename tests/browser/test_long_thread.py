"""A long thread stays light: a jump loads a window around the session, not the whole
thread; reading on and back keeps the page bounded and the reader's place."""

from __future__ import annotations

import pytest

from chat_app.root import root
from tests.browser.chat_page import wait_idle

SESSIONS, PER_SESSION = 12, 60  # 720 rows: several windows of 100 in each direction


@pytest.fixture
def long_thread(server_db, page, app) -> str:
    from agent_core import NewMessage
    from chat_app.services.conversation.threads import chats as thread_service
    from chat_app.services.security import identity
    from tests.chat_app.identities import mint_token, owner_of

    token = mint_token()
    thread_id = thread_service.create_thread(app, owner_of(token), "Long run").id
    store = root().store
    for number in range(1, SESSIONS + 1):
        session = store.current_session(thread_id)
        rows = [NewMessage(role="user", content=f"Session {number}: continue the work")]
        for n in range((PER_SESSION - 1) // 2):
            call = {
                "name": "run_command",
                "args": {"command": f"pytest tests/test_{n}.py"},
                "id": f"c{number}-{n}",
            }
            rows.append(
                NewMessage(role="assistant", content=f"s{number} step {n}", tool_calls=[call])
            )
            rows.append(
                NewMessage(
                    role="tool",
                    tool_call_id=call["id"],
                    name="run_command",
                    content=f"{n} passed\n[exit status 0]",
                )
            )
        store.append(thread_id, session.id, rows)
        if number < SESSIONS:
            store.commit_reset(
                thread_id,
                old_session_id=session.id,
                trigger="auto",
                utilization=0.82,
                model="simulator",
                handoff={
                    "session_number": number,
                    "trigger": "auto",
                    "utilization": 0.82,
                    "model": "simulator",
                    "created_at": "2026-01-01T00:00:00Z",
                    "completed_work": [f"Part {number}"],
                },
                handoff_path=f"HANDOFF-{number}.md",
                handoff_markdown="-",
                context=[NewMessage(role="handoff", content="<handoff-context>")],
            )
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    return thread_id


def _rows(page) -> int:
    return page.locator("#timeline .baton-item").count()


def _steps(page) -> list[str]:
    return [
        text.strip()
        for text in page.locator("[data-role=assistant] .baton-markdown").all_inner_texts()
    ]


def test_a_jump_loads_the_sessions_window_and_reading_on_reaches_the_newest(
    long_thread, page
) -> None:
    page.goto(f"/t/{long_thread}")
    page.locator("[data-role=assistant] .baton-markdown", has_text="s12 step 28").wait_for()
    wait_idle(page)
    page.locator('.baton-chip[data-session="1"]').click()
    page.locator(
        "[data-role=user] .baton-markdown", has_text="Session 1: continue the work"
    ).wait_for()
    # Only a window from the session's start is in the page, not the 700 rows after it.
    assert _rows(page) <= 120
    assert _steps(page)[0] == "s1 step 0"
    assert page.locator("#load-later").count() == 1
    # Reading on, window by window, until the newest rows; the page never holds them all.
    most = 0
    for _ in range(20):
        if page.locator("#load-later").count() == 0:
            break
        page.locator("#load-later").click()
        page.wait_for_timeout(300)
        most = max(most, _rows(page))
    assert page.locator("#load-later").count() == 0
    page.locator("[data-role=assistant] .baton-markdown", has_text="s12 step 28").wait_for()
    assert most <= 320
    # The chip of the current session brings the newest window back directly.
    page.locator('.baton-chip[data-session="3"]').click()
    page.locator(
        "[data-role=user] .baton-markdown", has_text="Session 3: continue the work"
    ).wait_for()
    page.locator('.baton-chip[data-session="12"]').click()
    page.locator("[data-role=assistant] .baton-markdown", has_text="s12 step 28").wait_for()
    assert page.locator("#load-later").count() == 0


def test_loading_earlier_rows_keeps_the_readers_place(long_thread, page) -> None:
    page.goto(f"/t/{long_thread}")
    page.locator("[data-role=assistant] .baton-markdown", has_text="s12 step 28").wait_for()
    wait_idle(page)
    # The reader takes the view over (the opening's scroll to the bottom stops), then goes
    # to the top once a reader's scroll no longer loads rows by itself (1.5 s after).
    page.mouse.move(400, 400)
    page.mouse.wheel(0, -1)
    page.wait_for_timeout(1_600)
    page.evaluate("() => window.scrollTo(0, 0)")
    first = page.locator("#timeline .baton-item").first
    key = first.get_attribute("data-key")
    top = first.bounding_box()["y"]
    page.locator("#load-earlier").click()
    page.wait_for_function(
        "(key) => document.querySelector('#timeline .baton-item').dataset.key !== key", arg=key
    )
    # The page puts the row back over a few frames once the new rows are painted; this wait
    # is the check (it times out if the row never returns within 40 px). A second look
    # afterwards raced the scroll auto-load, which the restored place near the top can
    # start, and found the row mid-render (bounding_box None).
    page.wait_for_function(
        """([key, top]) => { const el = document.querySelector(
             `#timeline .baton-item[data-key="${key}"]`);
             return el && Math.abs(el.getBoundingClientRect().top - top) <= 40; }""",
        arg=[key, top],
        timeout=10_000,
    )


_IN_VIEW = """() => [...document.querySelectorAll('#timeline .baton-item')]
    .filter((el) => { const box = el.getBoundingClientRect();
                      return box.bottom > 0 && box.top < window.innerHeight; })
    .map((el) => el.dataset.key)"""


def _first_key(page) -> str:
    return page.locator("#timeline .baton-item").first.get_attribute("data-key") or ""


def _last_key(page) -> str:
    return page.locator("#timeline .baton-item").last.get_attribute("data-key") or ""


def _wheel_until(page, delta: int, changed, steps: int = 60) -> list[str]:
    """Scroll like a reader, a notch at a time, until ``changed()``; returns the rows that
    were in view just before the rows changed."""
    page.mouse.move(400, 400)
    for _ in range(steps):
        seen = page.evaluate(_IN_VIEW)
        page.mouse.wheel(0, delta)
        page.wait_for_timeout(150)
        if changed():
            return seen
    raise AssertionError("scrolling never loaded rows")


def test_scrolling_to_the_top_loads_earlier_rows_in_place(long_thread, page) -> None:
    page.goto(f"/t/{long_thread}")
    page.locator("[data-role=assistant] .baton-markdown", has_text="s12 step 28").wait_for()
    wait_idle(page)
    first = _first_key(page)
    # Opening at the newest rows is the page's own scrolling: nothing more loads.
    page.wait_for_timeout(1500)
    assert _first_key(page) == first
    seen = _wheel_until(page, -300, lambda: _first_key(page) != first)
    page.wait_for_timeout(1500)  # the rows are painted and the place put back
    # The reader still sees what they saw (no jump to the new rows at the top), and the
    # button stays for the keyboard.
    assert set(page.evaluate(_IN_VIEW)) & set(seen)
    assert page.locator("#load-earlier").count() == 1
    assert _rows(page) <= 320


def test_scrolling_to_the_bottom_loads_later_rows_in_place(long_thread, page) -> None:
    page.goto(f"/t/{long_thread}")
    page.locator("[data-role=assistant] .baton-markdown", has_text="s12 step 28").wait_for()
    wait_idle(page)
    page.locator('.baton-chip[data-session="2"]').click()
    page.locator("#session-2").wait_for()
    page.wait_for_timeout(800)
    last = _last_key(page)
    assert page.locator("#load-later").count() == 1
    # A jump is the page's own scrolling: it loads nothing by itself.
    assert _last_key(page) == last
    seen = _wheel_until(page, 300, lambda: _last_key(page) != last)
    page.wait_for_timeout(1000)
    assert set(page.evaluate(_IN_VIEW)) & set(seen)
    assert _rows(page) <= 320


def test_the_chip_of_the_session_being_read_is_marked(long_thread, page) -> None:
    page.goto(f"/t/{long_thread}")
    page.locator("[data-role=assistant] .baton-markdown", has_text="s12 step 28").wait_for()
    wait_idle(page)
    marked = '.baton-chip[data-inview="true"]'
    page.wait_for_function(f"() => document.querySelector('{marked}')?.dataset.session === '12'")
    page.locator('.baton-chip[data-session="3"]').click()
    page.locator("#session-3").wait_for()
    page.wait_for_function(f"() => document.querySelector('{marked}')?.dataset.session === '3'")
    assert page.locator(marked).count() == 1
    # Reading on into session 4 moves the mark.
    page.mouse.move(400, 400)
    for _ in range(80):
        page.mouse.wheel(0, 400)
        page.wait_for_timeout(100)
        if page.locator(marked).get_attribute("data-session") == "4":
            break
    assert page.locator(marked).get_attribute("data-session") == "4"
    assert page.locator(marked).count() == 1


def test_a_chip_jump_while_the_chat_opens_stays_where_it_went(long_thread, page) -> None:
    # Opening a chat scrolls to the bottom for a few seconds while its rows settle. A chip
    # pressed meanwhile used to be pulled down to the new rows' bottom, and that scroll,
    # taken for the reader's, loaded later rows: the reader ended sessions away (3 times in
    # 8 opens here). Each open gives the race another chance.
    for _ in range(4):
        page.goto(f"/t/{long_thread}")
        page.locator("[data-role=assistant] .baton-markdown", has_text="s12 step 28").wait_for()
        wait_idle(page)
        page.locator('.baton-chip[data-session="3"]').click()
        page.locator("#session-3").wait_for()
        page.wait_for_timeout(3_000)  # longer than the opening's scrolling lasts
        top = page.locator("#session-3").bounding_box()["y"]
        assert 0 <= top <= 200, f"the jump's divider is at {top:.0f} px"
        assert _rows(page) <= 110  # one window: nothing loaded by itself
