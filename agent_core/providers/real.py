"""Real providers through langchain's ``init_chat_model`` (keys and URLs from the env)."""

from __future__ import annotations

import os

from langchain.chat_models import init_chat_model

from agent_core.providers.registry import ResolvedModel, simulator

__all__ = ["resolve_real_model"]

_KEYS = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}


def resolve_real_model(spec: str) -> ResolvedModel:
    provider, _, name = spec.partition(":")
    if not name:
        provider, name = "openai", spec
    key_var = _KEYS.get(provider)
    if key_var and not os.environ.get(key_var) and not os.environ.get("OPENAI_BASE_URL"):
        return simulator(f"{spec} is not configured: set {key_var}")
    model = init_chat_model(name, model_provider=provider, max_retries=3)
    return ResolvedModel(model, spec, spec, False)
