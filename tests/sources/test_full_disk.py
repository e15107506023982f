"""Issue 41: a full disk while a download is kept in the cache names the file being written, not just "No space
left on device" (Linux's /dev/full answers every write with ENOSPC)."""

from __future__ import annotations

import os
import sys
import tempfile

import pytest

from benchwatch.sources import Fetcher

pytestmark = pytest.mark.skipif(not os.path.exists("/dev/full") or sys.platform != "linux", reason="needs /dev/full")


def test_a_full_disk_while_caching_a_download_names_the_file(fixture_server, tmp_path, monkeypatch):
    (fixture_server.root / "board.json").write_text('{"a": 1}\n')
    real = tempfile.mkstemp

    def full(*args, **kwargs):  # the cache's temporary file, on a disk with no space left
        fd, path = real(*args, **kwargs)
        os.close(fd)
        return os.open("/dev/full", os.O_WRONLY), path

    monkeypatch.setattr(tempfile, "mkstemp", full)
    with Fetcher(tmp_path / "cache", retries=0) as fetcher, pytest.raises(OSError) as caught:
        fetcher.get(fixture_server.url + "board.json", source="board")
    assert caught.value.filename is not None and str(tmp_path / "cache") in caught.value.filename
    assert "No space left on device" in str(caught.value)
