"""Per-assistant context policy: which strategy, at which thresholds, with which pinned files.

Thresholds are ordered: mask < compact < reset (masking is the first, cheap stage)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from agent_core.errors import ConfigurationError

__all__ = ["Strategy", "ContextPolicy", "make_policy", "DEFAULT_PINNED"]

Strategy = Literal["compact", "reset", "auto"]
DEFAULT_PINNED = ("PLAN.md", "contracts/**", "evaluator.*")


class ContextPolicy(BaseModel):
    """How an assistant keeps its context in bounds. Frozen; build with :func:`make_policy`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    context_strategy: Strategy = "auto"
    reset_threshold: float = Field(default=0.80, gt=0.0, le=1.0)
    compact_threshold: float = Field(default=0.50, gt=0.0, le=1.0)
    # Above it, old tool outputs are masked (a placeholder says how to reread them) before
    # any compaction or reset is considered; None turns masking off.
    mask_threshold: float | None = Field(default=0.35, gt=0.0, le=1.0)
    # The chat offers "hand off now / compact now / not yet" once utilization passes it;
    # None means 10 points below the threshold that acts (see strategies/reset_control.py).
    warn_threshold: float | None = Field(default=None, gt=0.0, le=1.0)
    keep_recent_tokens: int = Field(default=2000, ge=0)
    window_override: int | None = Field(default=None, gt=0)
    pinned_paths: tuple[str, ...] = DEFAULT_PINNED

    @field_validator("pinned_paths")
    @classmethod
    def _clean_paths(cls, paths: tuple[str, ...]) -> tuple[str, ...]:
        cleaned = tuple(p.strip().lstrip("/") for p in paths if p.strip())
        for path in cleaned:
            if ".." in path.split("/"):
                raise ValueError(f"pinned path {path!r} must stay inside the workspace")
        return cleaned

    @model_validator(mode="after")
    def _thresholds_ordered(self) -> ContextPolicy:
        if self.compact_threshold >= self.reset_threshold:
            raise ValueError(
                f"compact threshold ({self.compact_threshold:.0%}) must be below the reset "
                f"threshold ({self.reset_threshold:.0%})"
            )
        if self.mask_threshold is not None and self.mask_threshold >= self.compact_threshold:
            raise ValueError(
                f"mask threshold ({self.mask_threshold:.0%}) must be below the compact "
                f"threshold ({self.compact_threshold:.0%}); leave it empty to turn masking off"
            )
        return self


def make_policy(**fields: object) -> ContextPolicy:
    """Build a policy, turning validation failures into one clear :class:`ConfigurationError`."""
    try:
        return ContextPolicy(**fields)  # type: ignore[arg-type]
    except ValidationError as exc:
        reasons = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'policy'}: {err['msg'].removeprefix('Value error, ')}"
            for err in exc.errors()
        )
        raise ConfigurationError(f"invalid context policy: {reasons}") from None
