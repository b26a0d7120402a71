"""The write-back decision, without a sandbox."""

from agent_core.sandbox._changes import MAX_NOTES, Entry, workspace_changes


def test_new_changed_and_deleted_files_are_found_and_unchanged_ones_left_alone() -> None:
    before = {"same.py": "x", "changed.py": "v1", "gone.py": "bye"}
    after = {
        "same.py": Entry("text", "x"),
        "changed.py": Entry("text", "v2"),
        "new/file.txt": Entry("text", "hi"),
    }
    changes = workspace_changes(before, after)
    assert changes.written == {"changed.py": "v2", "new/file.txt": "hi"}
    assert changes.deleted == ("gone.py",)
    assert changes.skipped == ()


def test_a_stored_file_replaced_by_a_link_is_neither_followed_nor_deleted() -> None:
    changes = workspace_changes({"notes.md": "mine"}, {"notes.md": Entry("symlink")})
    assert not changes
    assert changes.skipped == ("notes.md is a symbolic link; links are not followed",)


def test_binary_and_oversized_files_are_skipped_with_a_note() -> None:
    after = {"img.png": Entry("binary", size=10), "big.log": Entry("too_large", size=9)}
    changes = workspace_changes({}, after, limit=8)
    assert not changes
    assert changes.skipped == (
        "big.log is larger than the 8 bytes the workspace keeps",
        "img.png is not UTF-8 text",
    )


def test_a_path_the_store_cannot_hold_is_skipped() -> None:
    changes = workspace_changes({}, {"a" * 600: Entry("text", "x")})
    assert not changes and "at most 500" in changes.skipped[0]


def test_a_name_that_would_leave_a_windows_folder_is_not_written_back() -> None:
    changes = workspace_changes(
        {}, {"..\\..\\evil.txt": Entry("text", "x"), "ok.txt": Entry("text", "y")}
    )
    assert changes.written == {"ok.txt": "y"}
    assert changes.skipped == (
        "..\\..\\evil.txt: '..\\\\..\\\\evil.txt' contains a backslash; "
        "separate folders with '/', e.g. src/app.py",
    )


def test_an_unchanged_file_is_left_alone_whatever_its_name() -> None:
    # A name stored before the path rule comes back from every run unchanged: no note.
    changes = workspace_changes({"old\\name.txt": "x"}, {"old\\name.txt": Entry("text", "x")})
    assert not changes and changes.skipped == ()


def test_the_write_back_limit_on_bytes_keeps_nothing() -> None:
    after = {"a.txt": Entry("text", "x" * 600), "b.txt": Entry("text", "y" * 600)}
    changes = workspace_changes({"c.txt": "gone"}, after, max_files=10, max_bytes=1000)
    assert not changes
    assert "at most 0 MB are written back from one command, so nothing was" in changes.skipped[0]


def test_notes_past_twenty_are_summed_up_in_one_line() -> None:
    after = {f"img{i:03}.png": Entry("binary", size=1) for i in range(500)}
    changes = workspace_changes({}, after)
    assert len(changes.skipped) == MAX_NOTES + 1
    assert changes.skipped[-1].startswith("480 more files that cannot be kept")
