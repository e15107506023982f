"""Safe slugs for untrusted names, and atomic writes."""

from __future__ import annotations

import os

import pytest

from benchwatch.store import atomic_write_text, safe_slug


@pytest.mark.parametrize("name", ["../../etc/passwd", "<script>alert(1)</script>", "a/b\\c", "..", "", "Ünïcode name"])
def test_slugs_are_path_safe_and_distinct(name):
    slug = safe_slug(name)
    assert slug and set(slug) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert slug not in {".", ".."}
    assert os.path.basename(slug) == slug


def test_clean_names_keep_their_slug_and_different_names_differ():
    assert safe_slug("swe-bench-verified") == "swe-bench-verified"
    assert safe_slug("SWE bench") != safe_slug("swe-bench")


def test_atomic_write_replaces_and_leaves_no_temp_files(tmp_path):
    target = tmp_path / "sub" / "f.txt"
    atomic_write_text(target, "one")
    atomic_write_text(target, "two")
    assert target.read_text() == "two"
    assert [p.name for p in target.parent.iterdir()] == ["f.txt"]


def test_atomic_write_keeps_the_old_file_when_the_write_fails(tmp_path, monkeypatch):
    target = tmp_path / "f.txt"
    atomic_write_text(target, "old")

    def boom(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        atomic_write_text(target, "new")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_a_full_disk_names_the_file_being_written(tmp_path, monkeypatch, capsys):
    """Issue 27: "No space left on device" alone; now the path, through the command line's one line."""
    import errno

    from benchwatch.cli import describe_os_error

    target = tmp_path / "reports" / "latest.json"
    target.parent.mkdir()
    target.write_text("old")

    def full(fd):  # a full disk shows at the flush to it, and names no file
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as info:
        atomic_write_text(target, "new" * 100_000)
    monkeypatch.undo()
    line = describe_os_error(info.value)
    assert str(target) in line and "No space left on device" in line, line
    assert target.read_text() == "old" and [p.name for p in target.parent.iterdir()] == ["latest.json"]
