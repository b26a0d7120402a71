"""The JSON depth pre-check: right on every string, and never a RecursionError past the loader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts import load_transcript
from agent_core.transcripts._loader import json_depth

# Every character JSON escapes (quote, backslash, the short escapes, every control character
# as \u00XX), brackets and braces that are text, newlines, and some non-ASCII.
_TRICKY = st.sampled_from(
    ['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "[", "]", "{", "}", "é", "𝄞", "\u2028"]
    + [chr(c) for c in range(0x20)]
)
_STRINGS = st.lists(st.one_of(_TRICKY, st.text(max_size=3)), max_size=6).map("".join)
_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _STRINGS),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(_STRINGS, inner, max_size=4)
    ),
    max_leaves=30,
)


def _true_depth(value: object) -> int:
    if isinstance(value, list):
        return 1 + max(map(_true_depth, value), default=0)
    if isinstance(value, dict):
        return 1 + max(map(_true_depth, value.values()), default=0)
    return 0


@given(_VALUES, st.booleans())
def test_depth_matches_the_parsed_value_whatever_its_strings_hold(
    value: object, ascii_only: bool
) -> None:
    assert json_depth(json.dumps(value, ensure_ascii=ascii_only)) == _true_depth(value)


@given(st.lists(_VALUES, min_size=1, max_size=5))
def test_depth_of_json_lines_is_the_deepest_record(records: list[object]) -> None:
    text = "\n".join(json.dumps(record) for record in records) + "\n"
    assert json_depth(text) == max(map(_true_depth, records))


def test_ten_thousand_records_ending_in_a_newline_import(tmp_path: Path) -> None:
    # Every tool output that ends in a newline ends its JSON string in \n; such files were
    # refused as nested hundreds of levels deep.
    records = [
        {
            "type": "user" if i % 2 == 0 else "assistant",
            "uuid": f"u{i}",
            "message": {"role": "user" if i % 2 == 0 else "assistant", "content": "line one\n"},
        }
        for i in range(10_000)
    ]
    path = tmp_path / "session.jsonl"
    path.write_text("\n".join(json.dumps(record) for record in records) + "\n")
    assert json_depth(path.read_text()) == 2
    assert len(load_transcript(path).messages) == 10_000


def test_an_escape_before_deep_nesting_does_not_hide_it(tmp_path: Path) -> None:
    # A string ending in \u0007 once swallowed its closing quote, so the nesting after it
    # counted as text and reached the parser, which raised RecursionError.
    path = tmp_path / "deep.jsonl"
    path.write_text(
        '{"type": "user", "note": "bell\\u0007", "message": '
        + '{"a": ' * 5_000
        + "1"
        + "}" * 5_000
        + "}\n"
    )
    with pytest.raises(TranscriptFormatError, match="nested 5,001 levels deep"):
        load_transcript(path)


def test_a_reader_that_recurses_too_deep_is_refused_in_words(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_core.transcripts import _loader as loader

    def recursing(path: Path, text: str) -> object:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setitem(loader.FORMATS, "openai", recursing)
    path = tmp_path / "chat.json"
    path.write_text('[{"role": "user", "content": "hi"}]')
    with pytest.raises(TranscriptFormatError, match="deeper than Python allows"):
        load_transcript(path, format="openai")
