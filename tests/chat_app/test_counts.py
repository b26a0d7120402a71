"""Counts the page shows read as a person writes them: "1 reset", never "1 resets"."""

from __future__ import annotations

import pytest

from chat_app.services.presentation.counts import counted


@pytest.mark.parametrize(
    ("number", "said"),
    [(0, "0 resets"), (1, "1 reset"), (2, "2 resets"), (1204, "1,204 resets")],
)
def test_the_noun_agrees_with_the_number(number: int, said: str) -> None:
    assert counted(number, "reset") == said


def test_an_irregular_plural_is_given() -> None:
    assert counted(1, "summary", "summaries") == "1 summary"
    assert counted(3, "summary", "summaries") == "3 summaries"
