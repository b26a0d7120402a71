"""What the composer says about files the browser refused before uploading them."""

from __future__ import annotations

from chat_app.states.workspace_state import refusal_text


def test_refused_files_are_named_with_the_reason() -> None:
    assert refusal_text(["big.log|file-too-large", "odd|a|file-invalid-type"]) == (
        "Nothing attached: big.log is larger than 1 MB; odd|a cannot be attached."
    )


def test_files_refused_for_one_reason_share_one_sentence() -> None:
    assert (
        refusal_text(["a.log|file-too-large", "b.log|file-too-large", "c.log|file-too-large"])
        == "Nothing attached: a.log, b.log and c.log are larger than 1 MB."
    )


def test_too_many_files_is_one_error_naming_the_limit() -> None:
    # The browser refuses all six, each as "too many": the user reads it once.
    six = [f"f{n}.txt|too-many-files" for n in range(1, 7)]
    assert refusal_text(six) == "Nothing attached: 6 files chosen; attach at most 5 at a time."
    assert refusal_text([*six[:5], "big.log|file-too-large,too-many-files"]) == refusal_text(six)
