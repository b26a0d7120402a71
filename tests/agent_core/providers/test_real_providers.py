"""Real provider clients (ChatOpenAI, ChatAnthropic, ChatOllama) against loopback servers that
speak their wire formats: resets, retries, overflow recovery, malformed streams, calibration
and credential hygiene, all through the ThreadRunner."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import pytest

from agent_core.accounting._calibration import ContextEstimator
from agent_core.context._build import build_context
from agent_core.errors import ConfigurationError, ContextOverflowError, ProviderError
from agent_core.providers._errors import ProviderErrorMapping, to_provider_error
from agent_core.providers._real import resolve_real_model
from agent_core.providers._retry import Failure as CallFailure
from agent_core.providers._retry import RetryPolicy
from agent_core.providers._settings import ProviderSettings
from agent_core.providers._stream_end import is_cut_off
from tests.agent_core.providers.servers import (
    ANTHROPIC_OVERFLOW,
    OPENAI_OVERFLOW,
    AnthropicServer,
    Failure,
    OllamaServer,
    OpenAIServer,
    Raw,
    Reply,
    anthropic_error,
    ollama_error,
    openai_error,
)
from tests.agent_core.runtime_helpers import make_setup, of_type, run

KEY = "sk-test-BATONLEAKCANARY-0123456789"
URL_KEY = "sk-url-BATONLEAKCANARY-9876543210"  # a key carried inside a base URL
TASK = "Build a CSV parser for invoices"
FAST = ProviderSettings(timeout=5.0, retry=RetryPolicy(attempts=3, base_delay=0.01))


def configured(
    credentials: dict[str, str], settings: ProviderSettings | None = None
) -> ProviderSettings:
    """``settings`` (the defaults without) with these keys and URLs."""
    return replace(settings or ProviderSettings(), credentials=credentials)


HANDOFF = {
    "completed_work": ["Wrote the parser modules"],
    "in_progress": ["Parser tests"],
    "remaining_tasks": ["Finish the parser tests"],
    "key_decisions": ["Plain csv module, no pandas"],
    "files_modified": ["src/part0.py"],
    "current_state_summary": "Parser written; tests remain.",
}


@dataclass(frozen=True)
class Provider:
    name: str
    spec: str
    server: type
    overflow: Failure | None  # None: the provider truncates instead of refusing
    error: Callable[..., Failure]

    def env(self, url: str) -> dict[str, str]:
        if self.name == "openai":
            return {"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": url + "/v1"}
        if self.name == "ollama":
            return {"OLLAMA_BASE_URL": url}
        return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": url}

    def model(self, url: str, settings: ProviderSettings = FAST) -> ProviderErrorMapping:
        resolved = resolve_real_model(self.spec, settings=configured(self.env(url), settings))
        assert not resolved.is_simulator
        return resolved.model  # type: ignore[return-value]

    def handoff_reply(self, body: dict | None = None) -> Reply:
        # Asked within the agent's own request, every provider answers JSON text; asked for
        # structured output, OpenAI and Ollama answer a JSON schema in the content, Anthropic
        # with a tool.
        if body is not None and is_appended_handoff(body) or self.name in ("openai", "ollama"):
            return Reply(text=json.dumps(HANDOFF))
        return Reply(tool_calls=[("HandoffDraft", HANDOFF)])

    def tool_results(self, body: dict) -> int:
        if self.name in ("openai", "ollama"):
            return sum(1 for m in body["messages"] if m.get("role") == "tool")
        return sum(
            1
            for m in body["messages"]
            if isinstance(m.get("content"), list)
            for block in m["content"]
            if block.get("type") == "tool_result"
        )


OPENAI = Provider("openai", "openai:gpt-4o", OpenAIServer, OPENAI_OVERFLOW, openai_error)
ANTHROPIC = Provider(
    "anthropic", "anthropic:claude-sonnet-4-6", AnthropicServer, ANTHROPIC_OVERFLOW, anthropic_error
)
# Ollama truncates an over-long prompt to its num_ctx instead of refusing it, and has no key:
# the overflow and credential tests are for the hosted providers only.
OLLAMA = Provider("ollama", "ollama:llama3.1", OllamaServer, None, ollama_error)
both = pytest.mark.parametrize("provider", [OPENAI, ANTHROPIC], ids=["openai", "anthropic"])
every = pytest.mark.parametrize(
    "provider", [OPENAI, ANTHROPIC, OLLAMA], ids=["openai", "anthropic", "ollama"]
)


def is_appended_handoff(body: dict) -> bool:
    """The agent's own request with the handoff instruction as its last message."""
    return "<handoff-request>" in json.dumps(body["messages"][-1])


def is_handoff(body: dict) -> bool:
    return (
        is_appended_handoff(body)
        or "response_format" in body
        or isinstance(body.get("format"), dict)  # Ollama's structured output
        or "HandoffDraft" in json.dumps(body.get("tools", []))
    )


def prompt_tokens(body: dict) -> int:
    return len(json.dumps(body)) // 4


def setup_for(provider: Provider, url: str, **kwargs: Any):
    kwargs.setdefault("window", 200_000)
    return make_setup(
        model=provider.model(url), model_name=provider.spec, context_strategy="reset", **kwargs
    )


def coding_agent(provider: Provider) -> Callable[[dict, int], Reply]:
    """Writes files until the context fills, hands off, then finishes in the next session."""

    def script(body: dict, index: int) -> Reply:
        if is_handoff(body):
            return provider.handoff_reply(body)
        if "<handoff-context>" in json.dumps(body):
            return Reply(text="Session 2: the parser tests pass.", input_tokens=prompt_tokens(body))
        written = provider.tool_results(body)
        if written >= 12:
            return Reply(text="Never reset", input_tokens=prompt_tokens(body))
        content = f"# OLD-SESSION-MARKER-{written}\n" + "value = compute(value)\n" * 60
        return Reply(
            tool_calls=[("write_file", {"path": f"src/part{written}.py", "content": content})],
            input_tokens=prompt_tokens(body),
        )

    return script


# a whole reset cycle --------------------------------------------------------------------------
@every
async def test_a_reset_cycle_over_http_starts_session_2_from_the_handoff(provider) -> None:
    with provider.server(coding_agent(provider)) as server:
        setup = setup_for(provider, server.url, window=4000)
        events = await run(setup, TASK)
    assert not of_type(events, "error"), of_type(events, "error")
    complete = of_type(events, "context_reset", "reset_complete")
    assert complete and complete[0]["data"]["trigger"] == "auto"
    sessions = setup.store.sessions("t1")
    assert len(sessions) == 2
    handoff_index = next(i for i, b in enumerate(server.requests) if is_handoff(b))
    assert is_appended_handoff(server.requests[handoff_index])
    first_of_session_2 = json.dumps(server.requests[handoff_index + 1])
    assert "<handoff-context>" in first_of_session_2
    assert "Finish the parser tests" in first_of_session_2
    assert "OLD-SESSION-MARKER" not in first_of_session_2
    # The task reaches session 2 inside the handoff (goal, user messages), not as a message.
    assert first_of_session_2.count(json.dumps(TASK)[1:-1]) == first_of_session_2.count(
        "## Goal\\n\\n" + TASK
    ) + first_of_session_2.count("- " + TASK) + first_of_session_2.count(
        "## Next Step\\n\\n" + TASK
    )
    final = [m for m in setup.store.messages(sessions[1].id) if m.role == "assistant"][-1]
    assert final.content == "Session 2: the parser tests pass."


@both
async def test_the_handoff_request_repeats_the_agents_last_request_byte_for_byte(provider) -> None:
    # Same system prompt, tools and messages as the agent's last call, the instruction last:
    # the provider's prompt cache covers the whole session and the writer sees all of it.
    with provider.server(coding_agent(provider)) as server:
        setup = setup_for(provider, server.url, window=4000)
        await run(setup, TASK)
    handoff_index = next(i for i, b in enumerate(server.requests) if is_appended_handoff(b))
    agent, handoff = server.requests[handoff_index - 1], server.requests[handoff_index]
    assert not is_handoff(agent)
    assert handoff.get("tools") == agent.get("tools") and handoff.get("system") == agent.get(
        "system"
    )
    prefix = agent["messages"]
    assert json.dumps(handoff["messages"][: len(prefix)]) == json.dumps(prefix)
    assert len(handoff["messages"]) > len(prefix)
    assert "<handoff-request>" in json.dumps(handoff["messages"][-1])


# retries ---------------------------------------------------------------------------------------
@every
@pytest.mark.parametrize("status", [429, 500])
async def test_a_busy_provider_is_retried_with_a_visible_warning(provider, status) -> None:
    def script(body: dict, index: int):
        return provider.error(status, "overloaded") if index == 0 else Reply(text="Hello there")

    with provider.server(script) as server:
        setup = setup_for(provider, server.url)
        events = await run(setup, "hi")
    warnings = [e["data"]["message"] for e in of_type(events, "warning")]
    assert warnings == [f"Provider busy ({status}), retrying in 0.0 s…"]
    assert not of_type(events, "error")
    assert len(server.requests) == 2
    rows = setup.store.messages(setup.store.sessions("t1")[0].id)
    assert [r.role for r in rows] == ["user", "assistant"]
    assert rows[-1].content == "Hello there"


@every
async def test_a_provider_that_stays_busy_ends_in_a_clear_error(provider) -> None:
    with provider.server(lambda body, i: provider.error(503, "down")) as server:
        setup = setup_for(provider, server.url)
        events = await run(setup, "hi")
    assert len(server.requests) == FAST.retry.attempts
    assert len(of_type(events, "warning")) == FAST.retry.attempts - 1
    [error] = of_type(events, "error")
    assert error["data"]["message"] == (
        f"{provider.spec} is busy (503) and still failing after 3 attempts; try again in a minute"
    )


@every
@pytest.mark.parametrize("call", ["invoke", "stream"])
def test_synchronous_calls_are_retried_too(provider, call) -> None:
    def script(body: dict, index: int):
        return provider.error(503, "overloaded") if index == 0 else Reply(text="Hello there")

    with provider.server(script) as server:
        model = provider.model(server.url)
        if call == "invoke":
            text = model.invoke("hi").content
        else:
            text = "".join(str(chunk.content) for chunk in model.stream("hi"))
    assert text == "Hello there"
    assert len(server.requests) == 2


async def test_a_provider_that_does_not_answer_in_time_times_out() -> None:
    import time

    def slow(body: dict, index: int) -> Reply:
        time.sleep(0.6)
        return Reply(text="late")

    settings = ProviderSettings(timeout=0.2, retry=RetryPolicy(attempts=2, base_delay=0.01))
    with OpenAIServer(slow) as server:
        model = OPENAI.model(server.url, settings)
        with pytest.raises(ProviderError, match=r"did not answer within 0.2 s after 2 attempts"):
            await model.ainvoke("hi")


# overflow -------------------------------------------------------------------------------------
@both
async def test_a_context_length_error_is_recovered_by_a_reset(provider) -> None:
    refused = []

    def script(body: dict, index: int):
        if is_handoff(body):
            return provider.handoff_reply(body)
        if not refused:
            refused.append(index)
            return provider.overflow
        return Reply(text="Done after the reset")

    with provider.server(script) as server:
        setup = setup_for(provider, server.url)
        events = await run(setup, TASK)
    assert not of_type(events, "error")
    [complete] = of_type(events, "context_reset", "reset_complete")
    assert complete["data"]["trigger"] == "overflow"
    sessions = setup.store.sessions("t1")
    assert len(sessions) == 2
    assert setup.store.messages(sessions[1].id)[-1].content == "Done after the reset"


@both
async def test_the_overflow_error_is_typed(provider) -> None:
    with (
        provider.server(lambda body, i: provider.overflow) as server,
        pytest.raises(ContextOverflowError, match="longer than the model's context window"),
    ):
        await provider.model(server.url).ainvoke("hi")
    assert len(server.requests) == 1, "an overflow is not retried blindly"


# malformed streams ----------------------------------------------------------------------------
GARBAGE = {
    "openai": b'data: {"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, '
    b'"model": "gpt-4o", "choices": [{"index": 0, "delta": {"content": "Half an '
    b'answer"}, "finish_reason": null}]}\n\ndata: {"id": "chatcmpl-1", "choi\n\n'
    b"data: <html>bad gateway</html>\n\n",
    "anthropic": b'event: message_start\ndata: {"type": "message_start", "message": '
    b'{"id": "msg_1", "type": "message", "role": "assistant", '
    b'"model": "claude", "content": [], "stop_reason": null, '
    b'"usage": {"input_tokens": 5, "output_tokens": 1}}}\n\n'
    b'event: content_block_delta\ndata: {"type": "content_block_del\n\n',
    "ollama": b'{"model": "llama3.1", "created_at": "2026-01-01T00:00:00Z", "message": '
    b'{"role": "assistant", "content": "Half an "}, "done": false}\n'
    b'{"model": "llama3.1", "crea\n<html>bad gateway</html>\n',
}


@every
async def test_a_malformed_stream_is_a_clear_error_and_leaves_the_thread_consistent(
    provider,
) -> None:
    def script(body: dict, index: int):
        return Raw(GARBAGE[provider.name]) if index == 0 else Reply(text="Recovered")

    with provider.server(script) as server:
        setup = setup_for(provider, server.url)
        events = await run(setup, "hi")
        [error] = of_type(events, "error")
        assert error["data"]["message"].startswith(
            f"{provider.spec} sent a response Baton could not read"
        )
        session = setup.store.sessions("t1")[0]
        # Nothing of the reply is kept; the failure is, as a marker saying why.
        rows = setup.store.messages(session.id)
        assert [(r.role, r.meta.get("event")) for r in rows] == [
            ("user", None),
            ("event", "turn_failed"),
        ]
        assert error["data"]["message"] in rows[1].content
        assert not setup.store.pending("t1")
        events = await run(setup, "try again")
    assert not of_type(events, "error")
    roles = [r.role for r in setup.store.messages(session.id)]
    assert roles == ["user", "event", "user", "assistant"]


CUT_TEXT = "Here is the first half of a long answer, and then"


@every
async def test_a_stream_cut_before_its_finish_marker_is_kept_and_marked_incomplete(
    provider,
) -> None:
    def script(body: dict, index: int):
        return server.cut_off(body, Reply(text=CUT_TEXT)) if index == 0 else Reply(text="Whole.")

    with provider.server(script) as server:
        setup = setup_for(provider, server.url)
        cut_events = await run(setup, "explain")
        whole_events = await run(setup, "go on")
    sent = server.cut_off(server.requests[0], Reply(text=CUT_TEXT)).body
    assert server.finish_marker not in sent and b"[DONE]" not in sent
    assert not of_type(cut_events, "error")
    rows = setup.store.messages(setup.store.sessions("t1")[0].id)
    assert [r.role for r in rows] == ["user", "assistant", "user", "assistant"]
    assert (rows[1].content, rows[1].meta.get("incomplete")) == (CUT_TEXT, True)
    [warning] = of_type(cut_events, "warning")
    assert warning["data"] == {
        "message": "The reply was cut off: the provider ended the stream before finishing it. "
        "The text so far is kept; ask the agent to continue.",
        "reason": "reply_cut_off",
        "message_id": rows[1].id,
    }
    # A stream that ends properly is not marked.
    assert (rows[3].content, "incomplete" in rows[3].meta) == ("Whole.", False)
    assert not of_type(whole_events, "warning")


def test_a_cut_stream_is_marked_on_the_synchronous_path_too() -> None:
    def script(body: dict, index: int):
        return server.cut_off(body, Reply(text=CUT_TEXT))

    with OpenAIServer(script) as server:
        chunks = list(OPENAI.model(server.url).stream("hi"))
    reply = sum(chunks[1:], chunks[0])
    assert reply.content == CUT_TEXT
    assert is_cut_off(reply)


# calibration ----------------------------------------------------------------------------------
@every
async def test_usage_reported_by_the_provider_calibrates_the_estimate(provider) -> None:
    def script(body: dict, index: int) -> Reply:
        if provider.tool_results(body) == 0:
            return Reply(
                tool_calls=[("write_file", {"path": "a.py", "content": "x = 1\n"})],
                input_tokens=prompt_tokens(body),
            )
        return Reply(text="Wrote a.py", input_tokens=prompt_tokens(body))

    with provider.server(script) as server:
        setup = setup_for(provider, server.url)
        events = await run(setup, "write a.py")
    if provider.name == "openai":
        assert server.requests[0]["stream_options"] == {"include_usage": True}
    bases = [e["data"]["basis"] for e in of_type(events, "utilization")]
    assert bases[0] != "calibrated"
    assert "calibrated" in bases


@every
async def test_another_process_is_calibrated_by_the_usage_stored_on_replies(provider) -> None:
    # Each worker keeps its own estimators; a turn or a page load served by another worker
    # (or after a restart) must not start from an uncalibrated guess.
    def script(body: dict, index: int) -> Reply:
        if provider.tool_results(body) == 0:
            return Reply(
                tool_calls=[("write_file", {"path": "a.py", "content": "x = 1\n"})],
                input_tokens=5000,
            )
        return Reply(text="Wrote a.py", input_tokens=5400)

    with provider.server(script) as server:
        setup = setup_for(provider, server.url)
        await run(setup, "write a.py")
    context = build_context(setup.store, setup.store.sessions("t1")[-1])
    fresh = ContextEstimator(setup.model_name)  # nothing observed in this "process"
    estimate = fresh.estimate(context, system=setup.system_prompt, tools=list(setup.tools))
    assert estimate.basis == "calibrated"
    # The last call saw 5,400 tokens; the context adds only that call's short reply.
    reply = fresh.counter.count_message(context[-1])
    assert 5400 <= estimate.tokens <= 5400 + 2 * reply + 10


# credentials ----------------------------------------------------------------------------------
@both
async def test_keys_never_reach_events_errors_or_logs(provider, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    replies = [
        provider.error(400, f"model not available for key {KEY}"),
        provider.error(401, f"Incorrect API key provided: {KEY}"),
        provider.error(500, f"internal error for {KEY}"),
    ]

    def script(body: dict, index: int):
        return replies[min(index, 2)]  # 400, 401, then 500 on every retry

    with provider.server(script) as server:
        setup = setup_for(provider, server.url)
        texts = []
        for _ in replies:
            texts.append(json.dumps(await run(setup, "hi")))
    errors = [e for t in texts for e in json.loads(t) if e["type"] == "error"]
    assert len(errors) == 3
    assert "rejected the credentials (401)" in errors[1]["data"]["message"]
    assert "[redacted]" in errors[0]["data"]["message"]
    for text in texts:
        assert KEY not in text
    assert KEY not in caplog.text
    for record in caplog.records:
        assert KEY not in record.getMessage()
        assert KEY not in str(record.exc_info)
    assert KEY not in repr(setup.model)


@pytest.mark.parametrize(
    ("base_url", "label"),
    [
        (f"https://user:{URL_KEY}@host/v1", "m @ host"),
        (f"https://{URL_KEY}@host:8443/v1", "m @ host:8443"),
    ],
)
def test_the_label_names_the_endpoint_without_its_credentials(base_url, label) -> None:
    resolved = resolve_real_model(
        "openai-compatible:m",
        settings=configured({"BATON_OPENAI_BASE_URL": base_url, "OPENAI_API_KEY": KEY}),
    )
    assert resolved.label == label


def test_a_provider_error_quoting_a_credentialed_url_holds_no_key() -> None:
    exc = RuntimeError(
        "Client error '400 Bad Request' for url "
        f"'https://user:{URL_KEY}@host/v1/chat/completions?api_key={URL_KEY}'"
    )
    error = to_provider_error(
        exc,
        CallFailure("status", 400),
        label="m @ host",
        provider="openai-compatible",
        attempts=1,
        timeout=None,
        secrets=[],
    )
    assert str(error) == (
        "m @ host returned an error (400): Client error '400 Bad Request' for url "
        "'https://host/v1/chat/completions?api_key=[redacted]'"
    )


async def test_a_key_in_the_base_url_reaches_no_event_error_or_log(log_redaction, caplog) -> None:
    caplog.set_level(logging.DEBUG)

    def script(body: dict, index: int) -> Failure:
        # A proxy that quotes the URL it was called at, and the key in it, as error pages do.
        return openai_error(400, f"no route for http://user:{URL_KEY}@127.0.0.1/v1 ({URL_KEY})")

    with OpenAIServer(script) as server:
        host = server.url.removeprefix("http://")
        env = {"BATON_OPENAI_BASE_URL": f"http://user:{URL_KEY}@{host}/v1?api_key={URL_KEY}"}
        resolved = resolve_real_model("openai-compatible:m", settings=configured(env, FAST))
        setup = make_setup(model=resolved.model, model_name="openai-compatible:m", window=200_000)
        events = await run(setup, "hi")
    [error] = of_type(events, "error")
    assert error["data"]["message"] == (
        f"m @ {host} returned an error (400): no route for http://127.0.0.1/v1 ([redacted])"
    )
    assert URL_KEY not in json.dumps(events)
    [request_line] = [
        r.getMessage() for r in caplog.records if r.getMessage().startswith("HTTP Request")
    ]
    assert request_line.startswith(f"HTTP Request: POST http://{host}/v1")
    assert "api_key=[redacted]" in request_line
    assert URL_KEY not in caplog.text


# configuration --------------------------------------------------------------------------------
def test_without_credentials_the_simulator_says_what_to_set() -> None:
    for spec, hint in [
        ("openai:gpt-4o", "OPENAI_API_KEY"),
        ("anthropic:claude-sonnet-4-6", "ANTHROPIC_API_KEY"),
        ("openai-compatible:qwen2.5-coder", "BATON_OPENAI_BASE_URL"),
    ]:
        resolved = resolve_real_model(spec, settings=configured({}))
        assert resolved.is_simulator
        assert hint in resolved.label and spec in resolved.label


def test_settings_reach_the_client() -> None:
    env = {
        "OPENAI_API_KEY": KEY,
        "BATON_MODEL_TIMEOUT": "7",
        "BATON_MODEL_RETRIES": "5",
        "BATON_RETRY_DELAY": "0.5",
    }
    resolved = resolve_real_model("openai:gpt-4o", settings=ProviderSettings.from_env(env))
    model = resolved.model
    assert isinstance(model, ProviderErrorMapping)
    assert resolved.label == "openai:gpt-4o" and resolved.name == "openai:gpt-4o"
    assert model.structured_method == "json_schema"
    assert model.inner.request_timeout == 7.0
    assert model.inner.max_retries == 0, "retries are Baton's, so they can be announced"
    assert model.inner.stream_usage is True
    assert model.retry == RetryPolicy(attempts=6, base_delay=0.5)


def test_openai_compatible_needs_only_a_base_url() -> None:
    resolved = resolve_real_model(
        "openai-compatible:qwen2.5-coder",
        settings=configured({"BATON_OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"}),
    )
    assert not resolved.is_simulator
    assert resolved.label == "qwen2.5-coder @ 127.0.0.1:8000"
    assert resolved.model.inner.openai_api_base == "http://127.0.0.1:8000/v1"


def test_anthropic_uses_tool_calling_for_structured_output() -> None:
    resolved = resolve_real_model(
        "anthropic:claude-sonnet-4-6", settings=configured({"ANTHROPIC_API_KEY": KEY})
    )
    assert resolved.model.structured_method == "function_calling"
    assert resolved.label == "anthropic:claude-sonnet-4-6"


def test_ollama_uses_its_base_url() -> None:
    resolved = resolve_real_model(
        "ollama:llama3.1", settings=configured({"OLLAMA_BASE_URL": "http://127.0.0.1:11435"})
    )
    assert resolved.model.inner.base_url == "http://127.0.0.1:11435"
    assert resolved.model.structured_method == "json_schema"


@pytest.mark.parametrize(
    ("spec", "override", "num_ctx"),
    [
        ("ollama:llama3.1", None, 8192),  # the registry's window
        ("ollama:llama3.1", 32768, 32768),  # the assistant's override
        ("ollama:a-model-nobody-listed", None, 8192),  # unknown local model: a modest window
    ],
)
async def test_ollama_is_asked_for_the_window_baton_manages(spec, override, num_ctx) -> None:
    # Ollama silently cuts a prompt longer than num_ctx; Baton must not count on more.
    with OllamaServer(lambda body, i: Reply(text="ok")) as server:
        resolved = resolve_real_model(
            spec,
            settings=configured({"OLLAMA_BASE_URL": server.url}, FAST),
            window_override=override,
        )
        await resolved.model.ainvoke("hi")
    assert server.requests[0]["options"]["num_ctx"] == num_ctx


@pytest.mark.parametrize("spec", ["gemini:gemini-2.0", "openai:"])
def test_an_unknown_provider_or_missing_model_is_a_configuration_error(spec) -> None:
    with pytest.raises(ConfigurationError):
        resolve_real_model(spec, settings=configured({"OPENAI_API_KEY": KEY}))


def test_bad_settings_are_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="BATON_MODEL_TIMEOUT"):
        ProviderSettings.from_env({"OPENAI_API_KEY": KEY, "BATON_MODEL_TIMEOUT": "soon"})
