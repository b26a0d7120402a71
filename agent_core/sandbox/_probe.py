"""Whether commands can run in a sandbox on this host, asked once per process."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

from agent_core.errors import SandboxUnavailable
from agent_core.sandbox._result import SandboxLimits
from agent_core.sandbox._sandbox import Sandbox

__all__ = ["sandbox_unavailable_reason"]


@lru_cache(maxsize=2)
def sandbox_unavailable_reason(enabled: bool = True) -> str | None:
    """None when a sandboxed ``true`` runs; else why commands cannot run on this host, in
    words an administrator can act on. ``enabled`` is the host's switch (the app's
    ``BATON_SANDBOX`` setting): when off, real commands are turned off whatever the host
    could do. Cached: the host does not change under a process."""
    if not enabled:
        return "commands are turned off (BATON_SANDBOX=off)"
    try:
        # In a thread of its own: the first caller may be a handler on a running event loop
        # (the admin page), where the synchronous run cannot start its own loop.
        sandbox = Sandbox(SandboxLimits(timeout=20), python_env=False)
        with ThreadPoolExecutor(max_workers=1) as pool:
            result = pool.submit(sandbox.run, {}, "true").result()
    except SandboxUnavailable as exc:
        return str(exc)
    except OSError as exc:
        return f"the sandbox could not start: {exc}"
    if result.exit_status != 0:
        detail = result.output.strip().splitlines()[:1] or [f"exit status {result.exit_status}"]
        return f"the sandbox could not start on this host: {detail[0][:300]}"
    return None
