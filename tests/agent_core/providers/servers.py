"""Loopback HTTP servers that speak the OpenAI chat-completions, Anthropic Messages and Ollama
chat wire formats, so the real langchain clients can be tested without the network.

A server is driven by a plain function ``script(request, index) -> Reply``: ``request`` is the
JSON body the client sent, ``index`` counts requests from 0. The server renders the reply as a
JSON body or as a stream (server-sent events; NDJSON for Ollama), whichever the request asked
for, and keeps every request (body and headers) in ``requests``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """An assistant turn: text and/or tool calls ``(name, args)``, with reported usage."""

    text: str = ""
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    input_tokens: int = 100
    output_tokens: int = 20


@dataclass
class Failure:
    """An HTTP error with the provider's JSON body."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Raw:
    """Bytes sent as-is with a 200 and an event-stream content type (malformed streams)."""

    body: bytes


Script = Callable[[dict[str, Any], int], "Reply | Failure | Raw"]


def _chunks(text: str, size: int = 12) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    payload = data if isinstance(data, str) else json.dumps(data)
    return f"{head}data: {payload}\n\n".encode()


class _Server:
    path = "/"
    #: Bytes inside the event that finishes a reply, and what separates events.
    finish_marker = b""
    separator = b"\n\n"

    def __init__(self, script: Script) -> None:
        self.script = script
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with owner._lock:
                    index = len(owner.requests)
                    owner.requests.append(body)
                    owner.headers.append(dict(self.headers))
                reply = owner.script(body, index)
                status, content_type, payload, extra = owner.render(body, reply)
                self.send_response(status)
                self.send_header("content-type", content_type)
                self.send_header("content-length", str(len(payload)))
                for key, value in extra.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> _Server:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def render(self, body: dict, reply: Reply | Failure | Raw) -> tuple[int, str, bytes, dict]:
        if isinstance(reply, Failure):
            return reply.status, "application/json", json.dumps(reply.body).encode(), reply.headers
        if isinstance(reply, Raw):
            return 200, "text/event-stream", reply.body, {}
        if body.get("stream"):
            return 200, "text/event-stream", self.stream(body, reply), {}
        return 200, "application/json", json.dumps(self.message(body, reply)).encode(), {}

    def stream(self, body: dict, reply: Reply) -> bytes:
        raise NotImplementedError

    def cut_off(self, body: dict, reply: Reply) -> Raw:
        """The stream of ``reply`` up to its finish event: a connection closed cleanly before
        the provider finished (no finish reason, no stop event, no terminator)."""
        full = self.stream(body, reply)
        start = full.rfind(self.separator, 0, full.index(self.finish_marker))
        return Raw(full[: start + len(self.separator)])

    def message(self, body: dict, reply: Reply) -> dict:
        raise NotImplementedError


class OpenAIServer(_Server):
    """``POST /v1/chat/completions``; use ``base_url=server.url + "/v1"``."""

    finish_marker = b'"finish_reason": "'

    def message(self, body: dict, reply: Reply) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text or None}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": f"call_{i}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(args)},
                }
                for i, (name, args) in enumerate(reply.tool_calls)
            ]
        return {
            "id": "chatcmpl-1",
            "object": "chat.completion",
            "created": 1,
            "model": body.get("model", "gpt-4o"),
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "logprobs": None,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": self._usage(reply),
        }

    @staticmethod
    def _usage(reply: Reply) -> dict:
        return {
            "prompt_tokens": reply.input_tokens,
            "completion_tokens": reply.output_tokens,
            "total_tokens": reply.input_tokens + reply.output_tokens,
        }

    def stream(self, body: dict, reply: Reply) -> bytes:
        model = body.get("model", "gpt-4o")

        def chunk(delta: dict, finish: str | None = None) -> bytes:
            return _sse(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": model,
                    "choices": [
                        {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
                    ],
                }
            )

        out = chunk({"role": "assistant", "content": ""})
        if reply.text:
            out += b"".join(chunk({"content": piece}) for piece in _chunks(reply.text))
        for i, (name, args) in enumerate(reply.tool_calls):
            out += chunk(
                {
                    "tool_calls": [
                        {
                            "index": i,
                            "id": f"call_{i}",
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
            for piece in _chunks(json.dumps(args), 20):
                out += chunk({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
        out += chunk({}, "tool_calls" if reply.tool_calls else "stop")
        if (body.get("stream_options") or {}).get("include_usage"):
            out += _sse(
                {
                    "id": "chatcmpl-1",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": model,
                    "choices": [],
                    "usage": self._usage(reply),
                }
            )
        return out + _sse("[DONE]")


class OllamaServer(_Server):
    """``POST /api/chat``; use ``OLLAMA_BASE_URL=server.url``. Streams are NDJSON lines."""

    stream_type = "application/x-ndjson"
    finish_marker = b'"done": true'
    separator = b"\n"
    _CREATED = "2026-01-01T00:00:00Z"

    def render(self, body: dict, reply: Reply | Failure | Raw) -> tuple[int, str, bytes, dict]:
        status, content_type, payload, extra = super().render(body, reply)
        if content_type == "text/event-stream":
            content_type = self.stream_type
        return status, content_type, payload, extra

    def _tool_calls(self, reply: Reply) -> list[dict[str, Any]]:
        return [{"function": {"name": name, "arguments": args}} for name, args in reply.tool_calls]

    def _final(self, body: dict, reply: Reply, message: dict[str, Any]) -> dict[str, Any]:
        return {
            "model": body.get("model", "llama3.1"),
            "created_at": self._CREATED,
            "message": message,
            "done": True,
            "done_reason": "stop",
            "total_duration": 1000,
            "load_duration": 10,
            "prompt_eval_count": reply.input_tokens,
            "prompt_eval_duration": 100,
            "eval_count": reply.output_tokens,
            "eval_duration": 100,
        }

    def message(self, body: dict, reply: Reply) -> dict:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.tool_calls:
            message["tool_calls"] = self._tool_calls(reply)
        return self._final(body, reply, message)

    def stream(self, body: dict, reply: Reply) -> bytes:
        model = body.get("model", "llama3.1")

        def line(message: dict[str, Any]) -> bytes:
            part = {"model": model, "created_at": self._CREATED, "message": message, "done": False}
            return json.dumps(part).encode() + b"\n"

        out = b"".join(
            line({"role": "assistant", "content": piece}) for piece in _chunks(reply.text)
        )
        if reply.tool_calls:
            # Ollama sends a turn's tool calls whole, in one part.
            out += line({"role": "assistant", "content": "", "tool_calls": self._tool_calls(reply)})
        final = self._final(body, reply, {"role": "assistant", "content": ""})
        return out + json.dumps(final).encode() + b"\n"


class AnthropicServer(_Server):
    """``POST /v1/messages``; use ``base_url=server.url``."""

    finish_marker = b"event: message_delta"

    def message(self, body: dict, reply: Reply) -> dict:
        content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
        content += [
            {"type": "tool_use", "id": f"toolu_{i}", "name": name, "input": args}
            for i, (name, args) in enumerate(reply.tool_calls)
        ]
        return {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude"),
            "content": content,
            "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
        }

    def stream(self, body: dict, reply: Reply) -> bytes:
        start = {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", "claude"),
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": reply.input_tokens, "output_tokens": 1},
        }
        out = _sse({"type": "message_start", "message": start}, "message_start")
        index = 0
        if reply.text:
            out += _sse(
                {
                    "type": "content_block_start",
                    "index": 0,
                    "content_block": {"type": "text", "text": ""},
                },
                "content_block_start",
            )
            for piece in _chunks(reply.text):
                out += _sse(
                    {
                        "type": "content_block_delta",
                        "index": 0,
                        "delta": {"type": "text_delta", "text": piece},
                    },
                    "content_block_delta",
                )
            out += _sse({"type": "content_block_stop", "index": 0}, "content_block_stop")
            index = 1
        for i, (name, args) in enumerate(reply.tool_calls, start=index):
            out += _sse(
                {
                    "type": "content_block_start",
                    "index": i,
                    "content_block": {
                        "type": "tool_use",
                        "id": f"toolu_{i}",
                        "name": name,
                        "input": {},
                    },
                },
                "content_block_start",
            )
            for piece in _chunks(json.dumps(args), 20):
                out += _sse(
                    {
                        "type": "content_block_delta",
                        "index": i,
                        "delta": {"type": "input_json_delta", "partial_json": piece},
                    },
                    "content_block_delta",
                )
            out += _sse({"type": "content_block_stop", "index": i}, "content_block_stop")
        out += _sse(
            {
                "type": "message_delta",
                "delta": {
                    "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
                    "stop_sequence": None,
                },
                # Cumulative, as the API sends it now; langchain-anthropic reads the
                # usage of the whole message from this event.
                "usage": {"input_tokens": reply.input_tokens, "output_tokens": reply.output_tokens},
            },
            "message_delta",
        )
        return out + _sse({"type": "message_stop"}, "message_stop")


# provider error bodies ---------------------------------------------------------------------
def openai_error(
    status: int, message: str, code: str | None = None, kind: str = "invalid_request_error"
) -> Failure:
    return Failure(
        status, {"error": {"message": message, "type": kind, "param": None, "code": code}}
    )


def anthropic_error(status: int, message: str, kind: str = "invalid_request_error") -> Failure:
    return Failure(status, {"type": "error", "error": {"type": kind, "message": message}})


def ollama_error(status: int, message: str) -> Failure:
    return Failure(status, {"error": message})


OPENAI_OVERFLOW = openai_error(
    400,
    "This model's maximum context length is 128000 tokens. However, your messages "
    "resulted in 131000 tokens. Please reduce the length of the messages.",
    code="context_length_exceeded",
)
ANTHROPIC_OVERFLOW = anthropic_error(400, "prompt is too long: 210000 tokens > 200000 maximum")
