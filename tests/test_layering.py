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


# --- Import cycles (STYLE.md 13): every import counts, including those inside functions,
# because a deferred import is how a cycle hides. A package's __init__ re-exporting its
# modules is not an edge back from them.
PACKAGES = ("agent_core", "chat_app", "bench")


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _internal_edges(path: Path, modules: set[str], root: Path = ROOT) -> set[str]:
    """The project modules ``path`` imports, resolving relative and ``from pkg import mod``."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            bases = [alias.name for alias in node.names]
            names: list[str] = []
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            bases, names = [base], [alias.name for alias in node.names]
        else:
            continue
        for base in bases:
            submodules = {f"{base}.{n}" for n in names} & modules
            targets |= submodules or ({base} & modules)
    return targets - {name}


def _graph(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, set[str]]:
    paths = [p for package in packages for p in (root / package).rglob("*.py")]
    modules = {_module_name(p, root) for p in paths}
    graph = {}
    for path in paths:
        name = _module_name(path, root)
        edges = _internal_edges(path, modules, root)
        # An __init__ reaching into its own package is a re-export, not a dependency.
        if path.name == "__init__.py":
            edges = {e for e in edges if not e.startswith(name + ".")}
        graph[name] = edges
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles_between_project_modules() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_check_sees_a_deferred_import(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("from pkg.a import x\n", encoding="utf-8")
    (package / "a.py").write_text("from pkg.b import y\nx = 1\n", encoding="utf-8")
    (package / "b.py").write_text("def y():\n    from pkg import a\n", encoding="utf-8")
    assert _cycles(_graph(tmp_path, ("pkg",))) == [["pkg.a", "pkg.b"]]


# --- One door into the engine: chat_app and bench import ``agent_core`` and its rooms' faces
# (``agent_core.<room>``, a package's ``__init__`` or a public top-level module), never a
# module inside a room nor a private one. import-linter checks the same rule; this test names
# each offending import by file and line.
def _deep_engine_imports(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            # ``from agent_core.runtime import _lanes`` reaches a module as well.
            names = [node.module] + [
                f"{node.module}.{alias.name}" for alias in node.names if alias.name.startswith("_")
            ]
        else:
            continue
        found += [
            f"{path.relative_to(root)}:{node.lineno} {name}"
            for name in names
            if name.startswith("agent_core.")
            and (name.count(".") > 1 or name.split(".")[1].startswith("_"))
        ]
    return found


def test_chat_app_and_bench_import_only_the_engines_faces() -> None:
    deep = [
        hit
        for package in ("chat_app", "bench")
        for path in (ROOT / package).rglob("*.py")
        if ".web" not in path.parts
        for hit in _deep_engine_imports(path)
    ]
    assert deep == []


def test_the_door_check_catches_a_deep_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from agent_core import plan\nfrom agent_core.runtime import ThreadRunner\n"
        "import agent_core.events\n\ndef f():\n    "
        "from agent_core.accounting._tokens import get_encoding\n"
        "    from agent_core.runtime import _lanes\n    import agent_core._cli\n",
        encoding="utf-8",
    )
    assert _deep_engine_imports(sample, tmp_path) == [
        "sample.py:6 agent_core.accounting._tokens",
        "sample.py:7 agent_core.runtime._lanes",
        "sample.py:8 agent_core._cli",
    ]


# --- Services are handed their backend (chat_app.services.runtime.backend): no module in these
# rooms looks the database, store or runner up itself, nor opens a session of its own.
HANDED_IN = (
    "chat_app/services/conversation",
    "chat_app/services/admin",
    "chat_app/services/presentation",
    "chat_app/services/turn_worker.py",
)
LOOKED_UP = {"runtime.store", "runtime.engine", "runtime.runner", "get_engine", "Session"}


def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        owner = func.value
        return f"{owner.id}.{func.attr}" if isinstance(owner, ast.Name) else func.attr
    return ""


def _lookups(path: Path, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return sorted(
        f"{path.relative_to(root)}:{node.lineno} {name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and ((name := _called_name(node)) in LOOKED_UP or name.endswith(".Session"))
    )


def test_services_are_handed_their_store_and_sessions() -> None:
    paths = [
        path
        for place in HANDED_IN
        for path in ((ROOT / place).rglob("*.py") if (ROOT / place).is_dir() else [ROOT / place])
    ]
    assert [hit for path in paths for hit in _lookups(path)] == []


def test_the_backend_check_catches_a_lookup(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "def f(app):\n    with app.read() as db:\n        pass\n"
        "def g():\n    with Session(runtime.engine()) as db:\n        runtime.runner().go()\n"
        "    sqlmodel.Session(get_engine())\n",
        encoding="utf-8",
    )
    assert _lookups(sample, tmp_path) == [
        "sample.py:5 Session",
        "sample.py:5 runtime.engine",
        "sample.py:6 runtime.runner",
        "sample.py:7 get_engine",
        "sample.py:7 sqlmodel.Session",
    ]
