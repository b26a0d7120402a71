"""The memory watchdog's view of a process tree, on real processes."""

from __future__ import annotations

import subprocess
import sys
import time

from agent_core.sandbox import _watchdog as watchdog

# A parent that starts a child holding 50 MB, then both sleep.
_PARENT = (
    "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', "
    "'import time; x = bytearray(50_000_000); x[::4096] = bytes(len(x[::4096])); "
    "time.sleep(30)']); time.sleep(30)"
)


def test_the_tree_and_its_memory_are_found_with_or_without_the_children_files() -> None:
    parent = subprocess.Popen([sys.executable, "-c", _PARENT])
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            tree = watchdog.process_tree(parent.pid)
            if len(tree) == 2 and watchdog.total_resident(tree) > 50_000_000:
                break
            time.sleep(0.05)
        assert watchdog.children(parent.pid) == watchdog._children_by_parent(parent.pid)
        assert len(tree) == 2
        assert 50_000_000 < watchdog.total_resident(tree) < 200_000_000
    finally:
        for pid in watchdog.process_tree(parent.pid)[1:]:
            subprocess.run(["kill", "-9", str(pid)], check=False)
        parent.kill()
        parent.wait()
