"""What a reach into another library is (:class:`Reach`), how one is confirmed, and the
probes' helpers."""

from __future__ import annotations

import importlib
import importlib.metadata
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chat_app.errors import AppError

__all__ = ["Reach", "UpstreamMoved", "confirm", "dotted_attr", "names_in", "signature_names"]


class UpstreamMoved(AppError):
    """A library no longer has what one of these shims touches."""


@dataclass(frozen=True)
class Reach:
    """One private attribute of another library that a shim here touches."""

    package: str  # the distribution, as installed
    written_for: str  # the version the shim was written against
    attribute: str  # where it lives, dotted
    probe: Callable[[], bool]  # True while the attribute is where and what the shim expects

    def installed(self) -> str:
        try:
            return importlib.metadata.version(self.package)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"


def confirm(reach: Reach) -> None:
    """Raise :class:`UpstreamMoved`, naming the package, its version and the attribute, when
    ``reach`` no longer holds."""
    try:
        holds = reach.probe()
    except (AttributeError, ImportError, KeyError, TypeError, ValueError) as exc:
        holds, why = False, f"{type(exc).__name__}: {exc}"
    else:
        why = "not where or what the shim expects"
    if not holds:
        raise UpstreamMoved(
            f"{reach.package} {reach.installed()} moved {reach.attribute} ({why}); "
            f"chat_app/upstream/ was written against {reach.package} {reach.written_for}: "
            "read the new version's code and update the shim"
        )


def names_in(function: Any) -> tuple[str, ...]:
    """The attribute and global names a function's code uses (``self.x = ...`` included)."""
    return function.__code__.co_names


def dotted_attr(dotted: str) -> Any:
    module, _, name = dotted.rpartition(".")
    return getattr(importlib.import_module(module), name)


def signature_names(function: Any) -> list[str]:
    return list(inspect.signature(function).parameters)
