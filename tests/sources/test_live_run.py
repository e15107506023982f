"""How the shipped configuration's runs serve the real upstream files on 127.0.0.1 (the runs themselves, and what
they read, are tests/site/test_shipped_site.py's and benchmarks/shipped_atlas.py's)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


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
