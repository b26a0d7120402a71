"""Issue 19: /admin deletes an assistant (its chats move), shows a refusal next to its
field, takes thresholds as percentages, and fits a phone."""

from __future__ import annotations

from tests.browser.chat_page import send, wait_idle
from tests.browser.conftest import ADMIN_PASSWORD


def _sign_in(page):
    page.goto("/admin")
    page.locator("#admin-password, #admin-save").first.wait_for()
    if page.locator("#admin-password").count():  # the tab may still be signed in
        page.locator("#admin-password").fill(ADMIN_PASSWORD)
        page.locator("#admin-password").press("Enter")
    page.locator("#admin-save").wait_for()
    return page.locator("form", has=page.locator("#admin-save"))


def _fits(page, width: int) -> bool:
    return page.evaluate("() => document.documentElement.scrollWidth") <= width


def test_thresholds_are_percentages_and_refusals_sit_by_their_field(page, screenshot_dir) -> None:
    page.set_viewport_size({"width": 390, "height": 844})
    form = _sign_in(page)
    assert form.locator("input[name=reset_threshold]").input_value() == "80"
    assert form.locator("input[name=compact_threshold]").input_value() == "50"
    assert form.locator("input[name=mask_threshold]").input_value() == "35"
    assert _fits(page, 390)
    page.screenshot(path=str(screenshot_dir / "h19a-admin-390.png"), full_page=True)

    form.locator("input[name=compact_threshold]").fill("90")
    page.locator("#admin-save").click()
    error = page.locator("#compact_threshold-error")
    error.wait_for()
    assert "below the reset threshold (80%)" in error.inner_text()
    assert form.locator("input[name=compact_threshold]").get_attribute("aria-invalid") == "true"
    assert page.locator("#admin-error").count() == 0
    # Next to its field: right under the input, not at the top of the page.
    field = form.locator("input[name=compact_threshold]").bounding_box()
    below = error.bounding_box()
    assert 0 <= below["y"] - (field["y"] + field["height"]) < 40
    page.screenshot(path=str(screenshot_dir / "h19a-admin-field-error-390.png"), full_page=True)

    form.locator("input[name=compact_threshold]").fill("0.5")  # a fraction, the old way
    page.locator("#admin-save").click()
    page.locator("#compact_threshold-error", has_text="80 means 80%").wait_for()

    form.locator("input[name=compact_threshold]").fill("55%")
    page.locator("#admin-save").click()
    page.locator("#admin-notice").wait_for()
    assert page.locator("#compact_threshold-error").count() == 0
    assert "compact_threshold: 50% → 55%" in " ".join(
        page.locator(".admin-change").all_inner_texts()
    )
    form.locator("input[name=compact_threshold]").fill("50")  # back, for the other tests
    page.locator("#admin-save").click()
    page.locator("#admin-notice").wait_for()


def test_deleting_an_assistant_moves_its_chats_and_the_last_one_stays(page, screenshot_dir) -> None:
    page.set_viewport_size({"width": 1280, "height": 860})
    form = _sign_in(page)
    page.get_by_role("button", name="New assistant").click()
    page.locator("#admin-notice", has_text="Assistant created").wait_for()
    form.locator("input[name=name]").fill("Short-lived")
    page.locator("#admin-save").click()
    page.locator(".admin-assistant", has_text="Short-lived").wait_for()

    page.goto("/")
    page.locator("#assistant-choice").click()
    page.get_by_role("option", name="Short-lived · Offline simulator").click()
    send(page, "Write a tiny greeting module")
    page.wait_for_url("**/t/**")
    chat = page.url
    wait_idle(page)
    assert page.locator("#chat-assistant").inner_text() == "Short-lived · Offline simulator"

    _sign_in(page)
    page.locator(".admin-assistant", has_text="Short-lived").click()
    page.locator("input[name=name]").and_(page.locator("[value='Short-lived']")).wait_for()
    page.locator("#delete-assistant").click()
    dialog = page.get_by_role("alertdialog")
    dialog.get_by_text("1 chat(s) move").wait_for()
    page.locator("#delete-move-to").select_option(label="Baton")
    page.screenshot(path=str(screenshot_dir / "h19a-admin-delete-1280.png"))
    page.locator("#delete-assistant-confirm").click()
    page.locator("#admin-notice", has_text="1 chat moved to Baton").wait_for()
    assert page.locator(".admin-assistant", has_text="Short-lived").count() == 0

    page.goto(chat)
    page.locator("#chat-assistant", has_text="Baton · Offline simulator").wait_for()
    send(page, "Carry on")  # the moved chat runs on its new assistant
    wait_idle(page)

    _sign_in(page)
    page.locator(".admin-assistant").first.wait_for()
    # Alone (this file on its own), Baton cannot be deleted; beside another one it can.
    if page.locator(".admin-assistant").count() == 1:
        page.locator("#delete-assistant-last").wait_for()
        assert page.locator("#delete-assistant").count() == 0
    else:
        page.locator("#delete-assistant").wait_for()
