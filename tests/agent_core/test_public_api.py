"""The engine's public API is ``agent_core.__all__``, and it says exactly what the package
exports (httpx's ``test_exported_members`` form): every public name the package defines or
imports is in ``__all__``, and every name in ``__all__`` is defined, once. There is no
second copy of the list: adding a name to the door is one line in ``agent_core/__init__.py``,
and a name imported there without being exported (or exported without being imported)
fails here."""

from __future__ import annotations

import collections
import types

import agent_core


def _public_names(module: types.ModuleType) -> set[str]:
    """The module's names without a leading underscore, less its own subpackages (the
    rooms: ``agent_core.runtime`` is an attribute of ``agent_core`` once imported)."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not (
            isinstance(value, types.ModuleType) and value.__name__.startswith(f"{module.__name__}.")
        )
    }


def test_all_exports_exactly_the_public_names() -> None:
    exported = set(agent_core.__all__)
    public = _public_names(agent_core)
    assert sorted(public - exported) == [], "public in agent_core but missing from __all__"
    assert sorted(exported - public) == [], "in __all__ but not defined in agent_core"


def test_each_name_is_exported_once() -> None:
    counts = collections.Counter(agent_core.__all__)
    assert [name for name, count in counts.items() if count > 1] == []


def test_the_door_lets_through_no_other_librarys_module() -> None:
    """A module imported into the package (``import os``) would be a public name of it."""
    modules = [
        name
        for name in agent_core.__all__
        if isinstance(getattr(agent_core, name), types.ModuleType)
    ]
    assert modules == []
