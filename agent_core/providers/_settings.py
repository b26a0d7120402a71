"""What the providers are handed: credentials, timeout, retries and the simulator's pace.

The engine reads no environment variable. Whoever starts the process (the app's composition
root, the command line) reads its configuration and hands a :class:`ProviderSettings` in; the
defaults (no credentials: every real provider resolves to the labelled simulator) are what
the engine's own tests and benchmarks run on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from agent_core.errors import ConfigurationError
from agent_core.providers._retry import RetryPolicy

__all__ = ["CREDENTIAL_NAMES", "ProviderSettings"]

#: The names the providers look their keys and URLs up by in :attr:`ProviderSettings.credentials`
#: (the environment variables of the same names, where the app reads them).
CREDENTIAL_NAMES = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "BATON_OPENAI_BASE_URL",
    "OLLAMA_BASE_URL",
    "OLLAMA_API_KEY",
)


@dataclass(frozen=True)
class ProviderSettings:
    """Credentials, timeout and retries for provider calls, and the offline simulator's pace."""

    credentials: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 120.0
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    #: Seconds between the simulator's streamed chunks.
    simulator_delay: float = 0.01
    #: How many words the simulator's made-up answers run to, roughly.
    simulator_verbosity: int = 24

    @classmethod
    def from_env(cls, env: Mapping[str, str]) -> ProviderSettings:
        """The settings in ``env`` (``BATON_MODEL_TIMEOUT``, ``BATON_MODEL_RETRIES``,
        ``BATON_RETRY_DELAY``, ``BATON_SIM_DELAY``, ``BATON_SIM_VERBOSITY`` and the
        :data:`CREDENTIAL_NAMES`), for a command line that has no settings class of its own."""
        try:
            retries = int(env.get("BATON_MODEL_RETRIES", RetryPolicy.attempts - 1))
            return cls(
                credentials={name: env[name] for name in CREDENTIAL_NAMES if env.get(name)},
                timeout=float(env.get("BATON_MODEL_TIMEOUT", cls.timeout)),
                retry=RetryPolicy(
                    attempts=max(1, retries + 1),
                    base_delay=float(env.get("BATON_RETRY_DELAY", RetryPolicy.base_delay)),
                ),
                simulator_delay=float(env.get("BATON_SIM_DELAY", cls.simulator_delay)),
                simulator_verbosity=int(env.get("BATON_SIM_VERBOSITY", cls.simulator_verbosity)),
            )
        except ValueError as exc:
            raise ConfigurationError(
                "BATON_MODEL_TIMEOUT, BATON_MODEL_RETRIES, BATON_RETRY_DELAY, BATON_SIM_DELAY "
                f"and BATON_SIM_VERBOSITY must be numbers ({exc})"
            ) from None
