"""/handoff from the composer, and editing an assistant on /admin, in chromium."""

from __future__ import annotations

from tests.browser.chat_page import send, start_chat, submit, wait_idle
from tests.browser.conftest import ADMIN_PASSWORD


def _toast(page, text: str) -> None:
    page.locator("[data-sonner-toast]", has_text=text).first.wait_for()


def test_handoff_command_on_a_new_chat_and_after_a_turn(page) -> None:
    start_chat(page)
    # A new chat is a draft until its first message: a command there stores nothing.
    submit(page, "/handoff")
    _toast(page, "/handoff works in a chat that has begun")
    assert "/t/" not in page.url
    assert page.locator("#composer-input").input_value() == "/handoff"

    send(page, "Write a tiny greeting module")
    wait_idle(page)
    page.locator("#composer-input").fill("/hand")
    page.get_by_text("/handoff [focus]").first.wait_for()  # the composer's hint
    submit(page, "/handoff focus on the tests")
    page.locator("[data-session='2'].baton-divider").wait_for()
    _toast(page, "Session 2 started with the handoff")
    wait_idle(page)
    card = page.locator("[data-session='2'].baton-divider .baton-handoff")
    card.locator("summary").first.click()
    divider = page.locator("[data-session='2'].baton-divider")
    assert "/handoff at" in divider.inner_text()
    assert "Focus: focus on the tests" in card.inner_text()
    page.reload()
    page.locator("[data-session='2'].baton-divider").wait_for()
    assert (
        "focus: focus on the tests"
        in page.locator("[data-session='2'].baton-divider .baton-divider-label").inner_text()
    )


def test_admin_edits_an_assistant_validates_and_keeps_history(page) -> None:
    page.goto("/admin")
    page.locator("#admin-password").fill(ADMIN_PASSWORD)
    page.locator("#admin-password").press("Enter")
    page.locator("#admin-save").wait_for()
    form = page.locator("form", has=page.locator("#admin-save"))

    form.locator("input[name=compact_threshold]").fill("90")
    form.locator("input[name=reset_threshold]").fill("80")
    page.locator("#admin-save").click()
    page.locator("#compact_threshold-error").wait_for()  # next to its field
    assert "below" in page.locator("#compact_threshold-error").inner_text()

    # Values that fit the 6,000-token window the browser tests' server runs on: keep-recent
    # (2,000) below the mask threshold's tokens, compaction able to get below its threshold.
    form.locator("input[name=compact_threshold]").fill("70")
    form.locator("input[name=reset_threshold]").fill("85")
    form.locator("input[name=model]").fill("anthropic:claude-opus-4-1")
    form.locator("input[name=mask_threshold]").fill("40")
    form.locator("select[name=history_tools]").select_option("off")
    assert form.locator("select[name=sandbox_network]").input_value() == "off"  # the default
    form.locator("select[name=sandbox_network]").select_option("on")
    page.locator("#admin-save").click()
    page.locator("#admin-notice").wait_for()
    page.locator("#admin-effective", has_text="compact").wait_for()  # auto -> compact for Opus
    history = page.locator(".admin-change")
    history.first.wait_for()
    changed = " ".join(history.all_inner_texts())
    assert "reset_threshold" in changed and "mask_threshold: 35% → 40%" in changed
    assert "history_tools" in changed and "sandbox_network: false → true" in changed

    # put the shared test assistant back for the other browser tests
    form.locator("input[name=model]").fill("simulator")
    form.locator("input[name=compact_threshold]").fill("50")
    form.locator("input[name=reset_threshold]").fill("80")
    form.locator("input[name=mask_threshold]").fill("35")
    form.locator("select[name=history_tools]").select_option("on")
    form.locator("select[name=sandbox_network]").select_option("off")
    page.locator("#admin-save").click()
    page.locator("#admin-effective", has_text="reset").wait_for()


def test_escape_cancels_a_running_handoff_and_stops_a_turn(page) -> None:
    start_chat(page)
    send(page, "Write a tiny greeting module")
    wait_idle(page)
    submit(page, "/handoff")
    page.locator("#stop-button", has_text="Cancel handoff").wait_for()
    page.keyboard.press("Escape")
    _toast(page, "Handoff cancelled")
    wait_idle(page)
    assert page.locator("[data-session='2'].baton-divider").count() == 0

    finished = page.get_by_text("todos are complete").count()  # the first turn's summary
    send(page, "Now write a config parser with tests")
    page.locator("#stop-button", has_text="Stop").wait_for()
    page.keyboard.press("Escape")
    wait_idle(page)
    # A stopped turn does not go on to finish its todo list.
    assert page.get_by_text("todos are complete").count() == finished


def test_a_new_chat_can_start_with_another_assistant(page) -> None:
    page.goto("/admin")
    page.locator("#admin-password").fill(ADMIN_PASSWORD)
    page.locator("#admin-password").press("Enter")
    page.get_by_role("button", name="New assistant").click()
    page.locator("#admin-notice", has_text="Assistant created").wait_for()
    form = page.locator("form", has=page.locator("#admin-save"))
    form.locator("input[name=name]").fill("Reviewer")
    page.locator("#admin-save").click()
    page.locator(".admin-assistant", has_text="Reviewer").wait_for()

    page.goto("/")
    page.locator("#assistant-choice").click()
    page.get_by_role("option", name="Reviewer · Offline simulator").click()
    page.locator("#new-chat").click()
    send(page, "Review the parser")
    wait_idle(page)
    page.goto("/")
    row = page.locator(".rt-Card", has_text="Review the parser")
    row.wait_for()
    assert "Reviewer · Offline simulator" in row.inner_text()
