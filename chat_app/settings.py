"""The app's settings: one class, read from the environment once, at start-up.

The composition root (:mod:`chat_app.services.runtime.container`) reads them and hands them
down; nothing below it reads the environment for them. A test builds a ``Settings`` of its own
(``Settings(db_url=...)``) instead of setting variables.
"""

from __future__ import annotations

import os

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent_core.providers import CREDENTIAL_NAMES, ProviderSettings, RetryPolicy
from agent_core.redaction import known_secrets
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
    # ``BATON_SANDBOX=off`` turns real commands off (``run_command`` is then not offered to
    # real models), for hosts where an administrator does not want them.
    sandbox_enabled: bool = Field(
        default=True, validation_alias=AliasChoices("BATON_SANDBOX", "sandbox_enabled")
    )
    #: The ``BATON_SANDBOX_*`` limits as written (the engine's ``limits_from_settings`` reads
    #: them and names the ones it ignores).
    sandbox_limits: dict[str, str] = Field(default_factory=dict)
    # Every provider call: its timeout (seconds), the retries after the first call, and the
    # first backoff (seconds, doubled at each retry).
    model_timeout: float = Field(
        default=120.0, gt=0, validation_alias=AliasChoices("BATON_MODEL_TIMEOUT", "model_timeout")
    )
    model_retries: int = Field(
        default=RetryPolicy.attempts - 1,
        ge=0,
        validation_alias=AliasChoices("BATON_MODEL_RETRIES", "model_retries"),
    )
    retry_delay: float = Field(
        default=RetryPolicy.base_delay,
        ge=0,
        validation_alias=AliasChoices("BATON_RETRY_DELAY", "retry_delay"),
    )
    # The offline simulator's pace: seconds between streamed chunks, words per answer.
    sim_delay: float = Field(
        default=0.01, ge=0, validation_alias=AliasChoices("BATON_SIM_DELAY", "sim_delay")
    )
    sim_verbosity: int = Field(
        default=24, ge=1, validation_alias=AliasChoices("BATON_SIM_VERBOSITY", "sim_verbosity")
    )
    #: The providers' keys and base URLs, by the names of their environment variables
    #: (``agent_core.providers.CREDENTIAL_NAMES``).
    provider_credentials: dict[str, str] = Field(default_factory=dict, repr=False)
    #: Every credential the process's environment holds (keys, and what any ``*_URL``
    #: carries), which the logs and the error texts shown to users never repeat.
    environment_secrets: tuple[str, ...] = Field(default=(), repr=False)

    @property
    def database_url(self) -> str:
        """The SQLAlchemy URL (PostgreSQL pointed at the psycopg 3 driver)."""
        return normalize_url(self.db_url.strip())

    @property
    def providers(self) -> ProviderSettings:
        """What the engine's providers are handed: credentials, timeout, retries, pace."""
        return ProviderSettings(
            credentials=dict(self.provider_credentials),
            timeout=self.model_timeout,
            retry=RetryPolicy(attempts=self.model_retries + 1, base_delay=self.retry_delay),
            simulator_delay=self.sim_delay,
            simulator_verbosity=self.sim_verbosity,
        )


def read_settings() -> Settings:
    """The settings in the process's environment (the composition root reads them once)."""
    limits = {
        name: value
        for name, value in os.environ.items()
        if name.startswith(_SANDBOX_LIMIT_PREFIX) and name != "BATON_SANDBOX_NETWORK"
    }
    credentials = {name: os.environ[name] for name in CREDENTIAL_NAMES if os.environ.get(name)}
    return Settings(
        sandbox_limits=limits,
        provider_credentials=credentials,
        environment_secrets=tuple(known_secrets(os.environ)),
    )
