"""Assistant: the model and context-management settings a thread runs with."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict
from sqlalchemy import String, Text
from sqlmodel import Field, SQLModel

from chat_app.db.models.types import JSONValue, UTCDateTime, new_id, utcnow

__all__ = [
    "ContextStrategy",
    "DEFAULT_PINNED_PATHS",
    "AssistantBase",
    "AssistantCreate",
    "AssistantUpdate",
    "Assistant",
    "AssistantPublic",
    "AssistantChange",
]

ContextStrategy = Literal["auto", "compact", "reset"]
DEFAULT_PINNED_PATHS = ["PLAN.md", "contracts/**", "evaluator.*"]


def _default_pinned() -> list[str]:
    return list(DEFAULT_PINNED_PATHS)


class AssistantBase(SQLModel):
    name: str = Field(max_length=200)
    model: str = Field(default="simulator", max_length=200)
    system_prompt: str = Field(default="", sa_type=Text)
    context_strategy: ContextStrategy = Field(default="auto", sa_type=String(16))
    reset_threshold: float = Field(default=0.80, gt=0, le=1)
    compact_threshold: float = Field(default=0.50, gt=0, le=1)
    mask_threshold: float | None = Field(default=0.35, gt=0, le=1)  # None: no masking
    keep_recent_tokens: int = Field(default=2000, ge=0)
    window_override: int | None = Field(default=None, gt=0)
    pinned_paths: list[str] = Field(default_factory=_default_pinned, sa_type=JSONValue)
    # search_history / read_history over the thread's stored originals.
    history_tools: bool = True
    # The chat's "hand off now / compact now / not yet" notice; None: 10 points below the trigger.
    warn_threshold: float | None = Field(default=None, gt=0, le=1)
    # A new session waits until the user confirms, edits or discards its handoff.
    review_handoffs: bool = False
    # Sandboxed commands may reach the network (package installs); off: no network at all.
    sandbox_network: bool = False


class AssistantCreate(AssistantBase):
    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]


class AssistantUpdate(SQLModel):
    """Fields to change; unset fields stay as they are."""

    model_config = ConfigDict(extra="forbid")  # type: ignore[assignment]

    name: str | None = Field(default=None, max_length=200)
    model: str | None = Field(default=None, max_length=200)
    system_prompt: str | None = None
    context_strategy: ContextStrategy | None = None
    reset_threshold: float | None = Field(default=None, gt=0, le=1)
    compact_threshold: float | None = Field(default=None, gt=0, le=1)
    mask_threshold: float | None = Field(default=None, gt=0, le=1)
    keep_recent_tokens: int | None = Field(default=None, ge=0)
    window_override: int | None = Field(default=None, gt=0)
    pinned_paths: list[str] | None = None
    history_tools: bool | None = None
    warn_threshold: float | None = Field(default=None, gt=0, le=1)
    review_handoffs: bool | None = None
    sandbox_network: bool | None = None


class Assistant(AssistantBase, table=True):
    __tablename__ = "assistant"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    created_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)


class AssistantPublic(AssistantBase):
    id: str
    created_at: datetime
    updated_at: datetime


class AssistantChange(SQLModel, table=True):
    """One changed setting: what it was, what it became, when (the admin page's history)."""

    __tablename__ = "assistant_change"

    id: str = Field(default_factory=new_id, primary_key=True, max_length=32)
    assistant_id: str = Field(
        foreign_key="assistant.id", ondelete="CASCADE", index=True, max_length=32
    )
    field: str = Field(max_length=64)
    previous: Any = Field(default=None, sa_type=JSONValue, nullable=True)
    new: Any = Field(default=None, sa_type=JSONValue, nullable=True)
    changed_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
