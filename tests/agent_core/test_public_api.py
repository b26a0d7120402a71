"""The engine's door is ``agent_core.__all__`` and each room's face (``agent_core.<room>``), and
each says exactly what it exports (httpx's ``test_exported_members`` form): every public name
a face defines or imports is in its ``__all__``, and every name in ``__all__`` is defined, once.
There is no second copy of the lists: adding a name to a door is one line in its
``__init__.py``, and a name imported there without being exported (or exported without being
imported) fails here. The rooms' modules are private (``_name.py``)."""

from __future__ import annotations

import collections
import importlib
import pkgutil
import types

import pytest

import agent_core

PACKAGES = ["agent_core"] + [
    f"agent_core.{info.name}"
    for info in pkgutil.iter_modules(agent_core.__path__)
    if info.ispkg and not info.name.startswith("_")
]
MODULES = [
    f"agent_core.{info.name}"
    for info in pkgutil.iter_modules(agent_core.__path__)
    if not info.ispkg and not info.name.startswith("_")
]


def _public_names(module: types.ModuleType) -> set[str]:
    """The module's names without a leading underscore, less its own submodules (the rooms:
    ``agent_core.runtime`` is an attribute of ``agent_core`` once imported)."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not (
            isinstance(value, types.ModuleType) and value.__name__.startswith(f"{module.__name__}.")
        )
    }


@pytest.mark.parametrize("name", PACKAGES)
def test_all_exports_exactly_the_public_names(name: str) -> None:
    module = importlib.import_module(name)
    exported = set(module.__all__)
    public = _public_names(module)
    assert sorted(public - exported) == [], f"public in {name} but missing from __all__"
    assert sorted(exported - public) == [], f"in {name}.__all__ but not defined there"


@pytest.mark.parametrize("name", PACKAGES + MODULES)
def test_each_name_is_exported_once_and_exists(name: str) -> None:
    module = importlib.import_module(name)
    counts = collections.Counter(module.__all__)
    assert [n for n, count in counts.items() if count > 1] == []
    assert [n for n in module.__all__ if not hasattr(module, n)] == []


@pytest.mark.parametrize("name", PACKAGES + MODULES)
def test_the_door_lets_through_no_module(name: str) -> None:
    """A module imported into a face (``import os``) would be a public name of it."""
    module = importlib.import_module(name)
    assert [n for n in module.__all__ if isinstance(getattr(module, n), types.ModuleType)] == []


def test_every_room_has_a_face_and_private_modules() -> None:
    """Each room exports something, and no module inside a room is public."""
    empty = [name for name in PACKAGES if not importlib.import_module(name).__all__]
    public_inside = [
        f"{name}.{info.name}"
        for name in PACKAGES[1:]
        for info in pkgutil.iter_modules(importlib.import_module(name).__path__)
        if not info.name.startswith("_")
    ]
    assert (empty, public_inside) == ([], [])


def test_the_top_door_keeps_to_the_concepts() -> None:
    """The top ``__all__`` names the concepts; the rest is on the rooms' faces."""
    assert len(agent_core.__all__) <= 60
