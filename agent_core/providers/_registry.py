"""Resolve an assistant's ``provider:model`` setting to a chat model.

The offline simulator is registered like any provider; it is chosen for ``simulator`` and
whenever the configured provider has no credentials, and is labelled as such in the UI.
"""

from __future__ import annotations

from agent_core.providers._real import resolve_real_model
from agent_core.providers._spec import (
    SIMULATOR_NAMES,
    ResolvedModel,
    registry_name,
    simulator,
    split_spec,
)

__all__ = ["ResolvedModel", "resolve_model", "registry_name", "split_spec", "SIMULATOR_NAMES"]


def resolve_model(spec: str, *, window_override: int | None = None) -> ResolvedModel:
    """The chat model for ``spec``; the simulator when ``spec`` names it.

    ``window_override`` is the assistant's context window setting; providers that must be
    told the window (Ollama's ``num_ctx``) get it.
    """
    spec = (spec or "").strip()
    if not spec or spec in SIMULATOR_NAMES:
        return simulator()
    return resolve_real_model(spec, window_override=window_override)
