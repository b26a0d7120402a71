"""Issue 18, defect 9: /admin shows the window chats run on and refuses settings that cannot work."""

from __future__ import annotations

from tests.browser.conftest import ADMIN_PASSWORD, SIM_WINDOW


def _sign_in(page):
    page.goto("/admin")
    page.locator("#admin-password").fill(ADMIN_PASSWORD)
    page.locator("#admin-password").press("Enter")
    page.locator("#admin-save").wait_for()
    return page.locator("form", has=page.locator("#admin-save"))


def _save_refused(page, reason: str) -> None:
    page.locator("#admin-save").click()
    # Shown next to the field it is about.
    page.locator(".baton-field-error", has_text=reason).wait_for()


def test_admin_shows_the_effective_window_and_refuses_settings_that_cannot_work(
    page, screenshot_dir
) -> None:
    form = _sign_in(page)
    window = page.locator("#admin-window")
    expected = f"{int(SIM_WINDOW):,}-token window"
    window.get_by_text(expected, exact=False).wait_for()
    assert "BATON_SIM_WINDOW" in window.inner_text()
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(screenshot_dir / f"admin-window-{width}.png"), full_page=True)
    page.set_viewport_size({"width": 1280, "height": 900})

    form.locator("input[name=window_override]").fill("100")
    _save_refused(page, "cannot hold this assistant's fixed context")

    form.locator("input[name=window_override]").fill("")
    form.locator("select[name=context_strategy]").select_option("compact")
    form.locator("input[name=compact_threshold]").fill("40")
    form.locator("input[name=keep_recent_tokens]").fill("2000")
    _save_refused(page, "Compaction cannot get below its threshold")

    form.locator("select[name=context_strategy]").select_option("auto")
    form.locator("input[name=compact_threshold]").fill("50")
    form.locator("input[name=window_override]").fill("9000")
    page.locator("#admin-save").click()
    page.locator("#admin-notice").wait_for()
    window.get_by_text("9,000-token window", exact=False).wait_for()
    assert "window override" in window.inner_text()

    # put the shared test assistant back for the other browser tests
    form.locator("input[name=window_override]").fill("")
    page.locator("#admin-save").click()
    window.get_by_text(expected, exact=False).wait_for()
