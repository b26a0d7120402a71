"""Context utilization estimates, calibrated by the usage providers report.

A provider's ``usage_metadata["input_tokens"]`` is the truth for the prompt it was given. After
such an observation, the estimate for a history that extends the observed one is

    reported + ratio * (count(now) - count(then))

where ``count`` is our exact BPE count and ``ratio`` converts our tokens into the provider's,
learned per model family from observations. Without an observation the estimate is our count,
exact for OpenAI models (we count with their tokenizer) and scaled by a family prior otherwise.

Family priors (provider tokens per cl100k token, for English prose and code):
- Claude 1.15: Anthropic's tokenizer is not published; its counts run about 10-20% above
  cl100k on English and code (Anthropic's token-counting endpoint versus tiktoken on the same
  text). Over-estimating is the safe side: a reset fires a little early, never too late.
- Mistral 1.10 and unknown 1.10: smaller vocabularies than cl100k; same safe-side reasoning.
- Gemini, Llama 3, Qwen, DeepSeek 1.0: vocabularies of 128k-256k entries whose counts sit near
  cl100k's. These priors are rough and are replaced by the learned ratio after one observation.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict

from agent_core.models import Family, model_info
from agent_core.tokens import TokenCounter

__all__ = ["TokenEstimate", "ContextEstimator", "FamilyRatios", "PRIOR_RATIOS"]

Basis = Literal["exact", "calibrated", "approximate"]

PRIOR_RATIOS: dict[str, float] = {
    "opus": 1.15,
    "sonnet": 1.15,
    "haiku": 1.15,
    "claude": 1.15,
    "mistral": 1.10,
    "unknown": 1.10,
}
# Families whose tokenizer is the one TokenCounter uses: our count is the provider's count.
EXACT_FAMILIES: frozenset[str] = frozenset({"gpt", "o-series", "simulator"})
# A reported/counted ratio outside this band means the provider saw context we did not (a
# hidden system prompt, files, a repo map); it says nothing about the tokenizer.
PLAUSIBLE_RATIO = (0.6, 1.8)
# A delta ratio needs enough new tokens to be more signal than noise.
MIN_DELTA_TOKENS = 200


class TokenEstimate(BaseModel):
    """How full the context window is, and how much to trust the figure."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    tokens: int
    window: int
    fraction: float
    basis: Basis


class FamilyRatios:
    """Provider tokens per counted token, per family: the prior until observations arrive.

    The ratio is the sum of reported over the sum of counted tokens across the last
    ``window`` plausible samples, so larger prompts weigh more than tiny ones.
    """

    def __init__(self, priors: dict[str, float] | None = None, *, window: int = 8) -> None:
        self._priors = dict(PRIOR_RATIOS if priors is None else priors)
        self._samples: dict[str, deque[tuple[int, int]]] = {}
        self._window = window

    def ratio(self, family: Family) -> float:
        """The learned ratio, else the prior (1.0 when the family has none)."""
        samples = self._samples.get(family)
        if samples:
            return sum(r for r, _ in samples) / sum(c for _, c in samples)
        return self._priors.get(family, 1.0)

    def learned(self, family: Family) -> bool:
        """Whether at least one observation has informed this family's ratio."""
        return bool(self._samples.get(family))

    def add(self, family: Family, reported: int, counted: int) -> bool:
        """Record one sample; implausible ones are ignored. Returns whether it was kept."""
        if counted <= 0 or not PLAUSIBLE_RATIO[0] <= reported / counted <= PLAUSIBLE_RATIO[1]:
            return False
        samples = self._samples.setdefault(family, deque(maxlen=self._window))
        samples.append((reported, counted))
        return True


class _Observation:
    __slots__ = ("messages", "reported", "counted", "system", "tools")

    def __init__(self, messages, reported, counted, system, tools) -> None:  # noqa: ANN001
        self.messages = messages
        self.reported = reported
        self.counted = counted
        self.system = system
        self.tools = tools


class ContextEstimator:
    """Estimates prompt tokens and window utilization for one model.

    Call ``observe`` after each model call that reported usage, ``estimate`` before each call.
    Both reuse one ``TokenCounter``, so an estimate costs a cache lookup per message.
    """

    def __init__(
        self,
        model: str,
        *,
        window_override: int | None = None,
        counter: TokenCounter | None = None,
        ratios: FamilyRatios | None = None,
    ) -> None:
        self.info = model_info(model, window_override=window_override)
        self.counter = counter or TokenCounter(model)
        self.ratios = ratios or FamilyRatios()
        self._last: _Observation | None = None

    def observe(
        self,
        messages: Sequence[BaseMessage],
        reported_input_tokens: int,
        *,
        system: str | None = None,
        tools: Sequence[Any] | None = None,
    ) -> None:
        """Record the provider's input-token figure for exactly this prompt."""
        counted = self.counter.count(messages, system=system, tools=tools)
        if not self.ratios.add(self.info.family, reported_input_tokens, counted):
            # The full prompt hid context from us (an implausible ratio); the growth since
            # the previous call still compares like with like.
            self._learn_from_growth(messages, reported_input_tokens, counted, system, tools)
        self._last = _Observation(
            list(messages), reported_input_tokens, counted, system, list(tools or ())
        )

    def estimate(
        self,
        messages: Sequence[BaseMessage],
        *,
        system: str | None = None,
        tools: Sequence[Any] | None = None,
    ) -> TokenEstimate:
        """Prompt tokens for ``messages`` and the fraction of the window they fill."""
        counted = self.counter.count(messages, system=system, tools=tools)
        family = self.info.family
        ratio = self.ratios.ratio(family)
        last = self._last
        if last is not None and self._extends(last, messages, system, tools):
            tokens = last.reported + ratio * (counted - last.counted)
            basis: Basis = "calibrated"
        elif family in EXACT_FAMILIES:
            tokens, basis = counted, "exact"
        else:
            tokens = counted * ratio
            basis = "calibrated" if self.ratios.learned(family) else "approximate"
        return self._result(round(tokens), basis)

    def _learn_from_growth(self, messages, reported, counted, system, tools) -> None:  # noqa: ANN001
        previous = self._last
        if previous is None or not self._extends(previous, messages, system, tools):
            return
        delta_counted = counted - previous.counted
        if delta_counted >= MIN_DELTA_TOKENS:
            self.ratios.add(self.info.family, reported - previous.reported, delta_counted)

    def reset(self) -> None:
        """Forget the last observation (e.g. a new session starts from a handoff)."""
        self._last = None

    def _result(self, tokens: int, basis: Basis) -> TokenEstimate:
        window = self.info.context_window
        return TokenEstimate(
            tokens=max(tokens, 0), window=window, fraction=max(tokens, 0) / window, basis=basis
        )

    @staticmethod
    def _extends(
        last: _Observation,
        messages: Sequence[BaseMessage],
        system: str | None,
        tools: Sequence[Any] | None,
    ) -> bool:
        """Whether ``messages`` start with the observed ones, under the same system and tools."""
        observed = last.messages
        if len(messages) < len(observed) or system != last.system:
            return False
        if len(last.tools) != len(tools or ()) or any(
            a is not b for a, b in zip(last.tools, tools or (), strict=False)
        ):
            return False
        # List equality short-cuts on identity in C, so an unchanged prefix costs little.
        return list(messages[: len(observed)]) == observed
