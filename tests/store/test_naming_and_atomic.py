"""Safe slugs for untrusted names, and atomic writes."""

from __future__ import annotations

import os

import pytest

from bot.store import atomic_write_text, safe_slug


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
