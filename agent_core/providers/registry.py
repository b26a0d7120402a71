"""Resolve an assistant's ``provider:model`` setting to a chat model.

The offline simulator is registered like any provider; it is chosen for ``simulator`` and
whenever the configured provider has no credentials, and is labelled as such in the UI.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from agent_core.providers.simulator import SIMULATOR_LABEL, SimulatorChatModel

__all__ = ["ResolvedModel", "resolve_model", "SIMULATOR_NAMES"]

SIMULATOR_NAMES = ("simulator", "baton:simulator")


@dataclass(frozen=True)
class ResolvedModel:
    model: BaseChatModel
    name: str
    """The model name used for the registry (context window, family)."""
    label: str
    """What the UI shows as the answering model."""
    is_simulator: bool


def simulator(label_note: str = "") -> ResolvedModel:
    delay = float(os.environ.get("BATON_SIM_DELAY", "0.01"))
    verbosity = int(os.environ.get("BATON_SIM_VERBOSITY", "24"))
    label = SIMULATOR_LABEL + (f" ({label_note})" if label_note else "")
    return ResolvedModel(SimulatorChatModel(chunk_delay=delay, verbosity=verbosity),
                         "simulator", label, True)


def resolve_model(spec: str, *, window_override: int | None = None) -> ResolvedModel:
    """The chat model for ``spec``; the simulator when ``spec`` names it.

    ``window_override`` is the assistant's context window setting; providers that must be
    told the window (Ollama's ``num_ctx``) get it.
    """
    spec = (spec or "").strip()
    if not spec or spec in SIMULATOR_NAMES:
        return simulator()
    from agent_core.providers.real import resolve_real_model

    return resolve_real_model(spec, window_override=window_override)
