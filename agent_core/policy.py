"""Per-assistant context policy: which strategy, at which thresholds, with which pinned files.

Thresholds are ordered: mask < compact < reset (masking is the first, cheap stage)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator

from agent_core.errors import ConfigurationError

__all__ = ["Strategy", "ContextPolicy", "make_policy", "DEFAULT_PINNED"]

Strategy = Literal["compact", "reset", "auto"]
DEFAULT_PINNED = ("PLAN.md", "contracts/**", "evaluator.*")


class ContextPolicy(BaseModel):
    """How an assistant keeps its context in bounds. Frozen; build with :func:`make_policy`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    context_strategy: Strategy = "auto"
    reset_threshold: float = Field(default=0.80, gt=0.0, le=1.0)
    compact_threshold: float = Field(default=0.50, gt=0.0, le=1.0, validate_default=True)
    # Above it, old tool outputs are masked (a placeholder says how to reread them) before
    # any compaction or reset is considered; None turns masking off.
    mask_threshold: float | None = Field(default=0.35, gt=0.0, le=1.0, validate_default=True)
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

    # Field validators rather than one model validator, so that a refusal names the field
    # it is about (pydantic's location): fields are validated in order, reset first.
    @field_validator("compact_threshold")
    @classmethod
    def _compact_below_reset(cls, compact: float, info: ValidationInfo) -> float:
        reset = info.data.get("reset_threshold")
        if reset is not None and compact >= reset:
            raise ValueError(
                f"compact threshold ({compact:.0%}) must be below the reset threshold ({reset:.0%})"
            )
        return compact

    @field_validator("mask_threshold")
    @classmethod
    def _mask_below_compact(cls, mask: float | None, info: ValidationInfo) -> float | None:
        compact = info.data.get("compact_threshold")
        if mask is not None and compact is not None and mask >= compact:
            raise ValueError(
                f"mask threshold ({mask:.0%}) must be below the compact threshold ({compact:.0%}); "
                "leave it empty to turn masking off"
            )
        return mask


def make_policy(**fields: object) -> ContextPolicy:
    """Build a policy, turning validation failures into one clear :class:`ConfigurationError`."""
    try:
        return ContextPolicy(**fields)  # type: ignore[arg-type]
    except ValidationError as exc:
        errors = exc.errors()
        reasons = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'policy'}: {_reason(err['msg'])}"
            for err in errors
        )
        first = errors[0]["loc"]
        field = str(first[0]) if first else ""
        raise ConfigurationError(f"invalid context policy: {reasons}", field=field) from None


def _reason(message: str) -> str:
    return message.removeprefix("Value error, ")
