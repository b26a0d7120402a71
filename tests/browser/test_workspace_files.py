"""Attaching files to a message, the workspace panel and its zip download, in chromium."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

from tests.browser.chat_page import start_chat, user_messages, wait_idle

MODULE = b"def greet(name):\n    return f'hello {name}'\n"
NOTES = "Use the greet function.\n\u00e9t\u00e9\n".encode()


def _files(*named: tuple[str, bytes]) -> list[dict]:
    mime = {"py": "text/x-python", "txt": "text/plain", "png": "image/png"}
    return [
        {"name": name, "mimeType": mime[name.rsplit(".", 1)[-1]], "buffer": data}
        for name, data in named
    ]


def test_attach_files_send_them_named_and_download_the_workspace(page, screenshot_dir) -> None:
    # Files are attached to a chat that exists: one is stored with its first message.
    start_chat(page, "Hello")
    wait_idle(page)
    composer = page.locator("#composer-input")
    upload = page.locator("#attach input[type=file]")

    composer.fill("Please review these")
    upload.set_input_files(_files(("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")))
    page.locator("#attach-error", has_text="logo.png is not a text file").wait_for()
    page.screenshot(path=str(screenshot_dir / "attach-refused-1280.png"))
    upload.set_input_files(_files(("big.txt", b"x" * 1_200_000)))
    page.locator("#attach-error", has_text="big.txt is larger than 1 MB").wait_for()
    assert composer.input_value() == "Please review these"
    assert composer.input_value() == "Please review these"  # a refusal leaves the text alone

    upload.set_input_files(_files(("attached_module.py", MODULE), ("notes_for_agent.txt", NOTES)))
    page.wait_for_function(
        "() => document.getElementById('composer-input').value.endsWith("
        "'Attached: attached_module.py, notes_for_agent.txt')"
    )
    assert page.locator("#attach-error").count() == 0
    assert composer.input_value() == (
        "Please review these\n\nAttached: attached_module.py, notes_for_agent.txt"
    )
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(screenshot_dir / f"attached-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 900})
    composer.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-role=user] .baton-markdown')]"
        ".some(e => e.innerText.includes('Attached: attached_module.py, notes_for_agent.txt'))"
    )
    wait_idle(page)
    assert user_messages(page)[-1].startswith("Please review these")

    page.locator("#workspace-button").click()
    panel = page.locator("#workspace-panel")
    panel.locator(".workspace-file", has_text="attached_module.py").wait_for()
    listed = panel.locator(".workspace-file").all_inner_texts()
    assert any(text.startswith("notes_for_agent.txt") for text in listed)
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(screenshot_dir / f"workspace-{width}.png"))
    page.set_viewport_size({"width": 1280, "height": 900})

    with page.expect_download() as downloaded:
        panel.locator(".workspace-file", has_text="attached_module.py").get_by_role(
            "button", name="Download"
        ).click()
    assert downloaded.value.suggested_filename == "attached_module.py"
    assert Path(downloaded.value.path()).read_bytes() == MODULE

    with page.expect_download() as downloaded:
        page.locator("#workspace-zip").click()
    assert downloaded.value.suggested_filename == "workspace.zip"
    archive = zipfile.ZipFile(io.BytesIO(Path(downloaded.value.path()).read_bytes()))
    assert archive.read("attached_module.py") == MODULE
    assert archive.read("notes_for_agent.txt") == NOTES
