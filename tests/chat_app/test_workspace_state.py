"""What the composer says about files the browser refused before uploading them."""

from __future__ import annotations

from chat_app.states.workspace_state import refusal_text


def test_refused_files_are_named_with_the_reason() -> None:
    assert refusal_text(["big.log|file-too-large", "f6.txt|too-many-files",
                         "odd|a|file-invalid-type"]) == (
        "Nothing attached: big.log is larger than 1 MB; f6.txt is one file too many (at most 5 "
        "at a time); odd|a cannot be attached.")
