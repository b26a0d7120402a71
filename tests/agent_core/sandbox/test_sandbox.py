"""The sandbox with the real bubblewrap: what a command can do, and what it cannot.

Each escape test plants something on the host (in pytest's temporary directory) that stands
for what a command must never reach: another thread's workspace, the database, the signing
key. Limits are set low so every test stays fast.
"""

from __future__ import annotations

import asyncio
import os
import socket
from pathlib import Path

import pytest

import agent_core
from agent_core import Sandbox
from agent_core.sandbox import SandboxLimits

pytestmark = pytest.mark.usefixtures("sandboxed")

FAST = SandboxLimits(timeout=5, processes=64, output_bytes=64 * 1024)


@pytest.fixture
def host_secrets(tmp_path: Path) -> dict[str, Path]:
    other = tmp_path / "other-thread-workspace"
    other.mkdir()
    planted = {
        "other workspace": other / "secret.py",
        "database": tmp_path / "baton.db",
        "signing key": tmp_path / "secret_key",
    }
    for path in planted.values():
        path.write_text("TOP-SECRET-4711\n")
    return planted


def test_a_command_runs_and_its_output_status_and_changes_come_back() -> None:
    result = Sandbox(FAST).run(
        {"a.py": "print(6*7)", "old.txt": "x"},
        "python3 a.py && rm old.txt && echo hi > b/c.txt",
        timeout=10,
    )
    assert result.exit_status == 2  # b/ does not exist: the real shell's failure, not a script
    assert result.output.startswith("42\n") and "b/c.txt" in result.output
    assert result.changes.deleted == ("old.txt",)
    ok = Sandbox(FAST).run({"a.py": "print(6*7)"}, "mkdir b && python3 a.py > b/c.txt")
    assert ok.exit_status == 0 and ok.changes.written == {"b/c.txt": "42\n"}


def test_the_network_is_refused_even_to_the_hosts_loopback() -> None:
    # A connection that reached the listening socket waits in its backlog: accepted after
    # the command, without a thread blocked in accept() while the socket closes.
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        probe = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2)"
        result = Sandbox(FAST).run({}, f'python3 -c "{probe}"')
        server.setblocking(False)
        with pytest.raises(BlockingIOError):  # nothing ever connected
            server.accept()
    assert result.exit_status != 0 and "ConnectionRefusedError" in result.output


def test_an_assistant_that_allows_the_network_reaches_it() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        probe = (
            f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); "
            "print('in')"
        )
        result = Sandbox(FAST, network=True).run({}, f'python3 -c "{probe}"')
        server.setblocking(False)
        connection, _ = server.accept()  # the command's connection, waiting in the backlog
        connection.close()
    assert result.exit_status == 0 and result.output == "in\n"


def test_host_files_outside_the_system_are_not_there(host_secrets: dict[str, Path]) -> None:
    source = Path(agent_core.__file__)
    for name, path in [*host_secrets.items(), ("app source", source)]:
        for attempt in (f"cat {path}", f"cat /proc/1/root{path}", f"ls {path.parent}"):
            result = Sandbox(FAST).run({}, attempt)
            assert result.exit_status != 0, (name, attempt)
            assert "TOP-SECRET" not in result.output and "__all__" not in result.output


def test_the_apps_environment_is_not_readable_inside(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BATON_SECRET_KEY", "env-s3cret-5150")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-s3cret-5150")
    # Every process the command can see, bubblewrap's own pid 1 included.
    result = Sandbox(FAST).run(
        {}, "env; for p in /proc/[0-9]*; do cat $p/environ $p/task/*/environ; done; echo end"
    )
    assert result.output.rstrip().endswith("end")
    assert "s3cret-5150" not in result.output


def test_writes_outside_the_workspace_fail_or_stay_inside(tmp_path: Path) -> None:
    outside = tmp_path / "planted.txt"
    result = Sandbox(FAST).run(
        {},
        f"touch /usr/planted; echo x >> /etc/passwd; mkdir -p {tmp_path}; touch {outside};"
        " touch /tmp/private; ln /etc/passwd hard; echo done",
    )
    assert "cannot touch '/usr/planted': Read-only file system" in result.output
    assert "cannot create /etc/passwd: Permission denied" in result.output
    assert "Invalid cross-device link" in result.output
    # The host path did not exist inside: it was created in the sandbox's private root.
    assert not outside.exists() and not Path("/usr/planted").exists()
    assert result.changes.written == {}


def test_a_link_to_the_host_is_not_followed_when_files_are_written_back(
    host_secrets: dict[str, Path],
) -> None:
    secret = host_secrets["database"]
    result = Sandbox(FAST).run(
        {"notes.md": "mine"},
        f"ln -s {secret} leak.txt; ln -s {secret.parent} leakdir; ln -sf /etc/passwd notes.md",
    )
    assert result.exit_status == 0
    assert result.changes.written == {} and result.changes.deleted == ()
    assert set(result.changes.skipped) == {
        f"{name} is a symbolic link; links are not followed"
        for name in ("leak.txt", "leakdir", "notes.md")
    }


def test_nested_user_namespaces_are_refused() -> None:
    result = Sandbox(FAST).run({}, "unshare -r id")
    assert result.exit_status != 0 and "uid=0" not in result.output


def test_a_fork_bomb_is_stopped_and_the_next_run_works() -> None:
    limits = SandboxLimits(timeout=3, processes=32)
    result = Sandbox(limits).run({}, "bomb() { bomb | bomb & }; bomb; sleep 10")
    assert result.exit_status != 0
    assert Sandbox(FAST).run({}, "echo alive").output == "alive\n"


FORKS = """
import os, time
started = 0
try:
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        started += 1
except BlockingIOError:
    print("refused after", started)
"""


def test_the_process_limit_refuses_forks_past_it() -> None:
    result = Sandbox(SandboxLimits(timeout=5, processes=32)).run(
        {"forks.py": FORKS}, "python3 forks.py"
    )
    assert result.output.startswith("refused after ")
    assert 0 < int(result.output.split()[-1]) < 32
    assert not result.timed_out  # the sleepers died with the sandbox, not at the timeout


def test_an_endless_loop_is_stopped_by_the_time_limit() -> None:
    result = Sandbox(FAST).run({}, "while :; do :; done", timeout=1)
    assert result.timed_out and result.exit_status == 124
    assert Sandbox(FAST).run({}, "echo alive").output == "alive\n"


def test_a_hundred_megabytes_of_output_are_cut_at_the_limit() -> None:
    result = Sandbox(FAST).run({}, "head -c 100000000 /dev/zero | tr '\\0' a; echo never")
    assert result.output_truncated and not result.timed_out
    assert len(result.output) == FAST.output_bytes and "never" not in result.output
    assert result.exit_status != 0
    assert Sandbox(FAST).run({}, "echo alive").output == "alive\n"


def test_a_memory_hog_fails_at_the_memory_limit() -> None:
    limits = SandboxLimits(timeout=5, memory_bytes=512 * 1024**2)
    result = Sandbox(limits).run({}, "python3 -c 'bytearray(1024**3)'")
    assert result.exit_status != 0 and "MemoryError" in result.output


def _processes_with(marker: str) -> list[str]:
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if marker in Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                found.append(pid)
        except OSError:
            continue
    return found


async def test_cancelling_a_run_kills_its_whole_process_tree() -> None:
    marker = "987654.25"
    task = asyncio.create_task(
        Sandbox(FAST).arun({}, f"sleep {marker} & sh -c 'sleep {marker}' & sleep {marker}")
    )
    for _ in range(100):
        if len(_processes_with(marker)) >= 3:
            break
        await asyncio.sleep(0.05)
    assert len(_processes_with(marker)) >= 3
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    for _ in range(40):
        if not _processes_with(marker):
            break
        await asyncio.sleep(0.05)
    assert _processes_with(marker) == []


HOG = "python3 -c \"import time; x = b'a' * 200_000_000; time.sleep(30)\""


def test_processes_of_one_command_are_stopped_at_their_memory_limit_together() -> None:
    # Each process stays far below the per-process limit; the three together do not.
    limits = SandboxLimits(timeout=20, total_memory_bytes=400 * 1024**2)
    result = Sandbox(limits).run(
        {}, f"echo kept > before.txt; {HOG} & {HOG} & {HOG} & wait; echo never"
    )
    assert result.memory_limit == 400 * 1024**2 and not result.timed_out
    assert result.exit_status == 137 and "never" not in result.output
    assert (
        "[stopped: the command's processes together used more than 400 MB of memory, the limit]"
    ) in result.notes
    assert result.changes.written == {"before.txt": "kept\n"}  # what it did is kept
    assert Sandbox(FAST).run({}, "echo alive").output == "alive\n"


# Memory held in memfds, unmapped: no process's resident set shows it, and each file stays
# under the per-file size limit. Six of 60 MB, held for 15 s.
MEMFD_HOG = (
    'python3 -c "import os, time\n'
    "fds = []\n"
    "for n in range(6):\n"
    "    fd = os.memfd_create(f'hog{n}')\n"
    "    for _ in range(60):\n"
    "        os.write(fd, b'a' * 1024 * 1024)\n"
    "    fds.append(fd)\n"
    "print('held', flush=True)\n"
    'time.sleep(15)\n"'
)


def test_memory_held_in_memfds_counts_toward_the_memory_limit() -> None:
    """1,250 MB in memfds was once held for 12 s under a 1,024 MB limit."""
    limits = SandboxLimits(timeout=20, total_memory_bytes=200 * 1024**2)
    result = Sandbox(limits).run({}, f"{MEMFD_HOG}; echo never")
    assert result.memory_limit == 200 * 1024**2 and not result.timed_out
    assert "never" not in result.output
    assert (
        "[stopped: the command's processes together used more than 200 MB of memory, the limit]"
    ) in result.notes


def test_one_process_under_the_total_is_not_stopped() -> None:
    limits = SandboxLimits(timeout=20, total_memory_bytes=400 * 1024**2)
    result = Sandbox(limits).run({}, "python3 -c \"x = b'a' * 150_000_000; print(len(x))\"")
    assert result.exit_status == 0 and result.output == "150000000\n"
    assert result.memory_limit == 0


def test_the_workspace_fills_at_the_disk_limit_and_says_so() -> None:
    limits = SandboxLimits(timeout=20, disk_bytes=8 * 1024**2)
    result = Sandbox(limits).run(
        {"a.py": "x = 1\n"},
        "for i in 1 2 3 4 5 6; do head -c 3000000 /dev/zero | tr '\\0' a > f$i.txt || break;"
        " done; echo written > small.txt; ls",
    )
    assert "No space left on device" in result.output
    assert result.disk_limit == 8 * 1024**2
    assert (
        "[the workspace is full: a command may write at most 8 MB; writes past it failed "
        "with 'No space left on device']"
    ) in result.notes
    assert "f5.txt" not in result.changes.written  # nothing past the limit exists to keep


def test_no_place_inside_can_be_filled_past_its_limit() -> None:
    # The root and /dev are tmpfs too (memory, of no fixed size): they are read-only.
    limits = SandboxLimits(
        timeout=20, disk_bytes=4 * 1024**2, tmp_bytes=4 * 1024**2, shm_bytes=4 * 1024**2
    )
    result = Sandbox(limits).run(
        {},
        "for f in /tmp/big /dev/shm/big big; do head -c 20000000 /dev/zero > $f; done;"
        " echo x > /big; echo x > /dev/big; mkdir /x; echo end",
    )
    assert result.output.count("No space left on device") == 3
    for path in ("/big", "/dev/big"):
        assert f"cannot create {path}: Read-only file system" in result.output
    assert result.output.count("Read-only file system") == 3  # mkdir /x too


def test_more_files_than_the_write_back_limit_keep_none_and_delete_nothing() -> None:
    limits = SandboxLimits(timeout=20, writeback_files=1000)
    result = Sandbox(limits).run(
        {"keep.md": "mine"},
        "rm keep.md; mkdir gen; i=0; while [ $i -lt 3000 ]; do echo $i > gen/f$i.txt;"
        " i=$((i+1)); done; echo done",
    )
    assert result.exit_status == 0 and result.output == "done\n"
    assert not result.changes  # neither the 3,000 files nor the deletion of keep.md
    assert result.changes.skipped == (
        "the command created or changed 3,000 files; at most 1,000 are written back from one "
        "command, so none was (nor any deletion). Leave generated trees outside /workspace "
        "(in /tmp) or remove them before it ends",
    )


def test_a_name_with_backslashes_made_by_a_command_is_not_kept() -> None:
    result = Sandbox(FAST).run({}, "echo x > '..\\..\\evil.txt'; echo y > ok.txt")
    assert result.changes.written == {"ok.txt": "y\n"}
    assert result.notes == [
        "[not kept: ..\\..\\evil.txt: '..\\\\..\\\\evil.txt' contains a "
        "backslash; separate folders with '/', e.g. src/app.py]"
    ]


def test_files_are_written_back_after_the_time_limit_and_from_locked_folders() -> None:
    result = Sandbox(FAST).run(
        {}, "mkdir d; echo x > d/f.txt; chmod 000 d; echo y > late.txt; sleep 30", timeout=1
    )
    assert result.timed_out and result.exit_status == 124
    assert result.changes.written == {"d/f.txt": "x\n", "late.txt": "y\n"}


def test_a_command_cannot_stop_its_files_from_being_read_back() -> None:
    result = Sandbox(FAST).run({"a.txt": "1"}, "echo 2 > a.txt; kill -9 1; kill -9 -1; echo on")
    assert result.changes.written == {"a.txt": "2\n"}
