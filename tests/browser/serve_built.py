"""``reflex run --backend-only`` that also serves the frontend another server built into
``REFLEX_WEB_WORKDIR``, as ``--single-port`` serves its own build (``app_server._Build``).

Reflex mounts a built frontend on the backend only in the run that built it, and refuses a
port some process listens on at any address; this server listens on the builder's port at
another loopback address (``--backend-host``), which the caller found free.

    python -m tests.browser.serve_built run --env prod --backend-only \\
        --backend-host 127.0.0.2 --backend-port PORT
"""

from __future__ import annotations

from reflex.reflex import cli
from reflex.utils import exec as reflex_exec
from reflex.utils import processes

_run_backend_prod = reflex_exec.run_backend_prod


def _run_backend_with_frontend(host: str, port: int, loglevel, mount_frontend_compiled_app=False):
    _run_backend_prod(host, port, loglevel, mount_frontend_compiled_app=True)


def _port_as_given(service_name: str, port: int, auto_increment: bool) -> int:
    return port


if __name__ == "__main__":
    reflex_exec.run_backend_prod = _run_backend_with_frontend
    processes.handle_port = _port_as_given
    cli()
