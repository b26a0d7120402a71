"""The bubblewrap command line, checked as data."""

from agent_core.sandbox.argv import HostPath, bwrap_argv, sandbox_env


def _argv(**overrides):
    options = {"workspace": "/tmp/ws", "command": "true", "env": sandbox_env(),
               "system": [HostPath("/usr"), HostPath("/bin", link_target="usr/bin")]}
    return bwrap_argv("bwrap", prlimit="/usr/bin/prlimit", processes=64,
                      **{**options, **overrides})


def test_the_network_is_unshared_unless_allowed() -> None:
    assert "--unshare-all" in _argv() and "--share-net" not in _argv()
    assert "--share-net" in _argv(network=True)


def test_the_system_is_read_only_and_links_stay_links() -> None:
    argv = " ".join(_argv())
    assert "--ro-bind-try /usr /usr" in argv and "--symlink usr/bin /bin" in argv
    assert "--bind /tmp/ws /workspace --chdir /workspace" in argv


def test_the_app_environment_does_not_leak_in() -> None:
    argv = _argv()
    assert "--clearenv" in argv
    names = {argv[i + 1] for i, word in enumerate(argv) if word == "--setenv"}
    assert names == set(sandbox_env()) and not any("KEY" in name for name in names)
    assert argv[-7:] == ["--", "/usr/bin/prlimit", "--nproc=64:64", "--", "/bin/sh", "-c", "true"]
