"""Exact, incremental token counting against published reference figures."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from pydantic import BaseModel, Field

from agent_core.accounting import _tokens as tokens_module
from agent_core.accounting._tokens import TokenCounter, get_encoding
from agent_core.errors import ConfigurationError
from tests.shared_data import eval_path, shared_dir

GPT4_CLASS = ["gpt-4", "gpt-3.5-turbo", "gpt-4-0613"]
GPT4O_CLASS = ["gpt-4o", "gpt-4o-mini"]


def _references() -> dict:
    path = eval_path("token-count-references", "openai_cookbook_token_counts.json")
    return json.loads(path.read_text(encoding="utf-8"))


def _as_messages(raw: list[dict]) -> list:
    kinds = {"system": SystemMessage, "user": HumanMessage, "assistant": AIMessage}
    return [kinds[m["role"]](content=m["content"], name=m.get("name")) for m in raw]


def _tiktoken_vectors(encoding: str) -> list[dict]:
    # Runs at collection time, where pytest.skip is not allowed: absent data gives no vectors.
    path = shared_dir() / "eval" / "token-count-references" / "tiktoken_test_vectors.json"
    if not path.exists():
        return []
    return [v for v in json.loads(path.read_text(encoding="utf-8")) if v["encoding"] == encoding]


_CL100K_VECTORS = _tiktoken_vectors("cl100k_base")


@pytest.mark.parametrize("vector", _CL100K_VECTORS or [None])
def test_cl100k_matches_every_tiktoken_vector(vector: dict | None) -> None:
    if vector is None:
        eval_path("token-count-references", "tiktoken_test_vectors.json")
        pytest.fail("tiktoken_test_vectors.json holds no cl100k vectors")
    encoding = get_encoding("cl100k_base")
    if vector["method"] == "encode":
        assert encoding.encode(vector["input"], **vector["kwargs"]) == vector["expected"]
    elif vector["method"] == "decode":
        assert encoding.decode(vector["input"]) == vector["expected"]
    else:
        raw = bytes.fromhex(vector["input"]["bytes_hex"])
        assert encoding._encode_bytes(raw) == vector["expected"]


def test_o200k_vectors_if_present() -> None:
    eval_path("token-count-references", "tiktoken_test_vectors.json")
    vectors = _tiktoken_vectors("o200k_base")
    if not vectors:
        pytest.skip("tiktoken_test_vectors.json holds no o200k vectors; cookbook ids checked below")
    encoding = get_encoding("o200k_base")
    for vector in vectors:
        if vector["method"] == "encode":
            assert encoding.encode(vector["input"], **vector["kwargs"]) == vector["expected"]


@pytest.mark.parametrize("encoding_name", ["cl100k_base", "o200k_base"])
def test_cookbook_strings_encode_to_the_published_ids(encoding_name: str) -> None:
    encoding = get_encoding(encoding_name)
    for case in _references()["string_counts"]:
        assert encoding.encode(case["input"]) == case["token_ids"][encoding_name]


@pytest.mark.parametrize(
    ("model", "expected"), [(m, 129) for m in GPT4_CLASS] + [(m, 124) for m in GPT4O_CLASS]
)
def test_cookbook_chat_example(model: str, expected: int) -> None:
    case = _references()["chat_messages_case"]
    assert TokenCounter(model).count(_as_messages(case["messages"])) == expected


@pytest.mark.parametrize(
    ("model", "expected"), [(m, 105) for m in GPT4_CLASS[:2]] + [(m, 101) for m in GPT4O_CLASS]
)
def test_cookbook_tools_example(model: str, expected: int) -> None:
    case = _references()["tools_case"]
    counter = TokenCounter(model)
    assert counter.count(_as_messages(case["messages"]), tools=case["tools"]) == expected


def test_system_argument_counts_like_a_leading_system_message() -> None:
    counter = TokenCounter("gpt-4o")
    history = [HumanMessage("hello there")]
    with_arg = counter.count(history, system="Be brief.")
    assert with_arg == counter.count([SystemMessage("Be brief."), *history])


def test_name_adds_one_token_plus_the_name() -> None:
    counter = TokenCounter("gpt-4")
    plain = counter.count_message(HumanMessage("hi"))
    named = counter.count_message(HumanMessage("hi", name="alice"))
    assert named == plain + 1 + counter.count_text("alice")


def test_tool_calls_and_tool_results_are_counted() -> None:
    counter = TokenCounter("gpt-4o")
    call = {"name": "read_file", "args": {"path": "src/app.py"}, "id": "c1"}
    bare = counter.count_message(AIMessage(""))
    with_call = counter.count_message(AIMessage("", tool_calls=[call]))
    expected_call = (
        3 + counter.count_text("read_file") + counter.count_text('{"path":"src/app.py"}')
    )
    assert with_call == bare + expected_call
    result = ToolMessage("print('hi')", tool_call_id="c1")
    assert counter.count_message(result) == 3 + counter.count_text("tool") + counter.count_text(
        "print('hi')"
    )


def test_anthropic_tool_use_blocks_are_not_counted_twice() -> None:
    counter = TokenCounter("claude-sonnet-4-5")
    call = {"name": "ls", "args": {}, "id": "t1"}
    blocks = [
        {"type": "text", "text": "Listing."},
        {"type": "tool_use", "id": "t1", "name": "ls", "input": {}},
    ]
    as_blocks = counter.count_message(AIMessage(content=blocks, tool_calls=[call]))
    as_text = counter.count_message(AIMessage(content="Listing.", tool_calls=[call]))
    assert as_blocks == as_text


def test_image_blocks_cost_a_fixed_amount() -> None:
    counter = TokenCounter("gpt-4o")
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64," + "A" * 10_000}}
    message = HumanMessage(content=[{"type": "text", "text": "look"}, image])
    assert counter.count_message(message) == counter.count_message(HumanMessage("look")) + 85


class _Weather(BaseModel):
    """Get the current weather in a given location."""

    location: str = Field(description="The city and state, e.g. San Francisco, CA")


@tool
def _weather_tool(location: str) -> str:
    """Get the current weather in a given location.

    Args:
        location: The city and state, e.g. San Francisco, CA
    """
    return "sunny"


def test_tool_schemas_may_be_dicts_pydantic_classes_or_base_tools() -> None:
    counter = TokenCounter("gpt-4o")
    messages = [HumanMessage("weather?")]
    base = counter.count(messages)
    from_model = counter.count(messages, tools=[_Weather])
    from_tool = counter.count(messages, tools=[_weather_tool])
    assert from_model > base + 12
    assert from_tool > base + 12


def test_growing_history_encodes_only_the_new_message(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = TokenCounter("gpt-4")
    history = [HumanMessage(f"message number {i}") for i in range(50)]
    counter.count(history)
    encoded: list[str] = []
    original = counter._count_uncached
    monkeypatch.setattr(
        counter, "_count_uncached", lambda m: encoded.append(m.content) or original(m)
    )
    history.append(AIMessage("the newest reply"))
    total = counter.count(history)
    assert encoded == ["the newest reply"]
    assert total == TokenCounter("gpt-4").count(history)


def test_an_edited_message_is_recounted() -> None:
    counter = TokenCounter("gpt-4")
    message = HumanMessage("short")
    history = [message]
    before = counter.count(history)
    message.content = "a much longer message than before, with many more tokens in it"
    assert counter.count(history) == TokenCounter("gpt-4").count(history) > before


def test_edited_tool_call_arguments_are_recounted() -> None:
    counter = TokenCounter("gpt-4o")
    message = AIMessage("", tool_calls=[{"name": "w", "args": {"p": "a"}, "id": "1"}])
    before = counter.count([message])
    # Messages are edited by assigning new values (in-place edits of args are not tracked).
    message.tool_calls = [{"name": "w", "args": {"p": "a", "q": "a longer value"}, "id": "1"}]
    assert counter.count([message]) > before


def test_counts_stay_exact_when_a_history_shrinks_or_is_reordered() -> None:
    counter = TokenCounter("gpt-4")
    history = [HumanMessage(f"turn {i} " * (i + 1)) for i in range(20)]
    counter.count(history)
    for variant in (history[5:], history[::-1], history[:3] + [AIMessage("new")]):
        assert counter.count(variant) == TokenCounter("gpt-4").count(variant)


def test_plain_dict_messages_are_accepted() -> None:
    counter = TokenCounter("gpt-4")
    as_dict = counter.count([{"role": "user", "content": "hello"}])
    assert as_dict == counter.count([HumanMessage("hello")])


def test_encodings_load_offline_with_an_empty_tiktoken_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path))
    get_encoding.cache_clear()
    try:
        # conftest turns any non-loopback connection into an error, so a download would fail.
        assert get_encoding("o200k_base").encode("tiktoken is great!") == [
            83,
            8251,
            2488,
            382,
            2212,
            0,
        ]
        assert get_encoding("cl100k_base").name == "cl100k_base"
    finally:
        get_encoding.cache_clear()


def test_a_corrupt_bundled_file_fails_the_hash_check(
    monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    bad = tmp_path / "o200k_base.tiktoken"
    bad.write_bytes(b"aGVsbG8= 0\n")
    monkeypatch.setattr(tokens_module, "_O200K_FILE", bad)
    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    get_encoding.cache_clear()
    try:
        with pytest.raises(ValueError, match="Hash mismatch"):
            get_encoding("o200k_base")
    finally:
        get_encoding.cache_clear()


def test_unsupported_encoding_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError):
        get_encoding("p50k_base")


def test_encoding_follows_the_model() -> None:
    assert TokenCounter("gpt-4o").encoding_name == "o200k_base"
    assert TokenCounter("gpt-4").encoding_name == "cl100k_base"
    assert TokenCounter("simulator").encoding_name == "cl100k_base"


def test_counting_a_turns_tools_does_not_keep_them_alive() -> None:
    # Tools are made for each turn; the count cache held each turn's tools (and the store
    # and thread they close over) for the life of the process.
    import gc
    import weakref

    from agent_core.tools._builtin import make_tools

    counter = TokenCounter("gpt-4o")
    tools = make_tools(None, "thread-a")
    first = counter.count_tools(tools)
    assert counter.count_tools(tools) == first  # cached while the turn runs
    gone = weakref.ref(tools[0])
    del tools
    gc.collect()
    assert gone() is None
    assert counter.count_tools(make_tools(None, "thread-b")) == first
