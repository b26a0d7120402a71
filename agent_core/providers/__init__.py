"""Chat models: the real providers, the simulator, and resolving a model name."""

from agent_core.providers._real import PROVIDERS
from agent_core.providers._registry import (
    SIMULATOR_NAMES,
    ResolvedModel,
    registry_name,
    resolve_model,
)
from agent_core.providers._retry import RetryPolicy
from agent_core.providers._settings import CREDENTIAL_NAMES, ProviderSettings
from agent_core.providers._simulator import SIMULATOR_LABEL, SimulatorChatModel

__all__ = [
    "CREDENTIAL_NAMES",
    "PROVIDERS",
    "ProviderSettings",
    "ResolvedModel",
    "RetryPolicy",
    "SIMULATOR_LABEL",
    "SIMULATOR_NAMES",
    "SimulatorChatModel",
    "registry_name",
    "resolve_model",
]
