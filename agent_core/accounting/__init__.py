"""Token accounting: exact counts (tiktoken), calibration, the model table."""

from agent_core.accounting._calibration import ContextEstimator, TokenEstimate
from agent_core.accounting._models import ModelInfo, model_info
from agent_core.accounting._tokens import TokenCounter, get_encoding

__all__ = [
    "ContextEstimator",
    "ModelInfo",
    "TokenCounter",
    "TokenEstimate",
    "get_encoding",
    "model_info",
]
