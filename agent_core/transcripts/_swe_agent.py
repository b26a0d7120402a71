"""SWE-agent trajectories (``.traj``): the ``history`` list is OpenAI chat format."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import BaseMessage, HumanMessage

from agent_core.errors import TranscriptFormatError
from agent_core.transcripts._openai_chat import message_from_openai, parse_json_document
from agent_core.transcripts._transcript import Transcript

__all__ = ["load_swe_agent"]


def _marked(messages: list[BaseMessage], items: list[object]) -> list[BaseMessage]:
    """Human-role turns that are not the user speaking: a demonstration (``is_demo``, a worked
    example shown to the model) and every observation after the task statement (the first
    other user turn): SWE-agent sends its tools' output as user turns, so after a reset they
    must not read as the user's open request."""
    task_seen = False
    for message, item in zip(messages, items, strict=True):
        if not isinstance(message, HumanMessage):
            continue
        if isinstance(item, dict) and item.get("is_demo"):
            message.additional_kwargs["not_user"] = "demonstration"
        elif task_seen:
            message.additional_kwargs["not_user"] = "observation"
        else:
            task_seen = True
    return messages


def load_swe_agent(path: Path, text: str) -> Transcript:
    """Parse a SWE-agent trajectory.

    ``info.model_stats.tokens_sent`` is the total over all API calls, not one prompt's size,
    so it goes to ``metadata["model_stats"]``; no per-call usage is invented from it.
    """
    document = parse_json_document(path, text)
    if not isinstance(document, dict) or not isinstance(document.get("history"), list):
        raise TranscriptFormatError(
            "expected a SWE-agent trajectory: a JSON object with a 'history' list",
            path=str(path),
        )
    history = document["history"]
    messages = _marked(
        [message_from_openai(item, index, path) for index, item in enumerate(history)], history
    )
    info = document.get("info") or {}
    metadata = {
        "model_stats": info.get("model_stats"),
        "exit_status": info.get("exit_status"),
        "submission": info.get("submission"),
        "steps": len(document.get("trajectory") or []),
    }
    return Transcript(
        format="swe_agent",
        messages=messages,
        metadata={k: v for k, v in metadata.items() if v is not None},
    )
