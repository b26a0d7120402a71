"""The engine stays pure: agent_core imports no web, database or app code (DESIGN.md §1)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FORBIDDEN_IN_CORE = {"reflex", "sqlmodel", "sqlalchemy", "chat_app"}
FORBIDDEN_IN_SERVICES = {"reflex"}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found


def _violations(package: str, forbidden: set[str]) -> dict[str, set[str]]:
    bad = {}
    for path in (ROOT / package).rglob("*.py"):
        hits = _imports(path) & forbidden
        if hits:
            bad[str(path.relative_to(ROOT))] = hits
    return bad


def test_agent_core_imports_no_web_or_db_code() -> None:
    assert _violations("agent_core", FORBIDDEN_IN_CORE) == {}


def test_services_and_db_import_no_reflex() -> None:
    assert _violations("chat_app/services", FORBIDDEN_IN_SERVICES) == {}
    assert _violations("chat_app/db", FORBIDDEN_IN_SERVICES) == {}


def test_the_check_catches_a_forbidden_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom sqlmodel import Session\n", encoding="utf-8")
    assert _imports(sample) & FORBIDDEN_IN_CORE == {"sqlmodel"}
