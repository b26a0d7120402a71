"""A user's own settings: theme, Enter to send, the assistant new chats start with, density.
Stored per user (the owner id every device of theirs signs in as), read on every page."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, SQLModel

from chat_app.db.models.types import UTCDateTime, utcnow

__all__ = ["UserSettings", "THEMES", "DENSITIES"]

THEMES = ("system", "light", "dark")
DENSITIES = ("comfortable", "compact")


class UserSettings(SQLModel, table=True):
    __tablename__ = "user_settings"

    owner: str = Field(primary_key=True, max_length=200)
    theme: str = Field(default="system", max_length=8)
    enter_sends: bool = True
    default_assistant_id: str | None = Field(default=None, max_length=32)
    density: str = Field(default="comfortable", max_length=12)
    updated_at: datetime = Field(default_factory=utcnow, sa_type=UTCDateTime)
