"""Issue 18, defect 12: code blocks with a language and a copy button, long messages collapsed."""

from __future__ import annotations

import pytest

from agent_core import NewMessage
from chat_app.root import root
from chat_app.services.conversation.threads import chats as thread_service
from chat_app.services.security import identity
from tests.chat_app.identities import mint_token, owner_of

CODE = 'def greet(name):\n    return f"Hello, {name}"'
LONG = "\n".join(f"line {n} of a long paste" for n in range(1, 121))


def _open_thread_with(app, page, app_server, messages: list[NewMessage]) -> str:
    token = mint_token()
    owner = owner_of(token)
    thread_id = thread_service.create_thread(app, owner, "Markdown").id
    store = root().store
    store.append(thread_id, store.current_session(thread_id).id, messages)
    page.context.add_cookies(
        [{"name": identity.COOKIE_NAME, "value": token, "url": app_server.url}]
    )
    page.goto(f"/t/{thread_id}")
    page.locator("[data-role=assistant]").first.wait_for()
    return thread_id


@pytest.mark.parametrize("width", [1280, 390])
def test_a_code_block_names_its_language_and_copies_its_code(
    server_db, page, screenshot_dir, width: int, app
) -> None:
    page.set_viewport_size({"width": width, "height": 820})
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    _open_thread_with(
        app,
        page,
        server_db,
        [
            NewMessage(role="user", content="Show me a greeting"),
            NewMessage(
                role="assistant",
                content=f"Here:\n\n```python\n{CODE}\n```\n\nand\n\n```\nplain\n```",
            ),
        ],
    )
    blocks = page.locator("[data-role=assistant] .baton-code")
    blocks.first.wait_for()
    assert blocks.count() == 2
    assert blocks.nth(0).locator(".baton-code-language").inner_text() == "python"
    assert blocks.nth(1).locator(".baton-code-language").inner_text() == "text"
    # The highlighter arrives after the page (it is fetched when a code block is drawn);
    # then the code is in tokens (spans of class "token", coloured inline), and reads the same.
    blocks.nth(0).locator("code .token").first.wait_for()
    assert blocks.nth(0).locator("code").inner_text() == CODE
    page.screenshot(path=str(screenshot_dir / f"code-block-{width}.png"), full_page=True)

    blocks.nth(0).get_by_role("button", name="Copy code").click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()).includes('Hello')")
    assert page.evaluate("() => navigator.clipboard.readText()") == CODE


def test_a_long_message_is_collapsed_with_show_more_and_copied_whole(
    server_db, page, screenshot_dir, app
) -> None:
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    _open_thread_with(
        app,
        page,
        server_db,
        [
            NewMessage(role="user", content=LONG),
            NewMessage(role="assistant", content="A short answer."),
        ],
    )
    user = page.locator("[data-role=user]").first
    body = user.locator(".baton-message-body")
    collapsed = body.evaluate("el => el.getBoundingClientRect().height")
    full = body.evaluate("el => el.scrollHeight")
    assert collapsed < full / 2
    assert user.get_by_text("Show more").is_visible()
    # A short message has no toggle.
    assert page.locator("[data-role=assistant] .baton-more").count() == 0
    page.set_viewport_size({"width": 390, "height": 820})
    page.screenshot(path=str(screenshot_dir / "long-message-collapsed-390.png"))
    page.set_viewport_size({"width": 1280, "height": 820})

    user.get_by_text("Show more").click()
    user.get_by_text("Show less").wait_for()
    # Nothing is clipped any more (a paragraph's bottom margin aside).
    assert body.evaluate("el => el.scrollHeight - el.clientHeight") <= 4
    assert body.evaluate("el => el.getBoundingClientRect().height") > collapsed * 3
    page.screenshot(path=str(screenshot_dir / "long-message-expanded-1280.png"))

    user.get_by_role("button", name="Copy message").click()
    page.wait_for_function("async () => (await navigator.clipboard.readText()).length > 100")
    assert page.evaluate("() => navigator.clipboard.readText()") == LONG

    user.get_by_text("Show less").click()
    user.get_by_text("Show more").wait_for()


# The chat page's own script, parsed before its newest message can show: 2.7 MB when each
# place the timeline lists rows held a copy of the row (51 of them), with recharts and the
# highlighter; about 1.5 MB with one row component and those two fetched when needed.
SCRIPT_BUDGET = 1_800_000

_SCRIPTS = """() => performance.getEntriesByType('resource')
    .filter((entry) => entry.name.endsWith('.js'))
    .map((entry) => [new URL(entry.name).pathname, entry.decodedBodySize])"""


def test_a_chat_opened_by_its_url_fetches_no_chart_or_highlighter_script(
    server_db, page, app
) -> None:
    _open_thread_with(
        app,
        page,
        server_db,
        [
            NewMessage(role="user", content="Say hello"),
            NewMessage(role="assistant", content="Hello!"),
        ],
    )
    page.locator("#composer-input").wait_for()
    page.wait_for_load_state("networkidle")
    scripts = dict(page.evaluate(_SCRIPTS))
    bodies = {path: page.request.get(path).text() for path in scripts}

    def holding(marker: str) -> list[str]:
        return [path for path, body in bodies.items() if marker in body]

    assert sum(scripts.values()) <= SCRIPT_BUDGET, sorted(scripts.items(), key=lambda s: -s[1])
    assert holding("recharts-wrapper") == []  # recharts' own class name
    assert holding("react-syntax-highlighter-line-number") == []  # the highlighter's
