"""Commands that fail fast and say why (issue 60): a bad option refused before any work, a run without network
ended in seconds, a reader that stops reading ending the command quietly."""

from __future__ import annotations

import socket
import subprocess
import sys
import time

import pytest

from benchwatch.cli import main


def _closed_port() -> int:
    """A port on 127.0.0.1 that refuses connections (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("url", ["example.org/benchwatch", "http:///no-host", "ftp://example.org/"])
def test_a_bad_site_url_is_refused_before_any_work(tmp_path, capsys, url):
    reports = tmp_path / "r"
    argv = ["run", "--sample", "--reports", str(reports), "--cache", str(tmp_path / "c")]
    start = time.perf_counter()
    assert main([*argv, "--site-out", str(tmp_path / "s"), "--site-url", url]) == 2
    assert time.perf_counter() - start < 10
    err = capsys.readouterr().err
    assert "--site-url" in err and repr(url) in err and "http(s)" in err
    assert list(tmp_path.iterdir()) == []  # no reports, no cache, no site


def test_a_bad_site_url_in_the_configuration_is_refused_before_any_fetch(tmp_path, capsys):
    config = tmp_path / "bw.toml"
    config.write_text('[site]\nurl = "example.org"\n[sources.a]\nadapter = "evalplus"\nurl = "http://127.0.0.1:9/a"\n')
    assert main(["run", "--config", str(config), "--reports", str(tmp_path / "r"), "--no-site"]) == 2
    err = capsys.readouterr().err
    assert str(config) in err and "site.url" in err and "'example.org'" in err
    assert not (tmp_path / "r").exists()


def test_a_file_where_a_folder_goes_is_refused_before_any_work(tmp_path, capsys):
    (tmp_path / "taken").write_text("")
    argv = ["run", "--sample", "--reports", str(tmp_path / "taken" / "r"), "--cache", str(tmp_path / "c")]
    assert main([*argv, "--no-site"]) == 2
    err = capsys.readouterr().err
    assert "--reports" in err and "is a file, not a folder" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_a_run_that_reaches_no_source_ends_in_seconds_and_says_so(tmp_path):
    port = _closed_port()
    config = tmp_path / "bw.toml"
    lines = ["[http]", "retries = 3", "backoff = 3.0"]  # retried in turn with these, three sources took over 60 s
    for name in ("first", "second", "third"):
        lines += [f"[sources.{name}]", 'adapter = "evalplus"', f'url = "http://127.0.0.1:{port}/{name}.json"']
    config.write_text("\n".join(lines) + "\n")
    argv = ["run", "--config", str(config), "--reports", str(tmp_path / "r"), "--cache", str(tmp_path / "c")]
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "benchwatch.cli", *argv, "--no-site"], capture_output=True, text=True, timeout=120
    )
    assert time.perf_counter() - start < 60
    assert done.returncode == 1, done.stderr
    assert "no source could be reached: check the network" in done.stderr
    for name in ("first", "second", "third"):  # each source's failure, with its cause, as before
        line = next(x for x in done.stdout.splitlines() if f" {name}: FAILED" in x)
        assert f"127.0.0.1:{port}/{name}.json" in line and "refused" in line
    assert "Traceback" not in done.stderr


def test_a_reader_that_stops_reading_ends_the_command_quietly(tmp_path):
    board = tmp_path / "board.csv"
    rows = "".join(f"b,m{i},{0.9 - i / 1000:.3f},500\n" for i in range(300))
    board.write_text("benchmark,model,score,n_items\n" + rows)
    command = [sys.executable, "-m", "benchwatch.cli", "tiers", str(board)]
    reader = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.close()  # the reader is gone before the command writes a line
    err = reader.stderr.read().decode()
    assert reader.wait(timeout=120) == 0, err
    assert err == ""
    shell = subprocess.run(  # as a person types it
        f"{subprocess.list2cmdline(command)} | head -1", shell=True, capture_output=True, text=True, timeout=120
    )
    assert shell.stdout.startswith("b: ") and len(shell.stdout.splitlines()) == 1
    assert shell.stderr == ""


def test_merge_refuses_a_bad_site_url_before_reading_any_part(tmp_path, capsys):
    argv = ["merge", str(tmp_path / "part"), "--reports", str(tmp_path / "r"), "--site-url", "example.org"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "--site-url" in err and "'example.org'" in err and "part" not in err
    assert list(tmp_path.iterdir()) == []
