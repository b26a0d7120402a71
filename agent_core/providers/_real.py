"""Real providers through langchain's ``init_chat_model``; keys and URLs come from the
:class:`~agent_core.providers._settings.ProviderSettings` the caller hands in (by the names of
the environment variables the app reads them from).

Specs:

- ``anthropic:<model>`` needs ``ANTHROPIC_API_KEY``; ``ANTHROPIC_BASE_URL`` optional.
- ``openai:<model>`` needs ``OPENAI_API_KEY``; ``OPENAI_BASE_URL`` optional (a proxy or an
  OpenAI-compatible server that checks keys).
- ``openai-compatible:<model>`` needs ``BATON_OPENAI_BASE_URL`` (or ``OPENAI_BASE_URL``);
  ``OPENAI_API_KEY`` is optional because local servers (vLLM, llama.cpp, LM Studio) need none.
- ``ollama:<model>`` uses ``OLLAMA_BASE_URL`` (default ``http://localhost:11434``). Ollama
  silently drops the start of a prompt longer than its ``num_ctx``, so Baton sets ``num_ctx``
  to the window it manages (the assistant's override, else the registry's figure): the model
  then sees everything Baton counts, and resets happen before anything is lost.

A provider without its key (or URL) resolves to the simulator, labelled with what to set.
The settings' timeout (seconds, default 120) and retries (3 after the first call, the first
backoff 1 second) apply to every provider.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from langchain.chat_models import init_chat_model

from agent_core.accounting._models import model_info
from agent_core.errors import ConfigurationError
from agent_core.providers._errors import ProviderErrorMapping
from agent_core.providers._settings import ProviderSettings
from agent_core.providers._spec import ResolvedModel, registry_name, simulator, split_spec

__all__ = ["resolve_real_model", "STRUCTURED_METHODS", "PROVIDERS"]

PROVIDERS = ("anthropic", "openai", "openai-compatible", "ollama")

STRUCTURED_METHODS = {
    "openai": "json_schema",  # response_format json_schema
    "anthropic": "function_calling",  # a forced tool call
    "ollama": "json_schema",  # Ollama's `format` with the schema
    "openai-compatible": "function_calling",  # tools are more widely served than json_schema
}
_PLACEHOLDER_KEY = "not-needed"  # the OpenAI client insists on a key; local servers ignore it

# langchain-openai dumps each streamed chunk with pydantic, and the OpenAI SDK types a
# structured reply's ``parsed`` field as None: every handoff written through a JSON schema
# logged a serializer warning about a value that is correct. Only that warning is silenced.
warnings.filterwarnings(
    "ignore",
    message=r"(?s)Pydantic serializer warnings:.*Expected `none`.*field_name='parsed'",
    category=UserWarning,
)


def _client_kwargs(
    provider: str, credentials: Mapping[str, str], timeout: float, window: int
) -> tuple[dict[str, Any], str | None]:
    """init_chat_model keyword arguments, or the hint of what to set when something is missing."""
    if provider == "anthropic":
        if not credentials.get("ANTHROPIC_API_KEY"):
            return {}, "set ANTHROPIC_API_KEY"
        kwargs: dict[str, Any] = {
            "api_key": credentials["ANTHROPIC_API_KEY"],
            "timeout": timeout,
            "max_retries": 0,
        }
        if credentials.get("ANTHROPIC_BASE_URL"):
            kwargs["base_url"] = credentials["ANTHROPIC_BASE_URL"]
        return kwargs, None
    if provider == "openai":
        if not credentials.get("OPENAI_API_KEY"):
            return {}, "set OPENAI_API_KEY"
        kwargs = {
            "api_key": credentials["OPENAI_API_KEY"],
            "timeout": timeout,
            "max_retries": 0,
            "stream_usage": True,
        }
        if credentials.get("OPENAI_BASE_URL"):
            kwargs["base_url"] = credentials["OPENAI_BASE_URL"]
        return kwargs, None
    if provider == "openai-compatible":
        base_url = credentials.get("BATON_OPENAI_BASE_URL") or credentials.get("OPENAI_BASE_URL")
        if not base_url:
            return {}, "set BATON_OPENAI_BASE_URL"
        return {
            "api_key": credentials.get("OPENAI_API_KEY") or _PLACEHOLDER_KEY,
            "base_url": base_url,
            "timeout": timeout,
            "max_retries": 0,
            "stream_usage": True,
        }, None
    if provider == "ollama":
        base_url = credentials.get("OLLAMA_BASE_URL") or "http://localhost:11434"
        return {
            "base_url": base_url,
            "client_kwargs": {"timeout": timeout},
            "num_ctx": window,
        }, None
    raise ConfigurationError(
        f"Unknown model provider {provider!r}: use one of {', '.join(PROVIDERS)} "
        "(for example anthropic:claude-sonnet-4-6 or openai:gpt-4o)"
    )


def _endpoint(base_url: str) -> str:
    """``host[:port]`` of ``base_url``: where the model runs, never the credentials in it."""
    try:
        parts = urlsplit(base_url)
        host, port = parts.hostname, parts.port
    except ValueError:  # an invalid port or IPv6 address; the client will say so
        return "custom endpoint"
    if not host:
        return "custom endpoint"
    host = f"[{host}]" if ":" in host else host
    return f"{host}:{port}" if port else host


def _label(provider: str, name: str, kwargs: Mapping[str, Any]) -> str:
    """The model as the UI shows it on every reply and on /admin (so: no credentials)."""
    if provider == "openai-compatible":
        return f"{name} @ {_endpoint(str(kwargs.get('base_url', '')))}"
    return f"{provider}:{name}"


def resolve_real_model(
    spec: str,
    *,
    settings: ProviderSettings,
    window_override: int | None = None,
) -> ResolvedModel:
    """The chat model for a ``provider:model`` spec, guarded by retries and error mapping.

    Raises :class:`~agent_core.errors.ConfigurationError` for an unknown provider or an
    invalid setting; returns the labelled simulator when the provider is not configured.
    """
    provider, name = split_spec(spec)
    if not name:
        raise ConfigurationError(f"Model setting {spec!r} names no model: use provider:model")
    known_as = registry_name(spec)
    window = model_info(known_as, window_override=window_override).context_window
    kwargs, missing = _client_kwargs(provider, settings.credentials, settings.timeout, window)
    if missing:
        return simulator(settings, f"{provider}:{name} is not configured: {missing}")
    # The OpenAI-compatible endpoint speaks the OpenAI protocol, so it uses that client.
    client_provider = "openai" if provider == "openai-compatible" else provider
    inner = init_chat_model(name, model_provider=client_provider, **kwargs)
    label = _label(provider, name, kwargs)
    model = ProviderErrorMapping(
        inner=inner,
        provider=provider,
        label=label,
        structured_method=STRUCTURED_METHODS[provider],
        retry=settings.retry,
        timeout=settings.timeout,
    )
    return ResolvedModel(model, known_as, label, False)
