"""Every ``module.name`` that the tests and benches read off one of the project's own modules
names something that module has.

basedpyright checks ``agent_core`` and ``chat_app`` only, so a name renamed there (a face's
function, say) could live on in a test or a bench until that test ran in the browser suite
or the bench was next run: it did once (``run_service.status`` after its rename to
``reset_status``). This reads the two trees' imports of project modules and each attribute
read off the names they bind, and checks it against the imported module.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("agent_core", "chat_app", "bench", "tests")
TREES = ("tests", "bench")


def _module_names(tree: ast.Module) -> dict[str, str]:
    """The names a file binds to a project module: ``import a.b as x`` and
    ``from a import b`` (where ``a.b`` is a module)."""
    bound: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name.split(".")[0] in OURS:
                    bound[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] not in OURS:
                continue
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                if (ROOT / full.replace(".", "/")).with_suffix(".py").exists() or (
                    ROOT / full.replace(".", "/") / "__init__.py"
                ).exists():
                    bound[alias.asname or alias.name] = full
    return bound


def _reads(path: Path) -> list[tuple[int, str, str]]:
    """(line, module, attribute) for each ``name.attribute`` read where ``name`` is bound to
    a project module in ``path`` and never assigned anything else there."""
    tree = ast.parse(path.read_text(), filename=str(path))
    bound = _module_names(tree)
    rebound = {
        target.id
        for node in ast.walk(tree)
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.For, ast.With, ast.arg))
        for target in ast.walk(node)
        if isinstance(target, ast.Name) and isinstance(target.ctx, ast.Store)
    }
    return [
        (node.lineno, bound[node.value.id], node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in bound
        and node.value.id not in rebound
        and isinstance(node.ctx, ast.Load)
    ]


def _files() -> list[Path]:
    return sorted(p for tree in TREES for p in (ROOT / tree).rglob("*.py"))


def test_the_scan_finds_reads_to_check() -> None:
    """The scan is not empty: the tests read many names off the app's faces."""
    reads = [read for path in _files() for read in _reads(path)]
    assert len(reads) > 200
    assert any(module.endswith("conversation.runs") for _, module, _ in reads)


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_name_read_off_a_project_module_exists(path: Path) -> None:
    missing = []
    for line, module_name, attribute in _reads(path):
        module = importlib.import_module(module_name)
        if not hasattr(module, attribute):
            missing.append(f"{path.relative_to(ROOT)}:{line}: {module_name} has no {attribute!r}")
    assert not missing, "\n".join(missing)
