"""One fault battery for every registered adapter (issue 41): each adapter's files served on 127.0.0.1 (excerpts of
the real upstream files where ../shared/upstream has them, else fixtures in the producer's format), and the same
faults applied to its main file. Each case either reads the data right or raises one InputError / FetchError
naming the URL (and, for data problems, the field or the model); never a bare KeyError, ZeroDivisionError or
UnicodeEncodeError, and never a truncated table read as whole. A new adapter joins by being registered: a test
fails when a CATALOG entry has no case here."""

from __future__ import annotations

import copy
import csv
import io
import json
import threading
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pandas as pd
import pytest

from benchwatch.errors import InputError
from benchwatch.sources import Fetcher, SourceConfig, load_source
from benchwatch.sources.adapters import CATALOG
from benchwatch.sources.http import FetchError
from benchwatch.store import content_revision, validate_aggregates, validate_responses
from benchwatch.store.naming import clean_name
from tests.sources.upstream_server import Upstream

SHARED = Path(__file__).resolve().parents[3] / "shared" / "upstream"


@dataclass
class Case:
    """An adapter's working configuration: ``path`` (its url under the server), ``options``, and its main file
    (``main``, under the server's root) in ``kind`` json | jsonl | csv | parquet | zip:<inner file>, whose rows
    (``rows(doc)`` for JSON) carry ``name`` (a model's name) and ``required`` (a field it cannot do without)."""

    path: str
    options: dict
    main: str
    kind: str
    name: str
    required: str
    rows: Callable[[Any], list] = lambda doc: doc
    slow: bool = False
    faults: tuple[str, ...] = field(default_factory=tuple)  # faults that do not apply (left out)
    # False where the published model name comes from another file (Epoch's samples: the runs table, joined on
    # run_id): a hostile ``name`` in the main file must then leave the table as it was
    names_models: bool = True
    conflict: str = ""  # the field a conflicting duplicate row gives another value (default: ``required``)
    # The model of the main file where the producer's own rule drops a record without ``required`` (AlpacaEval:
    # a record without a preference), so that one record without it is dropped with a note, not an error
    drops_missing: str = ""
    # True where the published model is the row's name with more beside it (can-ai-code: the name, its template and
    # sampling preset): a hostile name must then be kept as sent inside the published one
    labels_models: bool = False
    # True where the adapter's stated rule leaves a model listed twice with two scores out of the table (BenchBench:
    # the file cannot say which variant is which), into ``excluded`` naming both values, rather than refusing it
    drops_conflicts: bool = False


def _need_shared(what: str) -> Path:
    if not (SHARED / what).exists():
        pytest.skip(f"../shared/upstream/{what} is not here: it exists in CI and on the developers' machines only")
    return SHARED / what


def _write(root: Path, rel: str, body: bytes | str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body.encode() if isinstance(body, str) else body)


def _csv_text(header: list[str], rows: list[dict]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, header, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


# -- each adapter's working configuration ------------------------------------------------------------------------


def _swebench(root: Path) -> Case:
    doc = json.loads(_need_shared("swebench/leaderboards.json").read_bytes())
    board = next(b for b in doc["leaderboards"] if b["name"] == "Verified")
    detailed = [r for r in board["results"] if r.get("per_instance_details")][:2]
    plain = [r for r in board["results"] if not r.get("per_instance_details")][:3]
    _write(root, "swebench/leaderboards.json", json.dumps({"leaderboards": [{**board, "results": detailed + plain}]}))
    rows = lambda d: d["leaderboards"][0]["results"]  # noqa: E731
    return Case("swebench/leaderboards.json", {}, "swebench/leaderboards.json", "json", "name", "resolved", rows)


def _livecodebench(root: Path) -> Case:
    perf = [
        {"question_id": q, "model": m, "date": "2024-05-01", "difficulty": "easy", "pass@1": s, "platform": "leetcode"}
        for q, m, s in [("q1", "a", 30.0), ("q2", "a", 70.0), ("q1", "b", 50.0), ("q2", "b", 100.0)]
    ]
    _write(root, "lcb/performances_generation.json", json.dumps({"performances": perf, "models": []}, indent=1))
    rows = lambda d: d["performances"]  # noqa: E731
    path = "lcb/performances_generation.json"
    return Case(path, {}, path, "json", "model", "pass@1", rows)


def _evalarena(root: Path) -> Case:
    lines = [
        json.dumps({"benchmark_id": "humaneval+", "model": m, "example_id": f"HumanEval/{i}", "pass1": (i + k) % 2})
        for k, m in enumerate(["a", "b", "c"])
        for i in range(4)
    ]
    _write(root, "evalarena/humaneval+.jsonl", "\n".join(lines) + "\n")
    return Case("evalarena/", {"files": ["humaneval+.jsonl"]}, "evalarena/humaneval+.jsonl", "jsonl", "model", "pass1")


def _livebench(root: Path) -> Case:
    from tests.sources.test_adapters_fixtures import _livebench_fixture

    _livebench_fixture(root)
    options = {"questions": ["{url}questions.parquet"]}
    return Case("judgments.parquet", options, "judgments.parquet", "parquet", "model", "score")


def _livebench_site(root: Path) -> Case:
    folder = _need_shared("livebench_site")
    releases = ["2025_12_23", "2026_01_08"]
    for r in releases:
        for name in (f"table_{r}.csv", f"categories_{r}.json"):
            _write(root, f"livebench_site/{name}", (folder / name).read_bytes())
    main = f"livebench_site/table_{releases[-1]}.csv"
    # the model is the row's key and its required field: a conflict is the same model with another task score
    return Case("livebench_site/", {"releases": releases}, main, "csv", "model", "model", conflict="AMPS_Hard")


def _helm(root: Path) -> Case:
    from tests.sources.test_adapters_fixtures import _helm_fixture

    _helm_fixture(root)
    main = "runs/v1/gsm:model=org_a,stop=none/per_instance_stats.json"
    return Case("", {"version": "v1.0.0"}, main, "json", "instance_id", "stats")


def _epoch(root: Path) -> Case:
    with zipfile.ZipFile(_need_shared("epoch/benchmark_data.zip")) as real:
        body = real.read("gpqa_diamond.csv")
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("gpqa_diamond.csv", body)
    _write(root, "epoch/benchmark_data.zip", out.getvalue())
    options = {"benchmarks": {"gpqa_diamond": {"n_items": 198}}}
    return Case(
        "epoch/benchmark_data.zip",
        options,
        "epoch/benchmark_data.zip",
        "zip:gpqa_diamond.csv",
        "Model version",
        "Best score (across scorers)",
    )


def _epoch_samples(root: Path) -> Case:
    folder = _need_shared("epoch_samples")
    samples = pd.read_csv(folder / "parsed.csv", dtype=str, keep_default_na=False)
    runs = list(samples[samples["benchmark"] == "FrontierMath-2025-02-28-Public"]["run_id"].unique()[:3])
    samples = samples[samples["run_id"].isin(runs)]
    table = pd.read_csv(folder / "benchmarks_runs.csv", dtype=str, keep_default_na=False)
    _write(root, "epoch_samples/parsed.csv", samples.to_csv(index=False, lineterminator="\n"))
    _write(root, "epoch_samples/runs.csv", table[table["id"].isin(runs)].to_csv(index=False, lineterminator="\n"))
    options = {"runs": "{url}epoch_samples/runs.csv"}
    main = "epoch_samples/parsed.csv"
    return Case(main, options, main, "csv", "model", "score", names_models=False)


def _evalplus(root: Path) -> Case:
    doc = json.loads(_need_shared("evalplus/results.json").read_bytes())
    _write(root, "evalplus/results.json", json.dumps(dict(list(doc.items())[:5]), indent=2))
    # the model is the key of each entry: the rows are one-entry views rebuilt by _json_faults
    return Case("evalplus/results.json", {}, "evalplus/results.json", "json", "<key>", "pass@1", lambda d: d)


def _mmlu_pro(root: Path) -> Case:
    zips = ["model_outputs_Llama-2-7b-hf_5shots.zip", "model_outputs_jamba-1.5-large_5shots.zip"]
    inners = []
    for name in zips:
        with zipfile.ZipFile(_need_shared(f"mmlu_pro_all/{name}")) as real:
            inner = real.namelist()[0]
            inners.append(inner)
            records = json.loads(real.read(inner))[:40]
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            z.writestr(inner, json.dumps(records))
        _write(root, f"mmlu_pro/{name}", out.getvalue())
    return Case("mmlu_pro/", {"files": zips}, f"mmlu_pro/{zips[0]}", f"zip:{inners[0]}", "question_id", "pred")


def _csv(root: Path) -> Case:
    _write(root, "team.csv", "model,item_id,score\nm,i,1\nm,j,0\nn,i,0\nn,j,1\n")
    return Case("team.csv", {}, "team.csv", "csv", "model", "score")


def _alpaca_eval(root: Path) -> Case:
    folder = _need_shared("alpaca_eval")
    models = sorted(p.name for p in (folder / "results").iterdir())[:2]
    board_path = "src/alpaca_eval/leaderboards/data_AlpacaEval_2/weighted_alpaca_eval_gpt4_turbo_leaderboard.csv"
    board = pd.read_csv(folder / board_path, index_col=0)
    for model in models:
        annotation = f"results/{model}/weighted_alpaca_eval_gpt4_turbo/annotations.json"
        records = json.loads((folder / annotation).read_bytes())[:20]
        for r in records:
            r.pop("raw_completion", None)
        _write(root, f"alpaca_eval/{annotation}", json.dumps(records, indent=2))
        rate = 100 * sum(r["preference"] - 1 for r in records) / len(records)
        board.loc[model, "win_rate"] = rate  # the excerpt's own win rate, so that it is checked and kept
    _write(root, f"alpaca_eval/{board_path}", board.to_csv(lineterminator="\n"))
    main = f"alpaca_eval/results/{models[0]}/weighted_alpaca_eval_gpt4_turbo/annotations.json"
    return Case("alpaca_eval/", {"models": models}, main, "json", "instruction", "preference", drops_missing=models[0])


def _eee(root: Path) -> Case:
    import hashlib
    import shutil

    from tests.sources.test_eee import RECORDS

    shutil.copytree(RECORDS / "toy_mc", root / "data" / "toy_mc")
    lines = []
    for path in sorted((root / "data" / "toy_mc").rglob("*.json")):
        body = path.read_bytes()
        row = {
            "benchmark": "toy_mc",
            "eval_schema_version": "0.3.0",
            "legacy_path": str(path.relative_to(root)),
            "object_path": f"flat/objects/{path.name}",
            "object_uuid": path.stem,
            "record_type": "aggregate",
            "sha256": hashlib.sha256(body).hexdigest(),
            "size_bytes": len(body),
        }
        lines.append(json.dumps(row, sort_keys=True))
    main = "flat/indexes/by_collection/toy_mc.jsonl"
    _write(root, main, "\n".join(lines) + "\n")
    return Case("", {"collections": ["toy_mc"]}, main, "jsonl", "object_uuid", "legacy_path")


def _inspect_index(root: Path, made: Any, server: Upstream) -> Case:
    """The Inspect-index tests' zip in the shape of Epoch's download (real headers and rows, each row's Logs the
    URL of one of the session's Inspect logs on this server); the faults go to its gpqa_diamond.csv."""
    from types import SimpleNamespace

    from tests.sources.test_inspect_index import TASKS, _index, _logs

    _need_shared("epoch/benchmark_data.zip")
    logs = _logs(made, root)
    _write(root, "index.zip", _index(SimpleNamespace(root=SHARED), server, logs))
    options = {"files": [stem for stem, _ in TASKS]}
    return Case("index.zip", options, "index.zip", "zip:gpqa_diamond.csv", "Model version", "Logs")


def _open_llm(root: Path, made: Any, server: Upstream) -> Case:
    """test_open_llm's Hub: the session's harness output as details datasets, and the contents table (the
    leaderboard's models, ``fullname``), to which the faults go."""
    from tests.sources.test_open_llm import CONTENTS, _hub

    _hub(made, root)
    return Case("", {"max_models": 10}, CONTENTS, "parquet", "fullname", "fullname", conflict="Average ⬆️")


def _all_the_noises(root: Path) -> Case:
    """Three models x four items of the real main/ HumanEval+ table, its unnamed index column kept."""
    path = "main/assets/tables/input_table_humaneval+.csv"
    table = pd.read_csv(_need_shared(f"all_the_noises/{path}"), dtype=str, keep_default_na=False)
    models = list(table["model"].unique()[:3])
    items = list(table["example_id"].unique()[:4])
    table = table[table["model"].isin(models) & table["example_id"].isin(items)]
    _write(root, f"atn/{path}", table.to_csv(index=False, lineterminator="\n"))
    return Case("atn/", {"files": [path]}, f"atn/{path}", "csv", "model", "pass1")


def _can_ai_code(root: Path) -> Case:
    """A real run's first four tests (its lines as sent), found through a listing in GitHub's git trees shape."""
    inner = (
        "results/airoboros-l2/eval_junior-v2_python-javascript_Vicuna-1p1-v2a_none_precise_"
        "jondurbin-airoboros-l2-13b-gpt4-1.4.1_1690410999.ndjson"
    )
    with zipfile.ZipFile(_need_shared("can_ai_code/results.zip")) as archive:
        lines = archive.read(inner).decode().splitlines()[:4]
    _write(root, f"cac/{inner}", "\n".join(lines))
    _write(root, "cac/tree.json", json.dumps({"tree": [{"path": inner, "type": "blob"}], "truncated": False}))
    return Case(
        "cac/",
        {"index": "{url}cac/tree.json"},
        f"cac/{inner}",
        "jsonl",
        "model",
        "passed",
        labels_models=True,
    )


def _terminal_bench(root: Path) -> Case:
    """Six trials of a real run-level file (droid gpt-5's first run), its counts made those of the six."""
    inner = "results/terminal-bench-core@0.1.1/20250924_droid_gpt-5/tb_rc2_g5_1/results.json"
    with zipfile.ZipFile(_need_shared("terminal_bench/results.zip")) as archive:
        doc = json.loads(archive.read(inner))
    trials = doc["results"][:6]
    right = sum(t["is_resolved"] is True for t in trials)
    doc |= {"results": trials, "n_resolved": right, "n_unresolved": 6 - right, "accuracy": right / 6}
    _write(root, f"tb/{inner}", json.dumps(doc, indent=4))
    return Case(
        "tb/",
        {"files": [inner]},
        f"tb/{inner}",
        "json",
        "trial_name",
        "task_id",
        rows=lambda d: d["results"],
        names_models=False,  # the model is the submission's folder
        conflict="is_resolved",
    )


def _bfcl(root: Path) -> Case:
    """A real score file (its counts line and failure lines as sent), found through a listing in GitHub's shape."""
    inner = "2024-08-11/score/Nexusflow-Raven-v2/simple_score.json"
    with zipfile.ZipFile(_need_shared("bfcl_result/2024-08-11.zip")) as archive:
        _write(root, f"bfcl/{inner}", archive.read(inner))
    _write(root, "bfcl/tree.json", json.dumps({"tree": [{"path": inner, "type": "blob"}], "truncated": False}))
    # line 1 the counts, every other line a failed item: the faults that touch "the first row" hit the counts
    return Case(
        "bfcl/",
        {"index": "{url}bfcl/tree.json"},
        f"bfcl/{inner}",
        "jsonl",
        "accuracy",
        "total_count",
        names_models=False,  # the model is the file's folder
        conflict="correct_count",
    )


def _bfcl_leaderboard(root: Path) -> Case:
    """The two newest real versions' overall tables, their header and first four rows as sent (no final newline,
    as upstream); the faults go to the newest one, whose scores are published."""
    versions = {}
    for day in ("2025-04-14", "2025-12-16"):
        lines = _need_shared(f"gorilla_bfcl/{day}/data_overall.csv").read_text(encoding="utf-8").splitlines()
        _write(root, f"gl/{day}/data_overall.csv", "\n".join(lines[:5]))
        versions[day] = {"prefix": f"{day}/", "files": ["data_overall.csv"]}
    return Case("gl/", {"versions": versions}, "gl/2025-12-16/data_overall.csv", "csv", "Model", "Overall Acc")


def _llmstats(root: Path) -> Case:
    """A real model card as sent (its first score a configured benchmark), found through a listing in GitHub's shape."""
    inner = "models/anthropic/claude-3-5-sonnet-20241022/model.json"
    _write(root, f"ls/{inner}", _need_shared(f"llmstats/{inner}").read_bytes())
    _write(root, "ls/tree.json", json.dumps({"tree": [{"path": inner, "type": "blob"}], "truncated": False}))
    sizes = {"SWE-bench Verified": 500, "GPQA": 198, "MMLU": 14042, "HumanEval": 164, "GSM8K": 1319}
    return Case(
        "ls/",
        {"index": "{url}ls/tree.json", "benchmarks": sizes},
        f"ls/{inner}",
        "json",
        "analysis_method",  # no model name in a score: the model is the card's folder
        "score",
        rows=lambda d: d["qualitative_metrics"],
        names_models=False,
    )


def _benchbench(root: Path) -> Case:
    """The real MMLU-Pro board's header and first four rows as sent (no final newline, as upstream), and the real
    lower-is-better list beside it."""
    folder = "src/bat/assets/"
    lines = _need_shared(f"benchbench/{folder}benchmarks/mmlu_pro_240829_knowledge.csv").read_text().splitlines()
    main = f"bb/{folder}benchmarks/mmlu_pro_240829_knowledge.csv"
    _write(root, main, "\n".join(lines[:5]))
    lower = _need_shared(f"benchbench/{folder}lower_is_better_benchmarks.txt").read_bytes()
    _write(root, f"bb/{folder}lower_is_better_benchmarks.txt", lower)
    spec = {"n_items": 12032, "scale": "fraction", "score_column": "mmlu_pro"}
    options = {"boards": {"mmlu_pro_240829_knowledge": spec}}
    return Case("bb/", options, main, "csv", "model", "mmlu_pro", drops_conflicts=True)


# the adapters whose files are made by running their tool: a session fixture runs it once (tests/sources/conftest.py)
RUNS = {"inspect_index": "inspect_made", "open_llm": "lm_eval_details"}
CASES: dict[str, Callable[..., Case]] = {
    "swebench": _swebench,
    "livecodebench": _livecodebench,
    "evalarena": _evalarena,
    "livebench": _livebench,
    "livebench_site": _livebench_site,
    "helm": _helm,
    "epoch": _epoch,
    "epoch_samples": _epoch_samples,
    "evalplus": _evalplus,
    "mmlu_pro": _mmlu_pro,
    "inspect_index": _inspect_index,
    "csv": _csv,
    "alpaca_eval": _alpaca_eval,
    "eee": _eee,
    "open_llm": _open_llm,
    "all_the_noises": _all_the_noises,
    "terminal_bench": _terminal_bench,
    "can_ai_code": _can_ai_code,
    "bfcl": _bfcl,
    "bfcl_leaderboard": _bfcl_leaderboard,
    "llmstats": _llmstats,
    "benchbench": _benchbench,
}
KINDS = {"swebench": "json", "livecodebench": "json", "evalarena": "jsonl", "livebench": "parquet"}
KINDS |= {"livebench_site": "csv", "helm": "json", "epoch": "csv", "epoch_samples": "csv", "evalplus": "json"}
KINDS |= {"mmlu_pro": "json", "inspect_index": "csv", "csv": "csv", "alpaca_eval": "json", "eee": "jsonl"}
KINDS |= {"open_llm": "parquet", "all_the_noises": "csv", "terminal_bench": "json", "can_ai_code": "jsonl"}
KINDS |= {"bfcl": "jsonl"}
KINDS |= {"bfcl_leaderboard": "csv"}
KINDS |= {"llmstats": "json"}
KINDS |= {"benchbench": "csv"}
SLOW = {"inspect_index", "open_llm"}  # their fixtures are made by running Inspect / lm-evaluation-harness


# -- the faults --------------------------------------------------------------------------------------------------

HOSTILE = {
    "surrogate-name": "model-\ud800-x",
    "control-chars-name": "model\x07\x1b[31m\r\nx",
    "formula-name": '=HYPERLINK("http://example.invalid","click")',
}
BODY_FAULTS = ["cut-mid-row", "cut-mid-value", "empty-body", "html-as-text"]
DATA_FAULTS = ["renamed-field", "missing-field", "duplicate-row", "duplicate-row-conflict", *HOSTILE]
HTTP_FAULTS = {"html-200": "html", "304-unconditional": "304", "slow-body": "trickle:0.02"}
FAULTS = [*BODY_FAULTS, *DATA_FAULTS, *HTTP_FAULTS]
# A lone surrogate is carried only by JSON's escapes; a field missing from one row only by JSON and JSON lines.
NOT_APPLICABLE = {"csv": {"surrogate-name", "missing-field"}, "parquet": {"surrogate-name", "missing-field"}}


def _cut(data: bytes, kind: str, where: str) -> bytes:
    """The body cut inside its last row: just after a separator (mid-row) or inside a value (mid-value)."""
    body = data.rstrip(b"\n")
    if kind in ("csv", "jsonl"):
        start = body.rfind(b"\n") + 1
        line = body[start:]
        sep = line.find(b"," if kind == "csv" else b", ")
        assert sep > 0, line
        if where == "row":
            return body[: start + sep + 1]
        second = line.find(b",", sep + 1)  # inside the second value (a cell, or the first JSON value)
        end = second if second > 0 else len(line)
        return body[: start + (sep + 1 + end) // 2]
    if kind == "parquet":
        return data[: len(data) // 2 if where == "row" else len(data) - 7]
    # JSON: inside the last row's object, or inside a string value
    cut = len(data) * 2 // 3
    if where == "value":
        cut = data.rfind(b'"', 0, cut) + 2
    return data[:cut]


def _rows_of(kind: str, data: bytes) -> tuple[Any, list]:
    if kind == "json":
        return json.loads(data), []
    if kind == "jsonl":
        return None, [json.loads(line) for line in data.splitlines() if line.strip()]
    if kind == "csv":
        return None, list(csv.DictReader(io.StringIO(data.decode("utf-8"))))
    raise AssertionError(kind)


def _dump(kind: str, doc: Any, rows: list, header: list[str]) -> bytes:
    if kind == "json":
        return json.dumps(doc, indent=1).encode()  # ensure_ascii: a lone surrogate travels as \ud800
    if kind == "jsonl":
        return ("\n".join(json.dumps(r) for r in rows) + "\n").encode()
    return _csv_text(header, rows).encode()


def _mutate_rows(case: Case, fault: str, rows: list, evalplus: bool) -> list:
    key, req = case.name, case.required
    if fault == "renamed-field":
        return [{(k + "_renamed" if k == req else k): v for k, v in r.items()} for r in rows]
    if fault == "missing-field":
        return [{k: v for k, v in rows[0].items() if k != req}, *rows[1:]]
    if fault == "duplicate-row":
        return [*rows, copy.deepcopy(rows[0])]
    if fault == "duplicate-row-conflict":
        req = case.conflict or req
        other = copy.deepcopy(rows[0])
        value = other[req]
        if isinstance(value, dict):  # EvalPlus: {"humaneval": 90.2, ...}
            other[req] = {k: (v / 2 if isinstance(v, float) else v) for k, v in value.items()}
        elif isinstance(value, bool):
            other[req] = not value
        elif isinstance(value, int | float):
            other[req] = value / 2 + 0.25 if value else 0.5
        elif isinstance(value, list):  # HELM's stats
            other[req] = value[:-1]
        else:
            other[req] = "0.5" if str(value) != "0.5" else "0.25"
        return [*rows, other]
    if fault in HOSTILE:
        old = rows[0][key]
        return [{**r, key: HOSTILE[fault]} if r.get(key) == old else r for r in rows]
    raise AssertionError(fault)


def _apply(case: Case, fault: str, data: bytes) -> bytes:
    kind = case.kind
    if kind.startswith("zip:"):
        inner = kind.split(":", 1)[1]
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            body = z.read(inner)
            others = {n: z.read(n) for n in z.namelist() if n != inner}  # the archive's other files, kept
        mutated = _apply(Case(**{**case.__dict__, "kind": KIND_OF_INNER(inner)}), fault, body)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as z:
            z.writestr(inner, mutated)
            for name, other in others.items():
                z.writestr(name, other)
        return out.getvalue()
    if fault == "cut-mid-row":
        return _cut(data, kind, "row")
    if fault == "cut-mid-value":
        return _cut(data, kind, "value")
    if fault == "empty-body":
        return b""
    if fault == "html-as-text":
        return b"<!DOCTYPE html>\n<html><head><title>Just a moment...</title></head><body>rate limited</body></html>\n"
    if kind == "parquet":
        frame = pd.read_parquet(io.BytesIO(data))
        rows = _mutate_rows(case, fault, frame.to_dict("records"), False)
        out = io.BytesIO()
        pd.DataFrame(rows).to_parquet(out)
        return out.getvalue()
    doc, rows = _rows_of(kind, data)
    header = list(rows[0]) if kind == "csv" else []
    if kind == "json":
        target = case.rows(doc)
        if case.name == "<key>":  # EvalPlus: the model is the key; the rows are its items
            items = [{"<key>": k, **v} for k, v in target.items()]
            items = _mutate_rows(case, fault, items, True)
            if fault in ("duplicate-row", "duplicate-row-conflict"):  # a key given twice: only the text can say it
                first = json.dumps({items[-1]["<key>"]: {k: v for k, v in items[-1].items() if k != "<key>"}})
                return data.rstrip().rstrip(b"}") + b", " + first[1:-1].encode() + b"}"
            doc = {i["<key>"]: {k: v for k, v in i.items() if k != "<key>"} for i in items}
        else:
            target[:] = _mutate_rows(case, fault, target, False)
        return _dump(kind, doc, [], [])
    rows = _mutate_rows(case, fault, rows, False)
    if kind == "csv" and fault == "renamed-field":
        header = [h + "_renamed" if h == case.required else h for h in header]
    return _dump(kind, doc, rows, header)


def KIND_OF_INNER(name: str) -> str:
    return "csv" if name.endswith(".csv") else "json"


# -- running a case ----------------------------------------------------------------------------------------------


# What the battery still finds, each an expected failure, strict, so that a fix shows up as an unexpected pass
# and is taken off this list (issue 41).
LEFT: dict[str, str] = {
    "open_llm-duplicate-row-conflict": "the contents table only picks the models (its averages are never read): "
    "one model listed twice with two averages reads the same details, and is not said",
    "benchbench-cut-mid-value": "no file of the catalogue ends with a newline: a body cut inside its last score "
    "reads as a shorter number, which nothing in the file can tell",
}


def _params():
    out = []
    for adapter in CASES:
        for fault in FAULTS:
            if fault in NOT_APPLICABLE.get(KINDS[adapter], ()):
                continue
            marks = [pytest.mark.slow]  # some 200 cases: about a minute on two cores
            if f"{adapter}-{fault}" in LEFT:
                marks.append(pytest.mark.xfail(strict=True, reason=LEFT[f"{adapter}-{fault}"]))
            out.append(pytest.param(adapter, fault, id=f"{adapter}-{fault}", marks=marks))
    return out


def _load(server: Upstream, adapter: str, case: Case, cache: Path, *, deadline: float = 30.0):
    def fill(v: Any) -> Any:
        if isinstance(v, list):
            return [fill(x) for x in v]
        return v.replace("{url}", server.url) if isinstance(v, str) else v

    options = {k: fill(v) for k, v in case.options.items()}
    with Fetcher(cache, retries=0, read_timeout=5, deadline=deadline) as fetcher:
        return load_source(fetcher, SourceConfig(adapter, adapter, server.url + case.path, options))


def _digest(table) -> tuple:
    """The table as the run keeps it: validated, written as UTF-8 CSV, and its content revision."""
    frame = table.frame
    long = validate_responses(frame, "battery") if len(frame) else frame
    aggs = table.aggregates
    if aggs is not None and len(aggs):
        aggs = validate_aggregates(aggs.astype(str), "battery")
    for part in (long, aggs):
        if part is not None and len(part):
            part.to_csv(index=False).encode("utf-8")
    revision = content_revision(long) if len(long) else ""
    rows = sorted(map(tuple, frame.astype(str).values.tolist()))
    agg_rows = sorted(map(tuple, aggs.astype(str).values.tolist())) if aggs is not None else []
    return revision, rows, agg_rows


def test_every_registered_adapter_has_a_battery_case():
    assert set(CASES) == set(CATALOG), "a registered adapter without a case here (or a case for none)"
    assert set(KINDS) == set(CATALOG)


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "upstream"
    root.mkdir()
    server = Upstream(root)
    # stopped within 20 ms, not serve_forever's default half second: the battery has some 200 cases
    server.thread = threading.Thread(target=lambda: server.server.serve_forever(poll_interval=0.02), daemon=True)
    with server:
        yield server


@pytest.mark.parametrize(("adapter", "fault"), _params())
def test_fault(served, tmp_path, request, adapter, fault):
    if adapter in RUNS:
        case = CASES[adapter](served.root, request.getfixturevalue(RUNS[adapter]), served)
    else:
        case = CASES[adapter](served.root)
    baseline = _load(served, adapter, case, tmp_path / "baseline")
    good = _digest(baseline)
    assert good[1] or good[2], f"{adapter}: the working configuration reads nothing"
    main = served.root / case.main
    original = main.read_bytes()
    url = served.url + case.main
    deadline = 30.0
    if fault in HTTP_FAULTS:
        served.script["/" + case.main] = [HTTP_FAULTS[fault]] * 3
        deadline = 0.5 if fault == "slow-body" else deadline
    else:
        mutated = _apply(case, fault, original)
        assert mutated != original, f"{adapter}-{fault}: the fault changed nothing"
        main.write_bytes(mutated)
    try:
        table = _load(served, adapter, case, tmp_path / "cache", deadline=deadline)
    except (InputError, FetchError) as exc:
        text = str(exc)
        assert url in unquote(text), f"the URL is not named: {text}"
        if fault in ("renamed-field", "missing-field"):
            assert case.required in text, f"the field is not named: {text}"
        if fault == "duplicate-row-conflict" or fault in HOSTILE:
            assert fault != "duplicate-row-conflict" or "twice" in text or "repeat" in text or "two" in text, text
        return
    got = _digest(table)
    if fault == "duplicate-row-conflict" and case.drops_conflicts:
        model = _rows_of(case.kind, original)[1][0][case.name]
        reasons = [e["reason"] for e in table.excluded if e["model"] == model]
        assert len(reasons) == 1 and "different scores" in reasons[0], table.excluded
        assert got[2] == [r for r in good[2] if r[1] != model], "the other rows changed, or the model is still read"
        return
    if fault == "missing-field" and case.drops_missing:
        model = case.drops_missing
        assert any(n.startswith(f"{model}: 1 record(s) without") for n in table.notes), table.notes
        before, after = ((t.frame["model"] == model).sum() for t in (baseline, table))
        left_out = {e["model"] for e in table.excluded if "differs" in e["reason"]}  # its win rate no longer checks
        assert after == before - 1 or (after == 0 and model in left_out), (before, after, table.excluded)
        return
    assert fault not in (*BODY_FAULTS, *HTTP_FAULTS, "renamed-field", "missing-field", "duplicate-row-conflict"), (
        f"{adapter}-{fault}: read as whole ({len(got[1])} rows, {len(got[2])} aggregates; "
        f"{len(good[1])} and {len(good[2])} before)"
    )
    if fault == "duplicate-row":
        assert got[1:] == good[1:], "an identical duplicate row read other than once"
    if fault in HOSTILE and not case.names_models:
        assert got == good, "a name the table does not take from this file changed what was read"
    elif fault in HOSTILE and case.name in ("model", "<key>", "Model version"):
        # The adapter keeps the name as sent (a lone surrogate as its escape); the store then writes every
        # name in its canonical spelling (clean_name: no control characters, single spaces), for good data too.
        sent = HOSTILE[fault].encode("utf-8", "backslashreplace").decode()
        raw = [table.frame, *([table.aggregates] if table.aggregates is not None else [])]
        names = {str(c) for part in raw for c in part["model"].astype(str)}
        kept = any(sent in n for n in names) if case.labels_models else sent in names
        assert kept, f"the hostile name was not kept as sent: {sorted(names)[:5]}"
        long = validate_responses(table.frame, "battery") if len(table.frame) else table.frame
        stored = {str(c) for row in got[2] for c in row} | set(long["model"].astype(str))
        canonical = any(clean_name(sent) in n for n in stored) if case.labels_models else clean_name(sent) in stored
        assert canonical, f"the hostile name was not stored as its canonical spelling: {stored}"
