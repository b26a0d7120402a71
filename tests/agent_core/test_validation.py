"""What a user message must be before it is stored."""

from __future__ import annotations

import pytest

from agent_core.errors import MessageRejected
from agent_core.validation import MAX_MESSAGE_BYTES, validate_user_message


@pytest.mark.parametrize(
    "text",
    [
        "\u200b",
        "\u200b\u200c\u200d\u2060",
        " \ufeff \u200b\n",
        "\u3164",
        "\u2800\u2800",
        "\u00ad",
    ],
)
def test_a_message_of_only_invisible_characters_is_refused(text: str) -> None:
    with pytest.raises(MessageRejected, match="invisible"):
        validate_user_message(text)


@pytest.mark.parametrize("text", ["a\u200b", "👍", "\u05d0", "  x  ", "ـ"])
def test_a_message_with_anything_visible_is_kept(text: str) -> None:
    assert validate_user_message(text) == text.strip()


def test_whitespace_only_is_empty_and_oversize_names_the_limit() -> None:
    with pytest.raises(MessageRejected, match="empty"):
        validate_user_message(" \n\t ")
    with pytest.raises(MessageRejected, match="512 KB"):
        validate_user_message("x" * (MAX_MESSAGE_BYTES + 1))


def test_a_message_is_validated_once_then_taken_as_it_is(monkeypatch) -> None:
    import agent_core.validation as validation
    from agent_core.validation import UserText

    checked = validate_user_message("  fix the parser  ")
    assert isinstance(checked, UserText) and checked == "fix the parser"
    # Passing the checked text on (service -> engine) does not check it again.
    monkeypatch.setattr(validation, "_has_lone_surrogate", lambda _t: pytest.fail("re-checked"))
    assert validate_user_message(checked) is checked
    monkeypatch.undo()
    # A stricter limit than the one it was checked against is applied again.
    with pytest.raises(MessageRejected, match="too large"):
        validate_user_message(checked, max_bytes=4)
