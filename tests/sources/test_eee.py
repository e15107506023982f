"""Every Eval Ever in and out: records written by Every Eval Ever 0.3.0's own converters from the suite's
lm-evaluation-harness and Inspect logs (``eee_data/``, remade by ``eee_data/make.py``) read to the same long
table as those logs; invalid records fail in one line; the long table written out and read back; the
datastore adapter over loopback, each record fetched once."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pandas as pd
import pytest

from benchwatch.cli import main
from benchwatch.errors import InputError
from benchwatch.sources import Fetcher, SourceConfig, load_source, read_input
from benchwatch.store import eee_records, validate_responses

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

DATA = Path(__file__).parent / "eee_data"
RECORDS, LOGS = DATA / "eee" / "data", DATA / "logs"
KEY = ["benchmark", "model", "item_id"]


def _sorted(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.sort_values(KEY).reset_index(drop=True)


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(RECORDS, target)
    return target


def _record(folder: Path, collection: str) -> Path:
    return next(p for p in sorted((folder / collection).rglob("*.json")))


def test_records_from_every_eval_evers_converters_read_to_the_long_table_of_their_logs():
    pytest.importorskip("inspect_ai", reason='the Inspect logs are read with inspect_ai (".[inspect]")')
    from_records = _sorted(read_input(RECORDS).frame)
    from_logs = _sorted(pd.concat([read_input(LOGS / "inspect").frame, read_input(LOGS / "harness").frame]))
    from_logs["chance"] = from_logs["chance"].fillna("")  # the Inspect logs' tasks carry no choices
    assert len(from_logs) == 144  # 2 models x 12 samples x 3 Inspect benchmarks + 3 models x 12 docs x 2 tasks
    pd.testing.assert_frame_equal(from_records, from_logs)  # every column: scores, dates, trials (epochs), floors
    # the floors: toy_mc's three choices (input.choices, as the harness's three logged requests), none elsewhere
    floors = from_records.groupby("benchmark")["chance"].agg(set).to_dict()
    assert floors == {
        "toy_binary": {""},
        "toy_credit/numeric": {""},
        "toy_credit/partial": {""},
        "toy_gen": {""},
        "toy_mc": {repr(1 / 3)},
    }
    assert validate_responses(from_records, "eee")["chance"].dropna().unique().tolist() == [1 / 3]
    assert set(from_records["benchmark"]) == {
        "toy_binary",
        "toy_credit/numeric",
        "toy_credit/partial",
        "toy_gen",
        "toy_mc",
    }
    # the harness's primary result only: toy_gen's strict filter, not its loose one, which scores higher
    loose = json.loads(_record(RECORDS, "toy_gen").read_text())["evaluation_results"][1]
    assert loose["evaluation_name"] == "toy_gen/loose"
    gen = from_records[from_records["benchmark"] == "toy_gen"]
    assert gen.groupby("model")["score"].apply(lambda s: s.astype(float).mean()).max() < 0.9


def test_the_audit_of_records_is_the_audit_of_their_logs(capsys):
    pytest.importorskip("inspect_ai", reason='the Inspect logs are read with inspect_ai (".[inspect]")')
    assert main(["audit", str(RECORDS), "--json"]) == 0
    records = {r["benchmark"]: r for r in json.loads(capsys.readouterr().out)}
    harness = LOGS / "harness"
    assert main(["audit", str(harness), "--json"]) == 0
    logs = {r["benchmark"]: r for r in json.loads(capsys.readouterr().out)}
    for name, rec in logs.items():
        assert {k: rec[k] for k in ("n_items", "n_models", "top1", "saturation_index")} == {
            k: records[name][k] for k in ("n_items", "n_models", "top1", "saturation_index")
        }


@pytest.mark.parametrize(
    ("change", "field", "value"),
    [
        (
            lambda r: r["source_metadata"].update(evaluator_relationship="friend"),
            "source_metadata.evaluator_relationship",
            "friend",
        ),
        (
            lambda r: r["evaluation_results"][0]["score_details"].update(score="high"),
            "evaluation_results[0].score_details.score",
            "high",
        ),
        (lambda r: r["model_info"].pop("id"), "model_info.id", None),
    ],
)
def test_an_invalid_record_is_one_line_naming_the_file_the_field_and_the_value(tmp_path, change, field, value):
    folder = _copy(tmp_path)
    path = _record(folder, "toy_mc")
    record = json.loads(path.read_text())
    change(record)
    path.write_text(json.dumps(record))
    with pytest.raises(InputError) as err:
        read_input(folder)
    text = str(err.value)
    assert "\n" not in text and str(path) in text and f"'{field}'" in text
    assert err.value.field == field
    assert (f"(value: {value!r})" in text) if value is not None else "value:" not in text


def test_an_invalid_samples_line_names_the_file_the_line_the_field_and_the_value(tmp_path):
    folder = _copy(tmp_path)
    path = _record(folder, "toy_mc")
    samples = path.with_name(path.stem + "_samples.jsonl")
    lines = samples.read_text().splitlines()
    row = json.loads(lines[4])
    row["evaluation"]["score"] = "1"
    lines[4] = json.dumps(row)
    samples.write_text("\n".join(lines) + "\n")
    record = json.loads(path.read_text())  # the record's checksum made to match: the line itself is at fault
    record["detailed_evaluation_results"]["checksum"] = hashlib.sha256(samples.read_bytes()).hexdigest()
    path.write_text(json.dumps(record))
    with pytest.raises(InputError) as err:
        read_input(folder)
    assert str(samples) in str(err.value) and "line 5" in str(err.value)
    assert err.value.field == "evaluation.score" and err.value.value == "1"


def test_samples_that_are_not_the_ones_the_record_names_are_refused(tmp_path):
    folder = _copy(tmp_path)
    path = _record(folder, "toy_gen")
    samples = path.with_name(path.stem + "_samples.jsonl")
    samples.write_text(samples.read_text().replace('"score": 0.0', '"score": 1.0', 1))
    with pytest.raises(InputError) as err:
        read_input(folder)
    assert err.value.field == "detailed_evaluation_results.checksum" and str(samples) in str(err.value)
    samples.unlink()
    with pytest.raises(InputError, match="its samples file is not beside it"):
        read_input(folder)


def test_a_score_outside_its_metrics_range_is_an_error_and_bounds_scale_it(tmp_path):
    folder = _copy(tmp_path)
    path = _record(folder, "toy_binary")
    record = json.loads(path.read_text())
    record["evaluation_results"][0]["metric_config"].update(min_score=0.0, max_score=0.5)
    path.write_text(json.dumps(record))
    with pytest.raises(InputError, match="outside its metric's range") as err:
        read_input(folder / "toy_binary")
    assert err.value.field == "evaluation.score" and err.value.value == 1.0
    record["evaluation_results"][0]["metric_config"].update(max_score=1.0, lower_is_better=True)
    path.write_text(json.dumps(record))
    flipped = read_input(path).frame
    plain = read_input(RECORDS / "toy_binary").frame
    plain = plain[plain["model"] == flipped["model"].iloc[0]]
    assert (1 - flipped["score"].astype(float).to_numpy() == plain["score"].astype(float).to_numpy()).all()


def test_real_records_of_the_repository_older_schemas_fail_in_one_line_and_the_template_reads(shared_upstream):
    root = shared_upstream.root / "eee" / "tests" / "data"
    old = root / "98ea850e-7019-4728-a558-8b1819ec47c2.json"  # HF Open LLM v2, schema 0.2.0
    with pytest.raises(InputError) as err:
        read_input(old)
    assert "\n" not in str(err.value) and str(old) in str(err.value) and err.value.field
    template = root / "skill_reference_conversion" / "data"
    table = read_input(template)
    assert len(table.frame) == 1 and table.frame["model"].tolist() == ["demo-org/demo-model"]


def test_a_record_without_samples_is_a_board_row(tmp_path, capsys):
    folder = _copy(tmp_path)
    path = _record(folder, "toy_mc")
    record = json.loads(path.read_text())
    del record["detailed_evaluation_results"]
    path.write_text(json.dumps(record))
    table = read_input(path)
    assert table.frame.empty
    board = table.aggregates
    assert board[["benchmark", "n_items"]].values.tolist() == [["toy_mc", "12"]]
    assert float(board["score"].iloc[0]) == record["evaluation_results"][0]["score_details"]["score"]
    assert main(["audit", str(path)]) != 0
    assert "holds board scores only" in capsys.readouterr().err
    for other in sorted((folder / "toy_mc").rglob("*.json")):  # all three models' records without samples
        record = json.loads(other.read_text())
        record.pop("detailed_evaluation_results", None)
        other.write_text(json.dumps(record))
    reports = tmp_path / "reports"
    assert main(["run", "--input", str(folder / "toy_mc"), "--reports", str(reports), "--no-site"]) == 0
    (published,) = json.loads((reports / "latest.json").read_text())["benchmarks"]
    assert (published["benchmark"], published["kind"], published["n_models"]) == ("toy_mc", "aggregate", 3)


def test_the_long_table_written_out_as_records_reads_back_and_writes_the_same_bytes(tmp_path, capsys):
    pytest.importorskip("inspect_ai", reason='the Inspect logs are read with inspect_ai (".[inspect]")')
    out = tmp_path / "out"
    assert main(["audit", str(LOGS), "--eee-out", str(out)]) == 0
    capsys.readouterr()
    written = sorted(out.rglob("*"))
    assert sum(p.name.endswith("_samples.jsonl") for p in written) == 12  # one record a (benchmark, model)
    rows = validate_responses(read_input(LOGS).frame, "logs")
    back = validate_responses(read_input(out).frame, "out")
    # the records written carry no input.choices (bot/benchwatch/store/eee_records.py): toy_mc's floors do not return
    assert "chance" in rows.columns and "chance" not in back.columns
    rows = rows.drop(columns="chance")
    pd.testing.assert_frame_equal(back.drop(columns="score"), rows.drop(columns="score"))
    assert (back["score"] - rows["score"]).abs().max() < 1e-12
    again = eee_records(rows, source="logs")
    assert again == {str(p.relative_to(out)): p.read_bytes() for p in written if p.is_file()}
    for path in (p for p in written if p.suffix == ".json"):  # the datastore's layout and its own path rule
        record = json.loads(path.read_text())
        assert str(path.relative_to(out)).startswith("data/") and len(path.relative_to(out).parts) == 5
        assert record["detailed_evaluation_results"]["file_path"] == str(
            path.relative_to(out).with_name(path.stem + "_samples.jsonl")
        )


def test_the_datastore_adapter_fetches_each_record_once_across_runs(tmp_path):
    from tests.sources.upstream_server import Upstream

    root = tmp_path / "upstream"
    shutil.copytree(RECORDS, root / "data")
    index = root / "flat" / "indexes" / "by_collection"
    index.mkdir(parents=True)
    for collection in ("toy_mc", "toy_gen"):
        lines = []
        for path in sorted((root / "data" / collection).rglob("*.json")):
            body = path.read_bytes()
            lines.append(
                json.dumps(
                    {
                        "benchmark": collection,
                        "eval_schema_version": "0.3.0",
                        "legacy_path": str(path.relative_to(root)),
                        "object_path": f"flat/objects/{path.name}",
                        "object_uuid": path.stem,
                        "record_type": "aggregate",
                        "sha256": hashlib.sha256(body).hexdigest(),
                        "size_bytes": len(body),
                    },
                    sort_keys=True,
                )
            )
        (index / f"{collection}.jsonl").write_text("\n".join(lines) + "\n")
    with Upstream(root) as server:
        cfg = SourceConfig(
            "eee", "eee", server.url.rstrip("/"), {"collections": ["toy_mc", "toy_gen"], "max_records": 2}
        )
        tables = []
        for _ in range(4):
            with Fetcher(tmp_path / "cache", retries=0) as fetcher:
                tables.append(load_source(fetcher, cfg))
        hits = {path: n for path, n in server.hits.items() if path.startswith("/data/")}
    assert len(hits) == 12 and set(hits.values()) == {1}  # 6 records and their samples, each fetched once
    assert any("4 record(s) not fetched yet" in n for n in tables[0].notes)
    assert any("2 record(s) not fetched yet" in n for n in tables[1].notes) and not tables[2].notes
    want = read_input(RECORDS).frame
    want = _sorted(want[want["benchmark"].isin(["toy_mc", "toy_gen"])])
    pd.testing.assert_frame_equal(_sorted(tables[3].frame), want)
    assert tables[2].frame.equals(tables[3].frame)
