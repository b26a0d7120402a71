"""aider's ``.aider.chat.history.md``: ``####`` user lines, plain assistant text, ``>`` notes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts.transcript import Transcript, UsagePoint

__all__ = ["load_aider", "looks_like_aider"]

_SESSION = re.compile(r"^# aider chat started at (?P<at>.+?)\s*$")
_TOKENS = re.compile(r"^> Tokens: (?P<body>.*)$")
_FIGURE = re.compile(r"(?P<n>[\d][\d,.]*)(?P<unit>[kKmM]?) (?P<what>[a-z][a-z ]*?)(?=,|\.|$)")
_MODEL = re.compile(r"^> Models?: (?P<model>\S+)")
_MARKERS = {
    "applied_edit": re.compile(r"^> Applied edit to (?P<path>.+?)\s*$"),
    "commit": re.compile(r"^> Commit (?P<hash>[0-9a-f]{7,40}) (?P<message>.*?)\s*$"),
    "added_file": re.compile(r"^> Added (?P<path>.+?) to the chat\.?\s*$"),
}
_INPUT_KINDS = ("sent", "cached", "cache write", "cache hit")


def looks_like_aider(text: str) -> bool:
    """True when the text has aider's session header or user-line markers."""
    head = text[:20000]
    return "# aider chat started at" in head or "\n#### " in head or head.startswith("#### ")


@dataclass
class _Parser:
    path: Path
    messages: list[BaseMessage] = field(default_factory=list)
    usage: list[UsagePoint] = field(default_factory=list)
    sessions: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)
    user_lines: list[str] = field(default_factory=list)
    reply_lines: list[str] = field(default_factory=list)

    def feed(self, number: int, line: str) -> None:
        if line.startswith("#### ") or line.rstrip() == "####":
            self.flush_reply()
            self.user_lines.append(_strip_break(line[5:]))
            return
        self.flush_user()
        if session := _SESSION.match(line):
            self.flush_reply()
            self.sessions.append(
                {"line": number, "started_at": session["at"], "message_index": len(self.messages)}
            )
        elif line.startswith(">"):
            self.flush_reply()
            self.note(number, _strip_break(line))
        else:
            self.reply_lines.append(line)

    def note(self, number: int, line: str) -> None:
        if tokens := _TOKENS.match(line):
            self.record_usage(number, tokens["body"])
            return
        if (model := _MODEL.match(line)) and self.sessions:
            self.sessions[-1].setdefault("model", model["model"])
        for kind, pattern in _MARKERS.items():
            if marker := pattern.match(line):
                self.events.append(
                    {"kind": kind, "line": number, "message_index": len(self.messages)}
                    | marker.groupdict()
                )

    def record_usage(self, number: int, body: str) -> None:
        figures = {m["what"].strip(): _number(m["n"], m["unit"]) for m in _FIGURE.finditer(body)}
        if "sent" not in figures:
            raise TranscriptFormatError(
                f"unreadable token report {body!r}; expected '> Tokens: N sent, M received.'",
                line=number,
                path=str(self.path),
            )
        reply = len(self.messages) - 1
        self.events.append({"kind": "tokens", "line": number, "message_index": reply, "text": body})
        if reply < 0 or not isinstance(self.messages[reply], AIMessage):
            return  # a report without a reply (interrupted request): no call to attach it to
        self.usage.append(
            UsagePoint(
                message_index=reply,
                input_tokens=sum(figures.get(kind, 0) for kind in _INPUT_KINDS),
                output_tokens=figures.get("received"),
            )
        )

    def flush_user(self) -> None:
        if self.user_lines:
            text = "\n".join(self.user_lines).strip()
            self.messages.append(HumanMessage(content=text, additional_kwargs=self._session()))
            self.user_lines = []

    def flush_reply(self) -> None:
        text = "\n".join(self.reply_lines).strip()
        self.reply_lines = []
        if text:
            self.messages.append(AIMessage(content=text, additional_kwargs=self._session()))

    def _session(self) -> dict[str, Any]:
        return {"session_started_at": self.sessions[-1]["started_at"]} if self.sessions else {}


def load_aider(path: Path, text: str) -> Transcript:
    """Parse an aider chat history; usage comes from ``> Tokens:`` lines."""
    if not looks_like_aider(text):
        raise TranscriptFormatError(
            "not an aider chat history: expected '# aider chat started at …' or '#### ' lines",
            line=1,
            path=str(path),
        )
    parser = _Parser(path)
    for number, line in enumerate(text.splitlines(), start=1):
        parser.feed(number, line)
    parser.flush_user()
    parser.flush_reply()
    metadata = {"sessions": parser.sessions, "events": parser.events}
    return Transcript(
        format="aider", messages=parser.messages, metadata=metadata, usage=parser.usage
    )


def _strip_break(text: str) -> str:
    # aider ends its lines with two spaces, a Markdown hard line break.
    return text[:-2] if text.endswith("  ") else text


def _number(digits: str, unit: str) -> int:
    scale = {"k": 1_000, "m": 1_000_000}.get(unit.lower(), 1)
    return int(round(float(digits.replace(",", "")) * scale))
