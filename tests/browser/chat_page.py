"""What a user does on the chat page, as small Playwright helpers shared by the tests."""

from __future__ import annotations

TURN_TIMEOUT_MS = 180_000

# Records, in the page, whether a streaming reply was ever on screen and every meter value.
WATCH_SCRIPT = """
() => {
  window.__baton = {sawStreaming: false, meter: []};
  const look = () => {
    const streaming = document.getElementById("baton-streaming");
    if (streaming && streaming.textContent.trim()) window.__baton.sawStreaming = true;
    const meter = document.getElementById("context-meter");
    const value = meter && meter.getAttribute("data-percent");
    const seen = window.__baton.meter;
    if (value !== null && value !== undefined && seen[seen.length - 1] !== value) seen.push(value);
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true, attributes: true, characterData: true});
  look();
}
"""


def start_chat(page, first: str | None = None) -> str:
    """Press "New chat": a draft, stored when its first message is sent. With ``first``,
    send it and wait for the chat to be stored. Returns the page's URL (the chat's, once
    it exists)."""
    page.goto("/")
    wait_interactive(page)
    if not page.locator("#new-chat").is_visible():  # a phone: the chat list is a drawer
        page.locator("#sidebar-toggle").click()
    page.locator("#new-chat").click()
    page.locator("#composer-input").wait_for()
    if first is not None:
        send(page, first)
        page.wait_for_url("**/t/**")
    return page.url


def wait_interactive(page) -> None:
    """Until the composer answers keys: React has hydrated it. The page is prerendered, so the
    box shows before that, and a key pressed then only types into it (Enter adds a line
    rather than sending)."""
    page.wait_for_function(
        """() => { const box = document.querySelector('#composer-input');
                   return !!box && Object.keys(box).some(k => k.startsWith('__reactProps')); }"""
    )


def activity(page) -> str:
    return page.locator(".baton-composer").get_attribute("data-activity") or ""


def wait_idle(page, timeout: int = TURN_TIMEOUT_MS) -> None:
    page.wait_for_function(
        "() => document.querySelector('.baton-composer')?.getAttribute('data-activity') === 'idle'",
        timeout=timeout,
    )


def user_messages(page) -> list[str]:
    return [t.strip() for t in page.locator("[data-role=user] .baton-markdown").all_inner_texts()]


def wait_composer_here(page) -> None:
    """Until the composer on screen is the page's at the address: right after the address
    changes, the page before still shows its own until React renders the new one, and a box
    typed into then may be taken out of the page a moment later with what was typed."""
    page.wait_for_function(
        """() => { const box = document.querySelector('#composer-input');
                   const form = box && box.form;
                   if (!form || !Object.keys(box).some(k => k.startsWith('__reactProps')))
                     return false;
                   const chat = location.pathname.match(/^\\/t\\/([^/]+)/);
                   return chat ? form.dataset.thread === chat[1] : form.dataset.draft === 'true'; }""",
        timeout=TURN_TIMEOUT_MS,
    )


def wait_chat_loaded(page) -> None:
    """Until the chat at the address has loaded: its timeline and meter (the composer's form
    names the chat) and its reset controls (the dock names it too), each by its own load
    event. A figure read before then is the page's empty first paint."""
    page.wait_for_function(
        """() => { const chat = location.pathname.match(/^\\/t\\/([^/]+)/);
                   const form = document.querySelector('#composer-input')?.form;
                   const dock = document.querySelector('.baton-composer');
                   return !!chat && !!form && form.dataset.thread === chat[1]
                     && !!dock && dock.dataset.controls === chat[1]; }""",
        timeout=TURN_TIMEOUT_MS,
    )


PASTE = """(text) => {
  const box = document.getElementById('composer-input');
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, text);
  box.dispatchEvent(new Event('input', {bubbles: true}));
}"""


def submit(page, text: str) -> None:
    """Type ``text`` into the page's composer (once it is the page's at the address) and
    press Enter; returns at once, whatever the page does with it."""
    wait_composer_here(page)
    page.locator("#composer-input").fill(text)
    page.locator("#composer-input").press("Enter")


def paste(page, text: str) -> None:
    """Put ``text`` into the page's composer in one input event, as a paste does (typing
    600 KB key by key would take minutes)."""
    wait_composer_here(page)
    page.evaluate(PASTE, text)


def send(page, text: str) -> None:
    """Type ``text`` into the page's composer and press Enter; returns once the message is in
    the timeline."""
    before = user_messages(page).count(text)
    submit(page, text)
    page.wait_for_function(
        """([text, before]) => [...document.querySelectorAll('[data-role=user] .baton-markdown')]
             .filter(e => e.innerText.trim() === text).length > before""",
        arg=[text, before],
        timeout=TURN_TIMEOUT_MS,
    )


def timeline(page) -> list[tuple[str, str]]:
    """The visible timeline as (kind, text) pairs: user/assistant messages and dividers."""
    rows = page.evaluate(
        """() => [...document.querySelectorAll('#timeline .baton-item')].map(item => {
             const message = item.querySelector('.baton-message');
             if (message) return [message.dataset.role,
                                  item.querySelector('.baton-markdown').innerText.trim()];
             const divider = item.querySelector('.baton-divider');
             if (divider) return ['divider', divider.dataset.session];
             return [item.querySelector('.baton-tool') ? 'tool' : 'marker', ''];
           })"""
    )
    return [(kind, text) for kind, text in rows]


def hand_off(page) -> None:
    """Type ``/handoff`` and wait until the new session's divider shows and the chat is idle."""
    before = page.locator("#timeline .baton-divider").count()
    submit(page, "/handoff")
    page.wait_for_function(
        "n => document.querySelectorAll('#timeline .baton-divider').length > n",
        arg=before,
        timeout=TURN_TIMEOUT_MS,
    )
    wait_idle(page)


def load_whole_chat(page) -> None:
    """Press "Load earlier" until the chat's first row is in the page: a chat opens with its
    newest rows only (up to a byte budget, ``ChatState._open_window``)."""
    button = page.locator("#load-earlier")
    while button.count():
        before = page.locator("#timeline .baton-item").count()
        button.click()
        page.wait_for_function(
            "n => document.querySelectorAll('#timeline .baton-item').length > n", arg=before
        )
