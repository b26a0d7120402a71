"""What the app touches inside other libraries is still there in the installed versions.

An upgrade of Reflex, granian or Python that moves one of these fails here, naming the
package, its version and the attribute (chat_app/upstream/ says what each shim does).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from chat_app import upstream
from chat_app.upstream import REACHES, Reach, UpstreamMoved, confirm

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("reach", REACHES, ids=lambda reach: f"{reach.package}:{reach.attribute}")
def test_each_reach_into_a_library_holds_in_the_installed_version(reach: Reach) -> None:
    confirm(reach)


def test_a_moved_attribute_fails_naming_the_package_its_version_and_the_attribute() -> None:
    def gone() -> bool:
        raise AttributeError("type object 'StateManagerDisk' has no attribute '_write_queue'")

    moved = Reach("reflex", "0.10.1", "StateManagerDisk._write_queue", gone)
    with pytest.raises(UpstreamMoved) as failure:
        confirm(moved)
    message = str(failure.value)
    assert message.startswith(f"reflex {moved.installed()} moved StateManagerDisk._write_queue")
    assert "written against reflex 0.10.1" in message
    with pytest.raises(UpstreamMoved, match="not where or what the shim expects"):
        confirm(Reach("granian", "2.8.9", "AbstractServer._respawn_workers", lambda: False))


_LIBRARIES = ("reflex", "granian", "asyncio", "sqlalchemy", "sqlmodel", "socketio", "starlette")


def _private_reaches(path: Path) -> list[str]:
    """``x._name`` where ``x`` is not ``self``/``cls``/``super()``: candidates for a reach
    into someone else's object (our own private helpers are excluded by name below)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if not isinstance(node, ast.Attribute) or not re.fullmatch(r"_[a-z]\w*", node.attr):
            continue
        owner = node.value
        if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
            continue
        if isinstance(owner, ast.Call) and getattr(owner.func, "id", "") == "super":
            continue
        found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
    return found


def test_the_app_reaches_into_reflex_and_granian_only_through_the_shims() -> None:
    """The private names the shims touch appear nowhere else in chat_app or rxconfig.py."""
    touched = {
        "_token_manager",
        "_write_queue",
        "_token_last_touched",
        "_is_locked",
        "_states_locks",
        "_ready",
        "_context",
        "_respawn_workers",
    }
    sources = [*sorted((ROOT / "chat_app").rglob("*.py")), ROOT / "rxconfig.py"]
    outside = [
        reach
        for path in sources
        if Path(upstream.__file__).parent not in path.parents
        for reach in _private_reaches(path)
        if reach.rsplit(".", 1)[1] in touched
    ]
    assert outside == [], f"reaches into {_LIBRARIES} outside chat_app/upstream/: {outside}"
