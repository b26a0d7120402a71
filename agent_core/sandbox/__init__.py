"""Commands run for real, isolated: bubblewrap over a private copy of a thread's workspace.

``Sandbox().run({"a.py": "print(6*7)"}, "python3 a.py", timeout=10)`` returns a
:class:`SandboxResult` with the exit status, the output and the files the command created,
changed or deleted. :func:`sandbox_unavailable_reason` says whether this host can do it.
"""

from agent_core.sandbox._probe import sandbox_unavailable_reason
from agent_core.sandbox._result import (
    SandboxLimits,
    SandboxResult,
    WorkspaceChanges,
    limits_from_settings,
)
from agent_core.sandbox._sandbox import Sandbox

__all__ = [
    "Sandbox",
    "SandboxLimits",
    "SandboxResult",
    "WorkspaceChanges",
    "limits_from_settings",
    "sandbox_unavailable_reason",
]
