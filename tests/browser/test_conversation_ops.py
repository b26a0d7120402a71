"""Conversation operations in chromium: fork from here, export, full-text message search
(on SQLite and on PostgreSQL) and each message's time and tokens on hover and focus."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from chat_app.root import root
from tests.browser.app_server import AppServer, running_app
from tests.browser.chat_page import (
    load_whole_chat,
    send,
    start_chat,
    submit,
    timeline,
    wait_idle,
    wait_interactive,
)
from tests.browser.conftest import (
    SECRET_KEY,
    answer_here,
    answered_here,
    hand_off_here,
    serving,
)
from tests.browser.test_scale_out import _postgres_database


def _handoff(page, sessions: int) -> None:
    """Type /handoff and wait until session ``sessions`` has started."""
    submit(page, "/handoff")
    page.locator(f".baton-divider[data-session='{sessions}']").wait_for(timeout=120_000)
    wait_idle(page)


def _said(page) -> list[str]:
    return [text for kind, text in timeline(page) if kind == "user"]


def _stored(thread_id: str) -> list[tuple[int, str, str]]:

    store = root().store
    return [
        (m.seq, m.role, m.content) for s in store.sessions(thread_id) for m in store.messages(s.id)
    ]


def test_fork_from_here_copies_sessions_and_handoffs_and_goes_on_alone(owned, app, screenshot_dir):
    # The chat forked from (an answer, a handoff, two more answers) is built by this process,
    # at once: the fork is what the test looks at.
    context, owner = owned
    origin_id = answered_here(app, owner, "Plan a vegetable garden")
    hand_off_here(app, owner, origin_id)
    for task in ("Add a pond", "Add a shed"):
        answer_here(app, owner, origin_id, task)
    page = context.new_page()
    page.set_viewport_size({"width": 1100, "height": 820})
    page.goto(f"/t/{origin_id}")
    wait_interactive(page)
    page.locator("[data-role=user] .baton-markdown", has_text="Add a shed").wait_for()
    wait_idle(page)
    load_whole_chat(page)
    origin = page.url
    before, said_before = _stored(origin_id), _said(page)
    assert said_before == ["Plan a vegetable garden", "Add a pond", "Add a shed"]
    assert page.locator(".baton-divider[data-session='2'] .baton-handoff").count() == 1

    pond = page.locator(".baton-item", has=page.locator("[data-role=user]", has_text="Add a pond"))
    pond.get_by_role("button", name="Edit and fork from here").click()
    editor = page.locator("#fork-text")
    editor.wait_for()
    assert editor.input_value() == "Add a pond"
    editor.fill("Add a greenhouse instead")
    page.screenshot(path=str(screenshot_dir / "fork-dialog.png"))
    page.locator("#fork-send").click()
    page.wait_for_url(lambda url: "/t/" in url and url != origin)
    fork = page.url
    page.locator("[data-role=user] .baton-markdown", has_text="Add a greenhouse instead").wait_for()
    wait_idle(page)

    # The fork holds session 1, the divider with its handoff, and the edit answered.
    assert page.locator(".baton-divider[data-session='2'] .baton-handoff").count() == 1
    assert _said(page) == ["Plan a vegetable garden", "Add a greenhouse instead"]
    assert timeline(page)[-1][0] == "assistant"
    assert page.locator("#thread-title").inner_text().endswith("(fork)")
    assert page.locator("#fork-origin").inner_text().strip() != ""
    # The edited branch is a chat of its own in the list, beside the original it came from.
    fork_id = fork.rstrip("/").rsplit("/", 1)[-1]
    listed = page.locator("#sidebar .baton-thread-row")
    page.locator(f'#sidebar a[href="/t/{fork_id}"]').wait_for()
    page.locator(f'#sidebar a[href="/t/{origin_id}"]').wait_for()
    assert "(fork)" in listed.filter(has=page.locator(f'a[href="/t/{fork_id}"]')).inner_text()
    # It goes on by itself: a reset in the fork opens its own session 3.
    _handoff(page, 3)
    send(page, "Water them daily")
    wait_idle(page)
    page.screenshot(path=str(screenshot_dir / "fork-after-reset.png"), full_page=True)
    assert _said(page)[-1] == "Water them daily"

    # The origin is as it was, and the fork's link leads back to it.
    page.locator("#fork-origin").click()
    page.wait_for_url(origin)
    page.locator("[data-role=user] .baton-markdown", has_text="Add a shed").wait_for()
    wait_idle(page)
    load_whole_chat(page)
    assert _said(page) == said_before
    assert _stored(origin_id) == before
    assert page.locator(".baton-divider[data-session='3']").count() == 0
    assert page.locator("#fork-origin").count() == 0
    page.goto(fork)
    page.locator(".baton-divider[data-session='3']").wait_for()


def test_export_downloads_markdown_with_sections_and_json_that_parses(owned, app):
    # The chat (an answer, a handoff, one more answer) is built by this process, at once: the
    # export is what the test looks at.
    context, owner = owned
    thread_id = answered_here(app, owner, "Sketch a bird feeder")
    hand_off_here(app, owner, thread_id)
    answer_here(app, owner, thread_id, "Make it squirrel proof")
    page = context.new_page()
    page.goto(f"/t/{thread_id}")
    wait_interactive(page)
    page.locator("[data-role=user] .baton-markdown", has_text="Make it squirrel proof").wait_for()

    page.locator("#chat-menu").click()
    with page.expect_download() as downloaded:
        page.locator("#export-markdown").click()
    assert downloaded.value.suggested_filename.endswith(".md")
    text = Path(downloaded.value.path()).read_text(encoding="utf-8")
    assert text.startswith("# Sketch a bird feeder")
    at = 0
    for mark in [
        "## Session 1",
        "**You**",
        "Sketch a bird feeder",
        "**Assistant**",
        "## Session 2",
        "/handoff",
        "### Handoff from session 1",
        "Make it squirrel proof",
    ]:  # each section after the one before
        at = text.find(mark, at)
        assert at >= 0, f"{mark!r} missing or out of order in:\n{text[:3000]}"

    page.locator("#export-markdown").wait_for(state="detached")  # the menu closed
    page.locator("#chat-menu").click()
    with page.expect_download() as downloaded:
        page.locator("#export-json").click()
    assert downloaded.value.suggested_filename.endswith(".json")
    data = json.loads(Path(downloaded.value.path()).read_text(encoding="utf-8"))
    assert [s["number"] for s in data["sessions"]] == [1, 2]
    assert data["sessions"][1]["handoff"]
    said = [m["content"] for s in data["sessions"] for m in s["messages"] if m["role"] == "user"]
    assert "Sketch a bird feeder" in said and "Make it squirrel proof" in said


def test_a_message_shows_its_time_and_tokens_on_hover_and_on_focus(page, screenshot_dir):
    start_chat(page, "Count my tokens please")
    wait_idle(page)
    label = page.locator("[data-role=user] .baton-msg-time").first
    tip = label.get_by_role("tooltip")
    assert not tip.is_visible()
    label.hover()
    tip.wait_for()
    assert " UTC · " in tip.inner_text() and "tokens (counted)" in tip.inner_text()
    page.screenshot(path=str(screenshot_dir / "message-time-tooltip.png"))
    page.mouse.move(5, 5)
    tip.wait_for(state="hidden")

    # The keyboard reaches it too: Tab onto the reply's time shows its tooltip.
    reply = page.locator("[data-role=assistant] .baton-msg-time").last
    reply_tip = reply.get_by_role("tooltip")
    page.locator("#composer-input").focus()
    for _ in range(40):
        if reply.evaluate("el => el === document.activeElement"):
            break
        page.keyboard.press("Shift+Tab")
    reply_tip.wait_for()
    assert "tokens" in reply_tip.inner_text() and " UTC" in reply_tip.inner_text()


# full-text search, on both databases -------------------------------------------------------
SESSIONS, PER_SESSION = 6, 60  # 360 rows: the hit lies far outside the newest window


def _seed(app, owner: str) -> tuple[str, int, str]:
    """A long chat whose session 2 holds the only "quokka", and a short one; returns the
    long chat, the hit's seq and the short chat."""
    from agent_core import NewMessage
    from chat_app.services.conversation.threads import chats as thread_service

    store = root().store
    long_id = thread_service.create_thread(app, owner, "Long expedition").id
    hit_seq = 0
    for number in range(1, SESSIONS + 1):
        session = store.current_session(long_id)
        rows = [
            NewMessage(role="assistant" if n % 2 else "user", content=f"s{number} line {n}")
            for n in range(PER_SESSION)
        ]
        if number == 2:
            rows[10] = NewMessage(role="user", content="We saw a quokka near the river bend")
        stored = store.append(long_id, session.id, rows)
        hit_seq = stored[10].seq if number == 2 else hit_seq
        if number < SESSIONS:
            store.commit_reset(
                long_id,
                old_session_id=session.id,
                trigger="auto",
                utilization=0.8,
                model="simulator",
                handoff={"session_number": number, "trigger": "auto"},
                handoff_path=f"HANDOFF-{number}.md",
                handoff_markdown="-",
                context=[NewMessage(role="handoff", content="<handoff>")],
            )
    short_id = thread_service.create_thread(app, owner, "Short note").id
    store.append(
        short_id,
        store.current_session(short_id).id,
        [NewMessage(role="user", content="nothing about animals here")],
    )
    return long_id, hit_seq, short_id


@pytest.fixture(scope="module")
def pg_server(chromium_path, tmp_path_factory) -> Iterator[AppServer]:
    for database_url in _postgres_database():
        with running_app(
            tmp_path_factory.mktemp("baton-pg"),
            {"REFLEX_DB_URL": database_url, "BATON_SECRET_KEY": SECRET_KEY},
        ) as server:
            server.db_url = database_url
            yield server


@pytest.fixture(params=["sqlite", "postgres"])
def search_server(request) -> Iterator[AppServer]:
    server = request.getfixturevalue("app_server" if request.param == "sqlite" else "pg_server")
    with serving(server.db_url or f"sqlite:///{server.db_path}"):
        yield server


def test_search_finds_a_message_in_another_chat_and_opens_it_there(
    search_server, browser, screenshot_dir, app
):
    from chat_app.services.security import identity
    from tests.chat_app.identities import mint_token, owner_of

    token = mint_token()
    long_id, hit_seq, short_id = _seed(app, owner_of(token))
    context = browser.new_context(
        base_url=search_server.url, viewport={"width": 1100, "height": 820}
    )
    context.set_default_timeout(30_000)
    context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": search_server.url}])
    page = context.new_page()
    try:
        page.goto(f"/t/{short_id}")
        page.locator("[data-role=user] .baton-markdown", has_text="nothing about").wait_for()
        page.locator("#message-search-open").click()
        page.locator("#message-search-input").fill("RIVER quokka")
        page.locator("#message-search-input").press("Enter")
        hit = page.locator(".baton-search-hit")
        hit.first.wait_for()
        assert hit.count() == 1
        assert "Long expedition" in hit.inner_text() and "session 2" in hit.inner_text()
        page.screenshot(path=str(screenshot_dir / "message-search.png"))
        page.locator("#message-search-input").fill("quokka penguin")
        page.locator("#message-search-input").press("Enter")
        page.locator("#message-search-empty").wait_for()
        page.locator("#message-search-input").fill("quokka")
        page.locator("#message-search-input").press("Enter")
        hit.first.click()

        page.wait_for_url(f"**/t/{long_id}?at={hit_seq}")
        found = page.locator(f".baton-item[data-seq='{hit_seq}']")
        found.wait_for()
        assert "quokka" in found.inner_text()
        page.wait_for_function(
            """(seq) => { const el = document.querySelector(`.baton-item[data-seq="${seq}"]`);
                          const box = el && el.getBoundingClientRect();
                          return box && box.top >= 0 && box.bottom <= innerHeight; }""",
            arg=hit_seq,
        )
        # A window around the hit, not the whole chat.
        assert page.locator("#timeline .baton-item").count() <= 120
        assert page.locator("#load-later").count() == 1
    finally:
        context.close()


def test_regenerate_keeps_the_earlier_reply_and_it_can_be_chosen_again(
    server_db, page, screenshot_dir
):
    from agent_core import build_context

    path = start_chat(page, "Describe a kite in one line")
    wait_idle(page)
    thread_id = path.rstrip("/").rsplit("/", 1)[-1]
    replies_before = page.locator("[data-role=assistant]").count()
    assert page.locator("[data-replaced=true]").count() == 0

    page.locator("#regenerate").click()
    page.locator(".baton-item[data-replaced=true]").first.wait_for()
    wait_idle(page)
    page.screenshot(path=str(screenshot_dir / "regenerated.png"), full_page=True)
    # The earlier reply is still there, marked; a new one follows it.
    earlier = page.locator(".baton-item[data-replaced=true] [data-role=assistant]")
    assert earlier.count() == replies_before
    assert page.locator("[data-role=assistant]").count() > replies_before
    # The earlier reply is one thing: every row of it dimmed (its tool rows and markers too),
    # one "Use this reply" for it, under its last row.
    kinds = page.locator("#timeline .baton-item").evaluate_all("""els => els.map(e => [
        e.dataset.replaced, !!e.querySelector('.baton-tool'), !!e.querySelector('.baton-marker'),
        !!e.querySelector('.baton-use-reply'), e.querySelector('.baton-message')?.dataset.role])""")
    first = next(i for i, k in enumerate(kinds) if k[0] == "true")
    last = max(i for i, k in enumerate(kinds) if k[0] == "true")
    span = kinds[first : last + 1]
    assert all(k[0] == "true" for k in span)
    assert any(k[1] for k in span) and any(k[2] for k in span)  # tool rows and a marker
    assert [i for i, k in enumerate(kinds) if k[3]] == [last]
    assert page.locator(".baton-use-reply").count() == 1
    store = root().store
    session = store.current_session(thread_id)
    # (a marker shown live has no seq yet: 0)
    hidden = {
        int(s)
        for s in page.locator(".baton-item[data-replaced=true]").evaluate_all(
            "els => els.map(e => e.dataset.seq)"
        )
    } - {0}
    seen = {m.id for m in build_context(store, session)}
    assert not seen & {m.id for m in store.messages(session.id) if m.seq in hidden}

    # Choosing it back: the other reply is the earlier one now; a reload shows the same.
    page.locator(".baton-use-reply").first.click()
    page.wait_for_function(
        "(seq) => document.querySelector(`.baton-item[data-seq='${seq}']`)"
        "?.dataset.replaced === 'false'",
        arg=min(hidden),
    )
    now_hidden = page.locator(".baton-item[data-replaced=true]").evaluate_all(
        "els => els.map(e => Number(e.dataset.seq))"
    )
    assert not hidden & set(now_hidden)
    page.reload()
    page.locator(".baton-item[data-replaced=true]").first.wait_for()
    assert (
        page.locator(".baton-item[data-replaced=true]").evaluate_all(
            "els => els.map(e => Number(e.dataset.seq))"
        )
        == now_hidden
    )
