"""cline tasks (``~/.cline/data/tasks/<task id>/api_conversation_history.json``): the list of
Anthropic-style messages cline sent, beside its ``task_metadata.json``.

Assistant messages hold ``text`` and ``tool_use`` blocks, ``modelInfo`` and
``metrics.tokens`` (``prompt`` not cached, ``cached``, ``completion``). cline answers a tool
call in the next user message, as a ``text`` block that opens ``[tool for 'arg'] Result:``
(or, in newer versions, a ``tool_result`` block); these become ToolMessages for the calls in
order. In the rest of a user message the user's words are in ``<task>``, ``<feedback>`` or
``<answer>`` tags; what cline adds itself (``<environment_details>``, reminders) is kept as
``not_user`` text, since the model was sent it.

The metadata file is no conversation: :func:`looks_like_cline_metadata` tells it, so the import
can say which file to bring instead; read from disk, the conversation picks it up from beside
it (``task_metadata.json``, or ``<name>_metadata.json``) into ``metadata["cline_task"]``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts._lines import SkippedLines
from agent_core.transcripts._openai_chat import parse_json_document
from agent_core.transcripts._transcript import Transcript, UsagePoint

__all__ = [
    "CLINE_METADATA_KEYS",
    "cline_task_metadata",
    "load_cline",
    "looks_like_cline",
    "looks_like_cline_metadata",
]

#: The keys of cline's ``task_metadata.json``.
CLINE_METADATA_KEYS = ("files_in_context", "model_usage", "environment_history")
_RESULT = re.compile(r"^\[(?P<tool>[\w-]+)(?: for '(?P<arg>.*?)')?\] Result:", re.DOTALL)
_USER_TAGS = re.compile(r"<(task|feedback|answer|user_message)>\s*(.*?)\s*</\1>", re.DOTALL)


def looks_like_cline(text: str) -> bool:
    """True for a JSON list of messages whose blocks are Anthropic's and whose assistant
    messages carry cline's ``modelInfo`` or whose first user text is a ``<task>``."""
    head = text[:20000]
    return (
        head.lstrip().startswith("[")
        and '"content"' in head
        and ('"modelInfo"' in text[:200000] or '"text":"<task>' in head.replace(" ", ""))
    )


def looks_like_cline_metadata(text: str) -> bool:
    """True for cline's ``task_metadata.json``."""
    head = text[:2000]
    return head.lstrip().startswith("{") and sum(f'"{k}"' in text for k in CLINE_METADATA_KEYS) >= 2


def cline_task_metadata(conversation: Path) -> dict[str, Any] | None:
    """What cline's metadata file beside ``conversation`` says (models, files in context),
    or None when there is none or it is not readable."""
    for name in ("task_metadata.json", f"{conversation.stem}_metadata.json"):
        beside = conversation.with_name(name)
        if beside == conversation or not beside.is_file():
            continue
        try:
            data = json.loads(beside.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError):
            return None
        if not isinstance(data, dict):
            return None
        files = data.get("files_in_context") or []
        models = [
            str(u.get("model_id")) for u in data.get("model_usage") or [] if isinstance(u, dict)
        ]
        versions = [
            str(e.get("cline_version"))
            for e in data.get("environment_history") or []
            if isinstance(e, dict) and e.get("cline_version")
        ]
        return {
            "file": beside.name,
            "files_in_context": [str(f.get("path")) for f in files if isinstance(f, dict)],
            "models": sorted(set(models)),
            "cline_versions": sorted(set(versions)),
        }
    return None


def load_cline(path: Path, text: str) -> Transcript:
    """Parse a cline ``api_conversation_history.json``."""
    document = parse_json_document(path, text)
    if not isinstance(document, list):
        raise TranscriptFormatError(
            "expected cline's api_conversation_history.json: a JSON list of messages",
            path=str(path),
        )
    builder = _Builder()
    for item in document:
        if isinstance(item, dict) and item.get("role") in ("user", "assistant"):
            builder.add(item)
        else:
            builder.skipped.skip("not cline messages")
    models = sorted({m for m in builder.models if m})
    return Transcript(
        format="cline",
        messages=builder.messages,
        metadata={"models": models} if models else {},
        usage=builder.usage,
        skipped=dict(builder.skipped),
    )


def _blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content or [] if isinstance(b, dict)]


class _Builder:
    def __init__(self) -> None:
        self.messages: list[BaseMessage] = []
        self.usage: list[UsagePoint] = []
        self.models: list[str] = []
        self.skipped = SkippedLines()
        self._pending: list[dict[str, Any]] = []  # the last reply's calls not yet answered

    def add(self, item: dict[str, Any]) -> None:
        if item["role"] == "assistant":
            self._assistant(item)
        else:
            self._user(_blocks(item.get("content")))

    def _assistant(self, item: dict[str, Any]) -> None:
        texts, calls = [], []
        for block in _blocks(item.get("content")):
            if block.get("type") == "text":
                texts.append(str(block.get("text") or ""))
            elif block.get("type") == "tool_use":
                args = block.get("input")
                calls.append(
                    {
                        "name": str(block.get("name") or "tool"),
                        "args": args if isinstance(args, dict) else {"input": args},
                        "id": str(block.get("id") or f"cline-{len(self.messages)}-{len(calls)}"),
                    }
                )
        model = (item.get("modelInfo") or {}).get("modelId")
        self.models.append(str(model or ""))
        self.messages.append(
            AIMessage(
                content="\n".join(texts), tool_calls=calls, response_metadata={"model": model}
            )
        )
        self._pending = list(calls)
        tokens = (item.get("metrics") or {}).get("tokens")
        if isinstance(tokens, dict):
            self.usage.append(
                UsagePoint(
                    message_index=len(self.messages) - 1,
                    input_tokens=int(tokens.get("prompt") or 0) + int(tokens.get("cached") or 0),
                    output_tokens=tokens.get("completion"),
                )
            )

    def _user(self, blocks: list[dict[str, Any]]) -> None:
        said: list[str] = []
        notes: list[str] = []
        for block in blocks:
            if block.get("type") == "tool_result":
                self._result(str(block.get("tool_use_id") or ""), block.get("content"), block)
                continue
            if block.get("type") == "image":
                said.append("[image]")
                continue
            text = str(block.get("text") or "")
            if _RESULT.match(text) and self._pending:
                self._result(str(self._pending[0]["id"]), text, block)
                continue
            words = [m.group(2) for m in _USER_TAGS.finditer(text)]
            if words:
                said.extend(w for w in words if w)
            elif text.strip():
                notes.append(text)
        if said:
            self.messages.append(HumanMessage(content="\n\n".join(said)))
        if notes:
            self.messages.append(
                HumanMessage(content="\n\n".join(notes), additional_kwargs={"not_user": "cline"})
            )

    def _result(self, call_id: str, content: Any, block: dict[str, Any]) -> None:
        self._pending = [c for c in self._pending if c["id"] != call_id]
        text = "\n".join(str(b.get("text") or "") for b in _blocks(content))
        self.messages.append(
            ToolMessage(
                content=text,
                tool_call_id=call_id,
                status="error" if block.get("is_error") else "success",
            )
        )
