"""The sandbox's limits as an administrator sets them in the environment."""

from agent_core.sandbox._result import SandboxLimits, limits_from_settings


def test_settings_change_their_limits_in_their_units() -> None:
    limits, problems = limits_from_settings(
        {
            "BATON_SANDBOX_MEMORY_MB": "512",
            "BATON_SANDBOX_DISK_MB": "64",
            "BATON_SANDBOX_FILES": "200",
        }
    )
    assert problems == []
    assert (limits.total_memory_bytes, limits.disk_bytes, limits.writeback_files) == (
        512 * 1024**2,
        64 * 1024**2,
        200,
    )


def test_a_setting_that_is_no_positive_number_leaves_the_default_and_says_so() -> None:
    limits, problems = limits_from_settings(
        {"BATON_SANDBOX_MEMORY_MB": "1.5G", "BATON_SANDBOX_FILES": "0"}
    )
    assert limits == SandboxLimits()
    assert problems == [
        "BATON_SANDBOX_MEMORY_MB='1.5G' is not a positive whole number; the default applies",
        "BATON_SANDBOX_FILES='0' is not a positive whole number; the default applies",
    ]
