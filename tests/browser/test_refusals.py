"""A refused message keeps its text in the composer, with the reason in the user's words."""

from __future__ import annotations

from tests.browser.chat_page import start_chat

# As a paste does: the whole text at once, one input event (typing 600 KB would take minutes).
PASTE = """(text) => {
  const box = document.getElementById('composer-input');
  Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(box, text);
  box.dispatchEvent(new Event('input', {bubbles: true}));
}"""


def _refused(page, text: str, reason: str) -> None:
    page.evaluate(PASTE, text)
    page.locator("#composer-input").press("Enter")
    page.wait_for_selector(f"[data-sonner-toast] >> text={reason}")
    page.wait_for_function("(n) => document.getElementById('composer-input').value.length === n",
                           arg=len(text))
    assert page.locator("#composer-input").input_value() == text
    assert page.locator("[data-role=user]").count() == 0


def test_a_600_kb_message_is_refused_and_kept(page) -> None:
    start_chat(page)
    # Past the documented 512 KB limit, and past the ~488 KB at which the socket used to drop.
    _refused(page, "log line with some text\n" * 25_600, "too large")


def test_a_message_of_zero_width_spaces_is_refused_and_kept(page) -> None:
    start_chat(page)
    _refused(page, "\u200b\u200b\u200b", "invisible characters")
    page.wait_for_timeout(300)
    assert page.locator("#thread-title").inner_text().strip() == "New chat"
