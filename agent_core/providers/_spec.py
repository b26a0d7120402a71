"""What a ``provider:model`` setting names, before any model is built.

Shared by the registry (which picks the simulator or a real provider) and the real providers
(which fall back to the simulator when a key is missing); neither imports the other for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.language_models import BaseChatModel

from agent_core.providers._settings import ProviderSettings
from agent_core.providers._simulator import SIMULATOR_LABEL, SimulatorChatModel

__all__ = ["ResolvedModel", "SIMULATOR_NAMES", "registry_name", "simulator", "split_spec"]

SIMULATOR_NAMES = ("simulator", "baton:simulator")


@dataclass(frozen=True)
class ResolvedModel:
    model: BaseChatModel
    name: str
    """The model name used for the registry (context window, family)."""
    label: str
    """What the UI shows as the answering model."""
    is_simulator: bool


def simulator(settings: ProviderSettings, label_note: str = "") -> ResolvedModel:
    """The offline simulator at the pace ``settings`` give, labelled with ``label_note``."""
    label = SIMULATOR_LABEL + (f" ({label_note})" if label_note else "")
    model = SimulatorChatModel(
        chunk_delay=settings.simulator_delay, verbosity=settings.simulator_verbosity
    )
    return ResolvedModel(model, "simulator", label, True)


def split_spec(spec: str) -> tuple[str, str]:
    """``provider:model`` -> (provider, model); a bare name's provider is guessed by family."""
    if ":" not in spec:
        return ("anthropic" if spec.startswith("claude") else "openai"), spec
    provider, _, name = spec.partition(":")
    return provider.strip().lower(), name.strip()


def registry_name(spec: str) -> str:
    """The name the model registry knows ``spec`` by (``ResolvedModel.name`` once configured):
    an OpenAI-compatible server's model goes by its bare name, the others keep the provider."""
    spec = (spec or "").strip()
    if not spec or spec in SIMULATOR_NAMES:
        return "simulator"
    provider, name = split_spec(spec)
    return name if provider == "openai-compatible" else f"{provider}:{name}"
