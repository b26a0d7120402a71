"""The app's settings: one class, read from the environment once, at start-up.

The composition root (:mod:`chat_app.services.runtime.container`) reads them and hands them
down; nothing below it reads the environment for them. A test builds a ``Settings`` of its own
(``Settings(db_url=...)``) instead of setting variables.
"""

from __future__ import annotations

import os

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from chat_app.db.settings import DEFAULT_DB_URL, normalize_url

__all__ = ["Settings", "read_settings"]

_SANDBOX_LIMIT_PREFIX = "BATON_SANDBOX_"


class Settings(BaseSettings):
    """Every setting the app's services use; each field names its environment variable."""

    model_config = SettingsConfigDict(
        frozen=True, extra="ignore", populate_by_name=True, env_ignore_empty=True
    )

    # ``REFLEX_DB_URL`` wins so that ``reflex db migrate`` and the app always agree.
    db_url: str = Field(
        default=DEFAULT_DB_URL,
        validation_alias=AliasChoices("REFLEX_DB_URL", "BATON_DB_URL", "db_url"),
    )
    redis_url: str = Field(
        default="", validation_alias=AliasChoices("REFLEX_REDIS_URL", "redis_url")
    )
    mcp_timeout: float = Field(
        default=20.0, validation_alias=AliasChoices("BATON_MCP_TIMEOUT", "mcp_timeout")
    )
    mcp_cache_seconds: float = Field(
        default=300.0, validation_alias=AliasChoices("BATON_MCP_CACHE_SECONDS", "mcp_cache_seconds")
    )
    # Commands of every assistant may reach the network (package installs); off by default.
    sandbox_network: bool = Field(
        default=False, validation_alias=AliasChoices("BATON_SANDBOX_NETWORK", "sandbox_network")
    )
    #: The ``BATON_SANDBOX_*`` limits as written (the engine's ``limits_from_settings`` reads
    #: them and names the ones it ignores).
    sandbox_limits: dict[str, str] = Field(default_factory=dict)

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL (PostgreSQL pointed at the psycopg 3 driver)."""
        return normalize_url(self.db_url.strip())


def read_settings() -> Settings:
    """The settings in the process's environment (the composition root reads them once)."""
    limits = {
        name: value
        for name, value in os.environ.items()
        if name.startswith(_SANDBOX_LIMIT_PREFIX) and name != "BATON_SANDBOX_NETWORK"
    }
    return Settings(sandbox_limits=limits)
