"""aider's ``.aider.chat.history.md``: ``####`` user lines, plain assistant text, ``>`` notes.

A note is a line ``> …`` (or a bare ``>``); ``>>>>>>> REPLACE`` closes an edit block and stays
in the reply. When a reply follows notes with no user line between them, aider made another
call on its own: it sent back an edit error, lint or test output (a "reflection"). That text is
in the notes, so it becomes a ``HumanMessage`` marked ``aider_reflection``, minus aider's own
bookkeeping lines (token reports, commits, confirmations), which the model never saw.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts._transcript import NOT_SENT, Transcript, UsagePoint

__all__ = ["load_aider", "looks_like_aider"]

_SESSION = re.compile(r"^# aider chat started at (?P<at>.+?)\s*$")
_TOKENS = re.compile(r"^> Tokens: (?P<body>.*)$")
_FIGURE = re.compile(r"(?P<n>[\d][\d,.]*)(?P<unit>[kKmM]?) (?P<what>[a-z][a-z ]*?)(?=,|\.|$)")
_MODEL = re.compile(
    r"^> (?:Models?|Main model): (?P<model>\S+)"
    r"(?: with (?:[^\w\s]+\s+)?(?P<format>[\w-]+) edit format)?"
)
# aider's commands; it accepts any unambiguous prefix ("/tok", "/clea").
_COMMANDS = (
    *("add", "architect", "ask", "chat-mode", "clear", "clipboard", "code", "commit", "copy"),
    *("diff", "drop", "editor", "exit", "git", "help", "lint", "load", "ls", "map"),
    *("map-refresh", "model", "paste", "quit", "read-only", "report", "reset", "run", "save"),
    *("settings", "test", "tokens", "undo", "voice", "web"),
)
_MARKERS = {
    "applied_edit": re.compile(r"^> Applied edit to (?P<path>.+?)\s*$"),
    "commit": re.compile(r"^> Commit (?P<hash>[0-9a-f]{7,40}) (?P<message>.*?)\s*$"),
    "added_file": re.compile(r"^> Added (?P<path>.+?) to the chat\.?\s*$"),
}
_INPUT_KINDS = ("sent", "cached", "cache write", "cache hit")
# Notes that are aider talking to the user, not text it sends back to the model.
_BOOKKEEPING = re.compile(
    r"^(Tokens: |Applied edit to |Did not apply edit |Commit [0-9a-f]{7,40} |Committing .* before "
    r"applying edits|You can use /undo|No changes made to git|Added .* to the chat|"
    r"The LLM did not conform to the edit format|https?://\S+\s*$|Retrying in |litellm\.\w+|"
    r"Only \d+ reflections allowed)"
    r"|\?\s*(\[[^\]]*\]\s*)?(y|n|yes|no|a|all|s|skip|d|don't)\s*$"
)


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
    # Notes since the last reply: a reflection, if another reply follows without a user line.
    notes_since_reply: list[str] = field(default_factory=list)
    mode: str | None = None  # the edit format / chat mode from the last "Models:" line
    one_off: tuple[str, str] | None = None  # "/ask X": (mode, X) for the next request
    request_mode: str | None = None  # the mode of the request being answered
    prompt_start: int = 0  # where the history the model sees begins (session start, /clear)

    def feed(self, number: int, line: str) -> None:
        if line.startswith("#### ") or line.rstrip() == "####":
            self.flush_reply()
            self.notes_since_reply = []
            self.user_lines.append(_strip_break(line[5:]))
            return
        self.flush_user()
        if session := _SESSION.match(line):
            self.flush_reply()
            self.notes_since_reply = []
            self.mode = self.one_off = self.request_mode = None
            self.prompt_start = len(self.messages)
            self.sessions.append(
                {"line": number, "started_at": session["at"], "message_index": len(self.messages)}
            )
        elif line.startswith("> ") or line.rstrip() == ">":
            self.flush_reply()
            note = _strip_break(line)
            self.notes_since_reply.append(note[2:])
            self.note(number, note)
        else:
            if line.strip() and not any(r.strip() for r in self.reply_lines):
                self.start_reply()
            self.reply_lines.append(line)

    def start_reply(self) -> None:
        """A reply begins; after a reply and notes only, the notes were aider's reflection."""
        notes, self.notes_since_reply = self.notes_since_reply, []
        if self.one_off is not None:
            # "/code X" answered without aider echoing "#### X": X was the request.
            self.request(HumanMessage(content=self.one_off[1], additional_kwargs=self._session()))
        if not self.messages or not isinstance(self.messages[-1], AIMessage):
            return
        if text := _reflection(notes):
            self.messages.append(
                HumanMessage(content=text, additional_kwargs=self._session() | _REFLECTION)
            )

    def note(self, number: int, line: str) -> None:
        if tokens := _TOKENS.match(line):
            self.record_usage(number, tokens["body"])
            return
        if (model := _MODEL.match(line)) and self.sessions:
            self.sessions[-1].setdefault("model", model["model"])
            self.mode = model["format"] or self.mode
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
                prompt_start=self.prompt_start,
                system_label=self.request_mode,
            )
        )

    def flush_user(self) -> None:
        if not self.user_lines:
            return
        text = "\n".join(self.user_lines).strip()
        self.user_lines = []
        kwargs = self._session()
        if not text.startswith("/"):
            self.request(HumanMessage(content=text, additional_kwargs=kwargs))
            return
        # A command: part of the record, never sent to the model.
        head, _, argument = text.partition(" ")
        command = _command(head[1:])
        self.messages.append(
            HumanMessage(content=text, additional_kwargs=kwargs | {NOT_SENT: command or True})
        )
        if command in ("ask", "code", "architect", "help") and argument.strip():
            self.one_off = (command, argument.strip())
        elif command in ("clear", "reset"):
            self.prompt_start = len(self.messages)

    def request(self, message: HumanMessage) -> None:
        """A message the user sent to the model, in this request's chat mode."""
        self.request_mode = self.one_off[0] if self.one_off else self.mode
        self.one_off = None
        self.messages.append(message)

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


_REFLECTION = {"aider_reflection": True}


def _command(word: str) -> str | None:
    """aider's command for ``word``: itself, or the one command it is a prefix of."""
    word = word.lower()
    if word in _COMMANDS:
        return word
    matches = [c for c in _COMMANDS if c.startswith(word)]
    return matches[0] if len(matches) == 1 else None


def _reflection(notes: list[str]) -> str:
    """What aider sent back to the model, from the notes between two replies."""
    kept = [n for n in notes if not _BOOKKEEPING.search(n.strip())]
    return "\n".join(kept).strip()


def _strip_break(text: str) -> str:
    # aider ends its lines with two spaces, a Markdown hard line break.
    return text[:-2] if text.endswith("  ") else text


def _number(digits: str, unit: str) -> int:
    scale = {"k": 1_000, "m": 1_000_000}.get(unit.lower(), 1)
    return int(round(float(digits.replace(",", "")) * scale))
