"""Issue 2: start a thread, see the reply stream in, reload, find it all still there."""

from __future__ import annotations

from chat_app.root import root
from tests.browser.chat_page import WATCH_SCRIPT, send, start_chat, submit, timeline, wait_idle
from tests.browser.conftest import SIM_WINDOW


def test_a_new_chat_streams_a_reply_that_survives_a_reload(page, screenshot_dir):
    start_chat(page)
    page.evaluate(WATCH_SCRIPT)

    send(page, "Hello Baton, please write a tiny greeting module")
    page.wait_for_url("**/t/**")  # the first message stored the chat
    chat_url = page.url
    wait_idle(page)
    page.screenshot(path=str(screenshot_dir / "chat-after-reply.png"), full_page=True)

    assert page.evaluate("window.__baton.sawStreaming"), "the reply never streamed in"
    before = [row for row in timeline(page) if row[0] in ("user", "assistant")]
    assert before[0] == ("user", "Hello Baton, please write a tiny greeting module")
    assert any(kind == "assistant" and text for kind, text in before)

    page.reload()
    page.locator("#composer-input").wait_for()
    page.wait_for_function("() => document.querySelectorAll('[data-role=assistant]').length > 0")
    after = [row for row in timeline(page) if row[0] in ("user", "assistant")]
    assert after == before
    assert page.url == chat_url


def test_the_thread_list_finds_renames_and_deletes_a_chat(page):
    chat_url = start_chat(page, "Write a tiny greeting module")
    wait_idle(page)
    thread_id = chat_url.rsplit("/", 1)[-1]
    page.goto("/")
    row = page.locator(f"[data-thread='{thread_id}']")
    row.wait_for()

    row.get_by_role("button", name="Rename chat").click()
    row.get_by_label("New title").fill("Parser work")
    row.get_by_role("button", name="Save").click()
    page.get_by_text("Parser work").wait_for()

    page.locator("#thread-search input, input#thread-search").first.fill("nothing like it")
    page.get_by_text("No chat matches that title.").wait_for()
    page.locator("#thread-search input, input#thread-search").first.fill("parser")
    row.wait_for()

    row.get_by_role("button", name="Delete chat").click()
    page.get_by_role("alertdialog").get_by_role("button", name="Delete").click()
    row.wait_for(state="detached")


def test_someone_elses_chat_is_not_found(page, browser, app_server):
    chat_url = start_chat(page, "hello")
    stranger = browser.new_context(base_url=app_server.url)
    try:
        other = stranger.new_page()
        other.goto(chat_url)
        other.locator("#not-found").wait_for()
        assert other.locator("#composer-input").count() == 0
    finally:
        stranger.close()


def test_stop_ends_the_turn_and_marks_the_reply(page):
    start_chat(page)
    send(page, "Write a config parser with tests")
    page.locator("#stop-button").click()
    wait_idle(page)
    assert page.locator("#stop-button").count() == 0
    # A stopped turn does not go on to finish its todo list.
    assert page.get_by_text("todos are complete").count() == 0


def test_the_tab_shows_baton_s_icon(page):
    page.goto("/")
    href = page.locator("link[rel=icon]").get_attribute("href")
    assert href == "/favicon.svg"
    response = page.request.get(href)
    assert response.status == 200 and "svg" in response.headers["content-type"]


def test_a_chat_opened_by_its_url_shows_its_newest_message(server_db, page, app) -> None:
    from agent_core import NewMessage
    from chat_app.services.conversation.threads import chats as thread_service
    from chat_app.services.security import identity
    from tests.chat_app.identities import mint_token, owner_of

    token = mint_token()
    thread_id = thread_service.create_thread(app, owner_of(token), "Long").id
    store = root().store
    session = store.current_session(thread_id)
    store.append(
        thread_id,
        session.id,
        [
            NewMessage(
                role="user" if i % 2 == 0 else "assistant",
                content=f"message {i}\n\n" + "a line of text\n" * 6,
            )
            for i in range(60)
        ],
    )
    store.append(thread_id, session.id, [NewMessage(role="assistant", content="the newest one")])
    page.context.add_cookies([{"name": identity.COOKIE_NAME, "value": token, "url": server_db.url}])
    page.goto(f"/t/{thread_id}")  # as from a bookmark or a pasted link
    newest = page.locator("[data-role=assistant] .baton-markdown", has_text="the newest one")
    newest.wait_for()
    page.wait_for_function(
        """() => { const el = [...document.querySelectorAll('[data-role=assistant]')].pop();
                   const box = el.getBoundingClientRect();
                   return box.bottom <= window.innerHeight && box.bottom > 0; }""",
        timeout=5000,
    )


def test_the_view_follows_a_tall_reply_after_a_tall_message(server_db, page, provider_script, app):
    """The reader stays at the bottom; rows taller than any "near the bottom" slack come in:
    the message they send and a reply that streams in."""
    from tests.agent_core.providers.servers import Reply
    from tests.browser.test_security import _login_as, _new_owner, _provider_thread

    token, owner = _new_owner()
    thread_id = _provider_thread(app, owner)
    line = "The greeting module says hello to every guest by name and remembers who came. "
    provider_script.queued.append(Reply(text="\n".join(f"Line {n}: {line}" for n in range(1, 36))))
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    page.locator("#composer-input").wait_for()
    tall = "\n".join(f"Requirement {n}: greet guest number {n}." for n in range(1, 61))
    submit(page, tall)
    page.locator(
        "[data-role=assistant] .baton-markdown", has_text="Line 35: The greeting"
    ).wait_for()
    wait_idle(page)
    # A message this long is sent folded ("Show more"); the reply is taller than any slack.
    assert page.locator("[data-role=user]").last.get_by_text("Show more").is_visible()
    assert page.locator("[data-role=assistant]").last.evaluate("e => e.offsetHeight") > 400
    page.wait_for_function(
        "() => window.innerHeight + window.scrollY >= document.body.scrollHeight - 2", timeout=5_000
    )


def test_the_meter_gives_its_token_figures_on_hover_live_and_after_a_reload(server_db, page, app):
    # README: "hover it for the token figures". The meter is a button (it opens the chart):
    # the figures are the button's own title, which every browser shows on hover.
    from chat_app.services.conversation.threads import chats as thread_service
    from tests.browser.test_security import _login_as, _new_owner

    # On the default assistant (the offline simulator), whichever assistants other tests
    # added: a new chat's picker would start with any of them.
    token, owner = _new_owner()
    thread_id = thread_service.create_thread(app, owner, "Greeting").id
    _login_as(page, server_db, token)
    page.goto(f"/t/{thread_id}")
    page.locator("#composer-input").wait_for()
    send(page, "Write a tiny greeting module")
    wait_idle(page)
    meter = page.locator("#open-context-chart")
    # The simulator's "auto" resolves to reset: only the threshold that acts is named.
    expected = f" of {int(SIM_WINDOW):,} tokens · reset at 80%"
    assert expected in (meter.get_attribute("title") or "")
    page.reload()
    page.locator("[data-role=assistant]").first.wait_for()
    assert expected in (meter.get_attribute("title") or "")
