"""``benchwatch fill`` end to end: plan, check (and record), generate against a local stub of an
OpenAI-compatible server, on a benchmark audited from simulated responses with a planted gap."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from benchwatch.cli import main

KEY = "sk-test-0123456789abcdef"


@pytest.fixture(scope="module")
def audited(tmp_path_factory):
    """24 models x 70 items, 10 samples each, the items' difficulties only in the middle of the models' range:
    both ends of the axis empty, which these models can show (issue 22: the ends are resolvable)."""
    root = tmp_path_factory.mktemp("fill")
    rng = np.random.default_rng(3)
    theta = np.linspace(-2.5, 2.5, 24)
    b = np.linspace(-0.9, 0.9, 70)
    rows = [
        (f"m{j:02d}", f"item-{i:02d}", rng.binomial(10, expit(t - d)) / 10, 10)
        for j, t in enumerate(theta)
        for i, d in enumerate(b)
    ]
    csv = root / "planted.csv"
    pd.DataFrame(rows, columns=["model", "item_id", "score", "trials"]).to_csv(csv, index=False)
    reports = root / "reports"
    argv = ["run", "--input", str(csv), "--reports", str(reports), "--cache", str(root / "c"), "--no-site"]
    assert main(argv) == 0
    items = root / "items.jsonl"
    items.write_text(
        "".join(json.dumps({"item_id": f"item-{i:02d}", "text": f"Question number {i}?"}) + "\n" for i in range(70))
    )
    return root, reports, items


def test_plan_then_check_then_record(audited, capsys):
    root, reports, _ = audited
    assert main(["fill", "plan", "planted", "--reports", str(reports), "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    assert [g["verdict"] for g in plan] == ["found", "found"] and plan[0]["width"] > 0.1  # both empty ends
    first = plan[0]
    # candidates answered as a model of the pool would answer items at the target (40 samples each)
    models = pd.read_csv(next((reports / "models").glob("*.csv")))
    rng = np.random.default_rng(5)
    rows = [
        (m, f"new-{k}", rng.binomial(40, expit(t - first["target_b"])) / 40, 40)
        for k in range(3)
        for m, t in zip(models["model"], models["theta"], strict=True)
    ]
    cands = root / "candidates.csv"
    pd.DataFrame(rows, columns=["model", "item_id", "score", "trials"]).to_csv(cands, index=False)
    assert main(["fill", "check", "planted", str(cands), "--reports", str(reports), "--record"]) == 0
    out, err = capsys.readouterr()
    assert (
        out.count("lands inside the gap") == 3
        and "inside a stretch (probability 0.95 or more): new-0, new-1, new-2" in out
    )
    assert "Max Gap:" in out and "proposed revision" in err
    assert "with all 3 candidate(s), the audit's bounds" in out and "published" in out
    proposal = json.loads(next((reports / "proposals").glob("*.json")).read_text())["proposal"]
    assert [c["item_id"] for c in proposal["candidates"]] == ["new-0", "new-1", "new-2"]
    assert proposal["after"]["max_gap"]["value"] < proposal["before"]["max_gap"]["value"]
    # before as published; after the audit's own bounds with the candidates, which the page shows beside them
    published = json.loads((reports / "latest.json").read_text())["benchmarks"][0]
    assert proposal["before"]["max_gap"]["value"] == published["max_gap"]
    assert proposal["bounds_before"]["detection_limit"] == published["detection_limit"]
    assert proposal["bounds_after"]["n_items"] == 73 and proposal["bounds_after"]["verdicts"]
    # the site shows it beside the current figures; the history does not hold it
    history = (reports / "history.csv").read_text()
    site = root / "site"
    from benchwatch.site import build_site

    build_site(reports, site)
    page = next((site / "benchmarks").glob("*/index.html")).read_text()
    assert "After fill: a proposed revision" in page and "new-2" in page and "Probability inside" in page
    # and the page's fill plan is the command's
    assert "Fill plan" in page and "Solve probability" in page
    seeds = [*first["seeds_below"], *first["seeds_above"]]  # an empty end has seeds on one side only
    assert seeds and all(s["item_id"] in page for s in seeds)
    assert (reports / "history.csv").read_text() == history and "new-0" not in history
    assert main(["check", "--reports", str(reports), "--site-out", str(site)]) == 0


def test_check_with_three_of_24_models_says_these_models_cannot_tell(audited, capsys):
    root, reports, _ = audited
    cands = root / "few.csv"
    cands.write_text("model,item_id,score\nm00,x,0\nm12,x,1\nm23,x,1\n")
    assert main(["fill", "check", "planted", str(cands), "--reports", str(reports)]) == 0
    out = capsys.readouterr().out
    assert "3 models: may lie in the stretch" in out and "these models cannot tell; evaluate on more models" in out
    assert "inside a stretch (probability 0.95 or more): none" in out


class _Stub:
    """An OpenAI-compatible chat endpoint on 127.0.0.1 that plays a script: 429, 500, then answers."""

    def __init__(self, answers: list[tuple[int, str]]):
        self.answers, self.requests = list(answers), []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                stub.requests.append((self.path, dict(self.headers), body))
                status, content = stub.answers.pop(0) if stub.answers else (200, "[]")
                if status == 200:
                    payload = json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
                else:
                    payload = json.dumps({"error": "busy"})
                data = payload.encode()
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


def test_generate_against_a_local_stub(audited, tmp_path, monkeypatch, capsys):
    _, reports, items = audited
    monkeypatch.setenv("BENCHWATCH_API_KEY", KEY)
    monkeypatch.setattr("time.sleep", lambda s: None)
    good = json.dumps(
        [{"text": "What is 17 * 23?", "answer": "391"}, {"text": "Name a prime above 100.", "answer": "101"}]
    )
    main(["fill", "plan", "planted", "--reports", str(reports), "--json"])
    plan = json.loads(capsys.readouterr().out)
    script = [(429, ""), (500, ""), (200, good), (200, "Sure! Here are some items.")]
    script += [(200, "```json\n" + good + "\n```")] * (len(plan) - 2)
    stub = _Stub(script)
    out = tmp_path / "cands.jsonl"
    monkeypatch.setenv("BENCHWATCH_ENDPOINT", stub.url)  # the endpoint from the environment, like the key
    argv = ["fill", "generate", "planted", "--reports", str(reports), "--items", str(items)]
    assert main([*argv, "--model", "gen-1", "--per-gap", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr()
    stub.server.shutdown()
    made = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(stub.requests) == len(plan) + 2  # the 429 and the 500 retried
    assert len(made) == 2 * (len(plan) - 1)  # the malformed answer skipped
    assert "gap 2" in printed.out and "malformed answer, skipped" in printed.out
    path, headers, body = stub.requests[2]
    assert path == "/v1/chat/completions" and body["model"] == "gen-1"
    prompt = body["messages"][-1]["content"]
    seeds = [*plan[0]["seeds_below"], *plan[0]["seeds_above"]]
    assert all(f"Question number {int(s['item_id'].split('-')[1])}?" in prompt for s in seeds)
    asked = float(re.search(r"new items of difficulty z = ([0-9.]+)", prompt).group(1))
    assert asked == pytest.approx(plan[0]["target_z"], abs=1e-3)
    assert headers["Authorization"] == f"Bearer {KEY}"
    assert made[0]["text"] == "What is 17 * 23?" and made[0]["seeds"] == [s["item_id"] for s in seeds]
    # the key is never written
    assert KEY not in out.read_text() and KEY not in printed.out + printed.err
    assert not any(KEY in p.read_text(errors="ignore") for p in reports.rglob("*") if p.is_file() and p.suffix != ".gz")
