"""The app's settings: one class, read from the environment once, at start-up.

The composition root (:mod:`chat_app.services.runtime.container`) reads them and hands them
down; nothing below it reads the environment for them. A test builds a ``Settings`` of its own
(``Settings(db_url=...)``) instead of setting variables.
"""

from __future__ import annotations

import os
from typing import Annotated, Any

from pydantic import AliasChoices, BeforeValidator, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent_core.providers import CREDENTIAL_NAMES, ProviderSettings, RetryPolicy
from agent_core.redaction import known_secrets
from chat_app.db.settings import DEFAULT_DB_URL, normalize_url

__all__ = ["TURN_HOLDER_ENV", "Settings", "read_settings"]

#: The variable a turn process's parent hands it its holder tag in (``Settings.turn_holder``).
TURN_HOLDER_ENV = "BATON_TURN_HOLDER"

_SANDBOX_LIMIT_PREFIX = "BATON_SANDBOX_"
_DEFAULT_IMPORT_MB = 25.0


def _sharing_switch(value: Any) -> Any:
    """``BATON_SHARING`` as it was always read: on unless ``off``, ``0``, ``false`` or ``no``."""
    if isinstance(value, str):
        return value.strip().lower() not in ("off", "0", "false", "no")
    return value


def _remote_images_switch(value: Any) -> Any:
    """``BATON_REMOTE_IMAGES`` as it was always read: off unless ``1``, ``on``, ``true`` or
    ``yes``."""
    if isinstance(value, str):
        return value.strip().lower() in ("1", "on", "true", "yes")
    return value


def _window_or_none(value: Any) -> Any:
    """``BATON_SIM_WINDOW`` as it was always read: a positive whole number, else unset."""
    if isinstance(value, str):
        text = value.strip()
        return int(text) if text.isdigit() and int(text) > 0 else None
    return value


def _megabytes_or_default(value: Any) -> Any:
    """``BATON_IMPORT_MAX_MB`` as it was always read: a number, else the default."""
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return _DEFAULT_IMPORT_MB
    return value


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
    # The admin page's password (``BATON_ADMIN_PASSWORD``); without it admin is disabled.
    admin_password: str = Field(
        default="",
        repr=False,
        validation_alias=AliasChoices("BATON_ADMIN_PASSWORD", "admin_password"),
    )
    # The identity cookie's signing key (``BATON_SECRET_KEY``), which every worker and host
    # must share; without it, a key created once in ``secret_file`` (``BATON_SECRET_FILE``)
    # and read from there (chat_app.services.security.identity.signing_key).
    secret_key: str = Field(
        default="",
        repr=False,
        validation_alias=AliasChoices("BATON_SECRET_KEY", "secret_key"),
    )
    secret_file: str = Field(
        default=".baton-secret",
        validation_alias=AliasChoices("BATON_SECRET_FILE", "secret_file"),
    )
    # ``BATON_SHARING=off`` (or 0, false, no) turns share links off; any other value leaves
    # them on.
    sharing_enabled: Annotated[bool, BeforeValidator(_sharing_switch)] = Field(
        default=True, validation_alias=AliasChoices("BATON_SHARING", "sharing_enabled")
    )
    # The largest session file an import accepts, in MB (not a number: the default).
    import_max_mb: Annotated[float, BeforeValidator(_megabytes_or_default)] = Field(
        default=_DEFAULT_IMPORT_MB,
        validation_alias=AliasChoices("BATON_IMPORT_MAX_MB", "import_max_mb"),
    )
    # The offline simulator's context window in tokens (demos and browser tests see resets
    # within a few turns); not a positive whole number: the model table's.
    sim_window: Annotated[int | None, BeforeValidator(_window_or_none)] = Field(
        default=None, validation_alias=AliasChoices("BATON_SIM_WINDOW", "sim_window")
    )
    # The app's own origins, comma-separated (empty: the request's own host).
    allowed_origins: str = Field(
        default="", validation_alias=AliasChoices("BATON_ALLOWED_ORIGINS", "allowed_origins")
    )
    # Whether chat Markdown may load images from other hosts (on, 1, true or yes).
    remote_images: Annotated[bool, BeforeValidator(_remote_images_switch)] = Field(
        default=False, validation_alias=AliasChoices("BATON_REMOTE_IMAGES", "remote_images")
    )
    # How long a turn's lease on its thread lasts without renewal (seconds).
    turn_lease: float = Field(
        default=15.0, validation_alias=AliasChoices("BATON_TURN_LEASE", "turn_lease")
    )
    # The tag a turn process's leases carry: its parent sets ``BATON_TURN_HOLDER`` when it
    # starts it, and frees the leases of that tag if it dies (empty in any other process).
    turn_holder: str = Field(
        default="", validation_alias=AliasChoices(TURN_HOLDER_ENV, "turn_holder")
    )
    # A turn process that ran 20 runs and holds this many MB more than once it had loaded is
    # replaced by a fresh one once nothing has run in it for ``turn_process_idle`` seconds
    # (0: never; chat_app.services.runtime.turn_recycling).
    turn_process_recycle_mb: float = Field(
        default=64.0,
        ge=0,
        validation_alias=AliasChoices("BATON_TURN_PROCESS_RECYCLE_MB", "turn_process_recycle_mb"),
    )
    turn_process_idle: float = Field(
        default=5.0,
        gt=0,
        validation_alias=AliasChoices("BATON_TURN_PROCESS_IDLE", "turn_process_idle"),
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
