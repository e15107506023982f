"""The Inspect-log adapter over loopback: an index in the shape of Epoch's download, listing real Inspect
logs (made by running Inspect tasks offline on its mock model), fetched once each, across runs."""

from __future__ import annotations

import csv
import io
import shutil
import zipfile
from urllib.parse import urlsplit

import pytest

from benchwatch.sources import Fetcher, SourceConfig, load_source
from benchwatch.store import validate_responses

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
pytest.importorskip("inspect_ai", reason='inspect_ai is the optional extra ".[inspect]" (the dev extra has it)')

from tests.sources.evallogs.inspect_tasks import MODELS, N_SAMPLES  # noqa: E402

TASKS = (("gpqa_diamond", "toy_binary"), ("math_level_5", "toy_credit"))


@pytest.fixture
def made(inspect_made):
    """The session's run of the Inspect tasks (conftest.inspect_made); each test serves a copy of its logs."""
    return inspect_made


def _logs(made, root, tasks=("toy_binary", "toy_credit")) -> list:
    """A copy of the module's logs under ``root/logs``; the logs of ``tasks``."""
    folder, logs = made
    shutil.copytree(folder, root / "logs")
    return [log for log in logs if log.eval.task in tasks]


def _index(shared_upstream, server, logs, prefix: str = "logs/", tasks=TASKS) -> bytes:
    """A zip like Epoch's benchmark_data.zip: gpqa_diamond.csv and math_level_5.csv with the real files'
    header (read from ../shared/upstream/epoch/benchmark_data.zip) and their first real rows, each row's Logs
    replaced by the URL of one of our logs on the loopback server (plus one real row without a log)."""
    out = io.BytesIO()
    with (
        zipfile.ZipFile(shared_upstream.root / "epoch" / "benchmark_data.zip") as real,
        zipfile.ZipFile(out, "w") as index,
    ):
        for stem, task in tasks:
            rows = list(csv.DictReader(io.StringIO(real.read(f"{stem}.csv").decode())))
            header = list(rows[0])
            mine = [log for log in logs if log.eval.task == task]
            text = io.StringIO()
            writer = csv.DictWriter(text, header, lineterminator="\n")
            writer.writeheader()
            for row, log in zip(rows, mine, strict=False):
                writer.writerow({**row, "Logs": server.url + prefix + log.location.rsplit("/", 1)[1]})
            writer.writerow({**rows[len(mine)], "Logs": ""})
            index.writestr(f"{stem}.csv", text.getvalue())
    return out.getvalue()


def test_each_log_is_fetched_once_across_runs_and_the_cap_holds(shared_upstream, made, tmp_path):
    from tests.sources.upstream_server import Upstream

    root = tmp_path / "upstream"
    logs = _logs(made, root)
    with Upstream(root) as server:
        (root / "index.zip").write_bytes(_index(shared_upstream, server, logs))
        cfg = SourceConfig(
            "epoch_logs",
            "inspect_index",
            server.url + "index.zip",
            {"files": ["gpqa_diamond", "math_level_5"], "max_logs": 3},
        )
        tables = []
        for _ in range(3):
            with Fetcher(tmp_path / "cache", retries=0) as fetcher:
                tables.append(load_source(fetcher, cfg))
        log_hits = {path: n for path, n in server.hits.items() if "/logs/" in path}
    assert len(log_hits) == len(logs) == 4 and set(log_hits.values()) == {1}  # every log fetched exactly once
    first, second, third = tables
    assert any("1 log(s) not fetched yet" in n for n in first.notes) and not second.notes
    df = validate_responses(third.frame, "test")
    assert set(df["benchmark"]) == {"gpqa_diamond", "math_level_5/numeric", "math_level_5/partial"}
    assert df.groupby("benchmark")["item_id"].nunique().tolist() == [N_SAMPLES] * 3
    # the models are the index's names for the runs, the dates its release dates
    real = list(csv.DictReader(io.StringIO(zipfile.ZipFile(root / "index.zip").read("gpqa_diamond.csv").decode())))
    names = {
        urlsplit(r["Logs"]).path.rsplit("/", 1)[1]: (r["Model version"], r["Release date"]) for r in real if r["Logs"]
    }
    want = {names[log.location.rsplit("/", 1)[1]] for log in logs if log.eval.task == "toy_binary"}
    got = set(df[df["benchmark"] == "gpqa_diamond"][["model", "date"]].astype(str).itertuples(index=False, name=None))
    assert {(m, d[:10]) for m, d in got} == want and len(want) == len(MODELS)
    assert second.frame.equals(third.frame)


def test_a_damaged_log_is_listed_and_fetched_again_next_run_while_the_others_are_read(shared_upstream, made, tmp_path):
    from tests.sources.upstream_server import Upstream

    root = tmp_path / "upstream"
    logs = _logs(made, root)
    victim = root / "logs" / logs[0].location.rsplit("/", 1)[1]
    good = victim.read_bytes()
    victim.write_bytes(good[:300])  # cut upstream
    with Upstream(root) as server:
        (root / "index.zip").write_bytes(_index(shared_upstream, server, logs))
        cfg = SourceConfig("epoch_logs", "inspect_index", server.url + "index.zip", {"files": ["gpqa_diamond"]})
        with Fetcher(tmp_path / "cache", retries=0) as fetcher:
            first = load_source(fetcher, cfg)
        victim.write_bytes(good)  # mended upstream
        with Fetcher(tmp_path / "cache", retries=0) as fetcher:
            second = load_source(fetcher, cfg)
        hits = server.hits["/logs/" + victim.name]
    assert len(first.excluded) == 1 and first.excluded[0]["model"] not in set(first.frame["model"])
    assert "not a readable Inspect log" in first.excluded[0]["reason"] and first.frame["model"].nunique() == 1
    assert second.excluded == () and second.frame["model"].nunique() == 2 and hits == 2


CHALLENGE = (
    b"<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>"
)


def test_a_log_host_that_answers_with_a_challenge_page_fails_the_source_at_its_first_log(
    shared_upstream, made, tmp_path
):
    """Epoch's log links answer scripts with a browser challenge: the source fails in one line that says so,
    asks for no second log, and the last good data stays published."""
    import json

    from benchwatch.pipeline import run_job
    from benchwatch.sources import load_source as read
    from tests.sources.upstream_server import Upstream

    root = tmp_path / "upstream"
    logs = _logs(made, root)
    with Upstream(root) as server:
        (root / "index.zip").write_bytes(_index(shared_upstream, server, logs))
        cfg = SourceConfig("epoch_logs", "inspect_index", server.url + "index.zip", {"files": ["gpqa_diamond"]})

        def source():
            with Fetcher(tmp_path / "c" / "downloads", retries=0) as fetcher:
                return read(fetcher, cfg)

        lines: list[str] = []
        kw = {"reports_dir": tmp_path / "r", "site_out": None, "cache_dir": tmp_path / "c", "log": lines.append}
        run_job([("epoch_logs", source)], now="2026-01-01T00:00:00Z", strict=False, **kw)
        before = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]
        # the logs move to URLs that now answer with a challenge page
        for log in logs:
            name = log.location.rsplit("/", 1)[1]
            (root / "logs" / ("moved-" + name)).write_bytes(CHALLENGE)
        (root / "index.zip").write_bytes(_index(shared_upstream, server, logs, prefix="logs/moved-"))
        server.hits.clear()
        lines.clear()
        run_job([("epoch_logs", source)], now="2026-01-02T00:00:00Z", strict=False, **kw)
        asked = sum(n for path, n in server.hits.items() if "/logs/" in path)
    failed = [line for line in lines if "FAILED" in line]
    assert len(failed) == 1 and "the log host refused a script" in failed[0] and "HTML page" in failed[0]
    assert asked == 1
    after = json.loads((tmp_path / "r" / "latest.json").read_text())["benchmarks"]
    assert after == before  # the last good data is kept
    status = json.loads((tmp_path / "r" / "sources.json").read_text())["sources"]["epoch_logs"]
    assert status["status"] == "failed"


def test_a_multiple_choice_logs_samples_carry_their_floors(shared_upstream, made, tmp_path):
    """An index whose runs are toy_choice's logs (Inspect's multiple_choice() on 2 to 4 choices): each item's
    floor is one over its number of choices, as the logs' samples give them."""
    from tests.sources.evallogs.inspect_tasks import choice_samples
    from tests.sources.upstream_server import Upstream

    root = tmp_path / "upstream"
    logs = _logs(made, root, tasks=("toy_choice",))
    with Upstream(root) as server:
        (root / "index.zip").write_bytes(_index(shared_upstream, server, logs, tasks=[("gpqa_diamond", "toy_choice")]))
        cfg = SourceConfig("epoch_logs", "inspect_index", server.url + "index.zip", {"files": ["gpqa_diamond"]})
        with Fetcher(tmp_path / "cache", retries=0) as fetcher:
            table = load_source(fetcher, cfg)
    want = {i: 1 / len(c) for i, _, c, _ in choice_samples()}
    df = validate_responses(table.frame, "test")
    assert len(df) == len(MODELS) * N_SAMPLES and set(df["benchmark"]) == {"gpqa_diamond"}
    assert dict(zip(df["item_id"], df["chance"], strict=True)) == want
    assert sorted(set(want.values())) == [1 / 4, 1 / 3, 1 / 2]
    assert table.chance_from == "each sample's number of choices (Inspect's choices)"
