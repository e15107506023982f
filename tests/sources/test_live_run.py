"""A live run of the shipped benchwatch.toml, its URLs pointed at the real upstream files on 127.0.0.1."""

from __future__ import annotations

import pytest

from tests.sources.shipped import shipped_config_on

pytestmark = pytest.mark.slow


def test_the_shipped_configuration_reaches_80_benchmarks_30_of_them_per_item(shared_upstream, tmp_path):
    """Every source of benchwatch.toml that has a real copy here, read by its adapter over loopback (no audit):
    the benchmarks they publish (issue 25: at least 80, 30 of them per item), without HELM, the Hub's LiveBench
    export and Epoch's logs, which have no copy here."""
    from benchwatch.sources import Fetcher, load_config, load_source
    from benchwatch.store import validate_aggregates, validate_responses
    from tests.sources.shipped import served_root
    from tests.sources.upstream_server import Upstream

    per_item, boards = set(), set()
    # the zips of many files served extracted, as their repositories serve them
    with Upstream(served_root(shared_upstream.root, tmp_path / "served")) as server:
        config = load_config(shipped_config_on(server, tmp_path, leave_out=()))
        with Fetcher(tmp_path / "cache", retries=0) as fetcher:
            for cfg in config.sources.values():
                table = load_source(fetcher, cfg)
                if len(table.frame):
                    per_item |= set(validate_responses(table.frame, cfg.name)["benchmark"])
                if table.aggregates is not None and len(table.aggregates):
                    boards |= set(validate_aggregates(table.aggregates.astype(str), cfg.name)["benchmark"])
    print(f"{len(per_item | boards)} benchmarks, {len(per_item)} of them per item")
    assert len(per_item | boards) >= 80 and len(per_item) >= 30, (sorted(per_item), sorted(boards))
    assert {"MMLU-Pro", "MMLU-Pro law", "SWE-bench Verified", "humaneval+"} <= per_item


def test_a_zip_of_many_files_is_served_extracted_under_its_repository_paths(tmp_path):
    """``served_root``: a zipped copy is served as its repository serves its files (the zip's member paths), its
    other files as they are, and a zip that is an upstream file in its own right as it is."""
    import io
    import urllib.request
    import zipfile

    from tests.sources.shipped import served_root
    from tests.sources.upstream_server import Upstream

    copy = tmp_path / "upstream" / "bench"
    copy.mkdir(parents=True)
    (copy / "SOURCE.md").write_text("where it came from")
    members = {"results/a/run.json": b'{"ok": 1}', "results/b/run.json": b'{"ok": 0}'}
    body = io.BytesIO()
    with zipfile.ZipFile(body, "w") as z:
        for name, data in members.items():
            z.writestr(name, data)
    (copy / "results.zip").write_bytes(body.getvalue())
    (tmp_path / "upstream" / "plain").mkdir()
    (tmp_path / "upstream" / "plain" / "board.csv").write_text("model,score\na,1\n")
    (tmp_path / "upstream" / "plain" / "real.zip").write_bytes(body.getvalue())  # an upstream file that is a zip
    with Upstream(served_root(tmp_path / "upstream", tmp_path / "served", extracted=("bench",))) as server:
        got = {name: urllib.request.urlopen(server.url + "bench/" + name).read() for name in members}
        plain = urllib.request.urlopen(server.url + "plain/board.csv").read()
        kept = urllib.request.urlopen(server.url + "plain/real.zip").read()
    assert got == members and plain == b"model,score\na,1\n" and kept == body.getvalue()
