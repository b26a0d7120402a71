"""The bubblewrap command line, checked as data."""

from agent_core.sandbox._argv import HOLDER, HostPath, bwrap_argv, sandbox_env


def _argv(**overrides):
    options = {
        "command": "true",
        "env": sandbox_env(),
        "workspace_bytes": 1_000_000,
        "system": [HostPath("/usr"), HostPath("/bin", link_target="usr/bin")],
    }
    return bwrap_argv(
        "bwrap",
        prlimit="/usr/bin/prlimit",
        tar="/usr/bin/tar",
        processes=64,
        **{**options, **overrides},
    )


def test_the_network_is_unshared_unless_allowed() -> None:
    assert "--unshare-all" in _argv() and "--share-net" not in _argv()
    assert "--share-net" in _argv(network=True)


def test_the_system_is_read_only_and_links_stay_links() -> None:
    argv = " ".join(_argv())
    assert "--ro-bind-try /usr /usr" in argv and "--symlink usr/bin /bin" in argv


def test_the_workspace_is_a_tmpfs_of_the_given_size_nothing_of_the_hosts_disk() -> None:
    argv = " ".join(_argv(workspace_bytes=123_456))
    assert "--size 123456 --tmpfs /workspace --chdir /workspace" in argv
    assert "--bind " not in argv  # no host directory is writable inside


def test_the_app_environment_does_not_leak_in() -> None:
    argv = _argv()
    assert "--clearenv" in argv
    names = {argv[i + 1] for i, word in enumerate(argv) if word == "--setenv"}
    assert names == set(sandbox_env()) and not any("KEY" in name for name in names)


def test_the_command_runs_under_the_holder_as_pid_one_with_the_process_limit() -> None:
    argv = _argv(command="make test")
    assert "--as-pid-1" in argv
    assert argv[-10:] == [
        "--",
        "/usr/bin/prlimit",
        "--nproc=64:64",
        "--",
        "/bin/sh",
        "-c",
        HOLDER,
        "baton-sandbox",
        "make test",
        "/usr/bin/tar",
    ]
