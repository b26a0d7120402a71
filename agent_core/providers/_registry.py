"""Resolve an assistant's ``provider:model`` setting to a chat model.

The offline simulator is registered like any provider; it is chosen for ``simulator`` and
whenever the configured provider has no credentials, and is labelled as such in the UI.
"""

from __future__ import annotations

from agent_core.providers._real import resolve_real_model
from agent_core.providers._settings import ProviderSettings
from agent_core.providers._spec import (
    SIMULATOR_NAMES,
    ResolvedModel,
    registry_name,
    simulator,
    split_spec,
)

__all__ = ["ResolvedModel", "resolve_model", "registry_name", "split_spec", "SIMULATOR_NAMES"]


def resolve_model(
    spec: str,
    *,
    settings: ProviderSettings | None = None,
    window_override: int | None = None,
) -> ResolvedModel:
    """The chat model for ``spec``; the simulator when ``spec`` names it.

    ``settings`` are the credentials, timeouts and simulator pace the caller was configured
    with (the defaults have no credentials: a real provider resolves to the labelled
    simulator). ``window_override`` is the assistant's context window setting; providers that
    must be told the window (Ollama's ``num_ctx``) get it.
    """
    settings = ProviderSettings() if settings is None else settings
    spec = (spec or "").strip()
    if not spec or spec in SIMULATOR_NAMES:
        return simulator(settings)
    return resolve_real_model(spec, settings=settings, window_override=window_override)
