"""The BFCL leaderboard adapter (issue 59): the site's published tables, one dated version at a time. Fixture tests
in the tables' own shape (``../shared/upstream/gorilla_bfcl/``: ``Rank, Model, <headline>, ...``, percent strings,
``N/A``, no final newline) for each rule, and a real-file test over loopback against the five real versions read
independently with the csv module."""

from __future__ import annotations

import csv
import io

import pytest

from benchwatch.errors import InputError
from benchwatch.sources import Fetcher, SourceConfig, load_source
from benchwatch.sources.adapters.bfcl_leaderboard import BOARDS, Options
from benchwatch.sources.options import OptionError
from benchwatch.store import validate_aggregates

NON_LIVE_OLD, NON_LIVE_NEW = "Non_Live Overall Acc", "Non-Live Overall Acc"


def _table(root, path: str, header: list[str], rows: list[list[str]]) -> None:
    """A table as the site writes it: comma-separated, no newline after the last row."""
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows([header, *rows])
    (root / path).parent.mkdir(parents=True, exist_ok=True)
    (root / path).write_text(out.getvalue().rstrip("\n"), encoding="utf-8")


def _overall(root, day: str, rows: list[tuple[str, str, str]], cost: str = "1.5") -> None:
    """``data_overall.csv``: model, Overall Acc, Multi Turn Acc (Live Acc 33%; cost, latency and rank beside them)."""
    header = ["Rank", "Overall Acc", "Model", "Cost ($ Per 1k Function Calls)", "Latency Mean (s)", "Live Acc"]
    body = [[str(k), o, m, cost, "N/A", "33.00%", t] for k, (m, o, t) in enumerate(rows)]
    _table(root, f"{day}/data_overall.csv", [*header, "Multi Turn Acc"], body)


def _category(root, day: str, file: str, column: str, rows: list[tuple[str, str]]) -> None:
    header = ["Rank", "Model", column, "AST Summary"]
    _table(root, f"{day}/{file}", header, [[str(k), m, s, "12.00%"] for k, (m, s) in enumerate(rows)])


def _load(server, tmp_path, versions: dict, **options):
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        cfg = SourceConfig("bfcl_leaderboard", "bfcl_leaderboard", server.url, {"versions": versions, **options})
        return load_source(fetcher, cfg)


def _board(table, label: str) -> dict[str, tuple[float, int, str]]:
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    part = aggs[aggs["benchmark"] == label]
    dates = part["date"].dt.strftime("%Y-%m-%d")
    return {m: (s, n, d) for m, s, n, d in zip(part["model"], part["score"], part["n_items"], dates, strict=True)}


def _three_versions(root) -> dict:
    """2024-11-01: a, b; 2025-01-19: a, b rescored, no new model; 2025-12-16: a, c (b gone), the non-live header
    renamed and the V4 test sets."""
    _overall(root, "2024-11-01", [("a", "50.00%", "10.00%"), ("b", "40.00%", "20.00%")])
    _category(root, "2024-11-01", "data_non_live.csv", NON_LIVE_OLD, [("a", "80.00%"), ("b", "70.00%")])
    _overall(root, "2025-01-19", [("a", "51.00%", "10.00%"), ("b", "40.00%", "20.00%")])
    _category(root, "2025-01-19", "data_non_live.csv", NON_LIVE_OLD, [("a", "81.00%"), ("b", "70.00%")])
    _overall(root, "2025-12-16", [("a", "60.25%", "11.00%"), ("c", "30.00%", "N/A")])
    _category(root, "2025-12-16", "data_non_live.csv", NON_LIVE_NEW, [("a", "90.53%"), ("c", "N/A")])
    files = ["data_overall.csv", "data_non_live.csv"]
    # given out of date order: the adapter reads them in date order
    return {d: {"prefix": f"{d}/", "files": files} for d in ("2025-12-16", "2024-11-01", "2025-01-19")}


def test_each_benchmark_the_newest_versions_scores_its_models_dated_by_their_first_version(fixture_server, tmp_path):
    table = _load(fixture_server, tmp_path, _three_versions(fixture_server.root))
    overall = _board(table, "overall")
    # the newest version's scores and test-set size (V4: 5,090 items); a dated by its first version, c by its own
    assert overall == {"a": (pytest.approx(0.6025), 5090, "2024-11-01"), "c": (pytest.approx(0.30), 5090, "2025-12-16")}
    # the renamed non-live header is one benchmark: a's history spans both names
    assert _board(table, "non-live") == {"a": (pytest.approx(0.9053), 1150, "2024-11-01")}
    # multi-turn from data_overall.csv's Multi Turn Acc where the version has no data_multi_turn.csv
    assert set(_board(table, "multi-turn")) == {"a"}
    # b is no longer listed: left out, said; c's N/A is no score, never a 0
    gone = {(e["benchmark"], e["model"]): e["reason"] for e in table.excluded}
    assert gone[("overall", "b")].startswith("not in the newest version with this benchmark (2025-12-16: not listed")
    assert "last scored 2025-01-19" in gone[("overall", "b")]
    assert ("non-live", "c") not in gone and "c" not in _board(table, "non-live")
    assert any(n.startswith("2 N/A accuracy cell(s) read as no score") for n in table.notes), table.notes
    assert "non-live: read from data_non_live.csv: Non_Live Overall Acc (2024-11-01 to 2025-01-19); " in "\n".join(
        table.notes
    )
    assert table.provenance["release"] == table.provenance["upstream_date"] == "2025-12-16"


def test_a_version_whose_listed_models_scores_moved_is_named_a_rescoring(fixture_server, tmp_path):
    versions = _three_versions(fixture_server.root)
    two = _load(fixture_server, tmp_path / "two", {d: versions[d] for d in ("2024-11-01", "2025-01-19")})
    # 2025-01-19: a's overall and non-live moved, b's did not, live and multi-turn neither, no model new
    assert "2025-01-19: rescored: 2 of 8 scores moved, no new model" in two.notes, two.notes
    assert set(two.rescored) == {"overall", "non-live"}
    assert two.rescored["overall"] == (
        "rescored upstream on 2025-01-19: 1 of the 2 models listed on 2024-11-01 have other scores "
        "(the benchmark's checker changed): a rescoring, not progress"
    )
    # 2025-12-16 brings c and moves listed models' scores: a rescoring all the same (new models do not make moved
    # scores progress); its test sets changed (V4), which is said, the newest word
    notes = list(_load(fixture_server, tmp_path / "all", versions).notes)
    assert "2025-12-16: rescored: 3 of 4 scores moved, 1 new model(s)" in notes, notes
    assert "2025-12-16: non-live: test set changed from 1,700 to 1,150 items (BFCL's own change)" in notes
    table = _load(fixture_server, tmp_path / "again", versions)
    assert table.rescored["non-live"].startswith("test set changed upstream on 2025-12-16 (1,700 to 1,150 items)")
    # live: 2,251 to 1,351 items; multi-turn kept its test set and moved: rescored
    assert set(table.rescored) == {"overall", "non-live", "live", "multi-turn"}
    assert table.rescored["multi-turn"].startswith("rescored upstream on 2025-12-16")


def test_percent_strings_are_the_only_scores_read(fixture_server, tmp_path):
    """A bare number, an empty cell or a percentage above 100% in an accuracy column is refused, naming the file,
    the model, the column and the value; cost, latency and rank are never read (any text there is left alone)."""
    root = fixture_server.root
    one = {"2025-12-16": {"prefix": "v/", "files": ["data_overall.csv"]}}
    _overall(root, "v", [("a", "100.00%", "0.00%"), ("b", "7.5%", "N/A")], cost="a lot")
    board = _board(_load(fixture_server, tmp_path / "ok", one), "overall")
    assert board["a"][0] == 1.0 and board["b"][0] == pytest.approx(0.075)
    for k, (cell, words) in enumerate([("90.53", "not a percent string"), ("", "not a percent"), ("100.5%", "above")]):
        _overall(root, "v", [("a", "50.00%", "1.00%"), ("model b", cell, "1.00%")])
        with pytest.raises(InputError) as info:
            _load(fixture_server, tmp_path / str(k), one)
        text = str(info.value)
        assert all(w in text for w in ("v/data_overall.csv", "'model b'", "'Overall Acc'", words, repr(cell))), text


def test_a_table_without_a_benchmarks_column_is_refused_naming_the_names_looked_for(fixture_server, tmp_path):
    root = fixture_server.root
    _category(root, "v", "data_non_live.csv", "NonLive Acc", [("a", "80.00%")])
    with pytest.raises(InputError) as info:
        _load(fixture_server, tmp_path, {"2025-12-16": {"prefix": "v/", "files": ["data_non_live.csv"]}})
    text = str(info.value)
    assert "v/data_non_live.csv" in text and f"{NON_LIVE_OLD} or {NON_LIVE_NEW}" in text, text


def test_a_category_file_wins_over_the_overall_tables_column(fixture_server, tmp_path):
    root = fixture_server.root
    _overall(root, "v", [("a", "50.00%", "10.00%")])
    _category(root, "v", "data_multi_turn.csv", "Multi Turn Overall Acc", [("a", "12.50%")])
    both = {"2025-01-19": {"prefix": "v/", "files": ["data_overall.csv", "data_multi_turn.csv"]}}
    table = _load(fixture_server, tmp_path, both)
    assert _board(table, "multi-turn") == {"a": (pytest.approx(0.125), 800, "2025-01-19")}
    assert _board(table, "overall") == {"a": (pytest.approx(0.5), 4751, "2025-01-19")}  # V3, executable era


def test_one_model_listed_twice(fixture_server, tmp_path):
    root = fixture_server.root
    one = {"2025-12-16": {"prefix": "v/", "files": ["data_non_live.csv"]}}
    _table(root, "v/data_non_live.csv", ["Rank", "Model", NON_LIVE_NEW], [["1", "a", "50.00%"], ["1", "a", "50.00%"]])
    table = _load(fixture_server, tmp_path / "same", one)
    assert list(_board(table, "non-live")) == ["a"]
    assert any("repeated whole: read once" in n for n in table.notes), table.notes
    _table(root, "v/data_non_live.csv", ["Rank", "Model", NON_LIVE_NEW], [["1", "a", "50.00%"], ["2", "a", "40.00%"]])
    with pytest.raises(InputError, match="two rows for one") as info:
        _load(fixture_server, tmp_path / "other", one)
    assert "v/data_non_live.csv" in str(info.value)


@pytest.mark.parametrize(
    ("versions", "field"),
    [
        ({}, "no versions"),
        ({"2025-13-01": {"prefix": "v/", "files": ["data.csv"]}}, "2025-13-01"),
        ({"2025-01-01": {"prefix": "../v/", "files": ["data.csv"]}}, "versions.2025-01-01.prefix"),
        ({"2025-01-01": {"prefix": "https://example.invalid/", "files": ["data.csv"]}}, "prefix"),
        ({"2025-01-01": {"prefix": "v", "files": ["data.csv"]}}, "prefix"),
        ({"2025-01-01": {"prefix": "v/", "files": ["data_format_sensitivity.csv"]}}, "data_format_sensitivity"),
        ({"2025-01-01": {"prefix": "v/", "files": []}}, "versions.2025-01-01.files"),
        ({"2025-01-01": {"prefix": "v/", "files": ["data.csv", "data.csv"]}}, "files"),
    ],
)
def test_a_malformed_version_is_refused_before_any_fetch(fixture_server, tmp_path, versions, field):
    with pytest.raises(InputError) as info:
        _load(fixture_server, tmp_path, versions)
    assert field in str(info.value)
    assert not fixture_server.hits, "nothing is fetched"


def test_a_mistyped_version_is_an_option_error():
    versions = {"2025-01-01": {"prefix": "v/", "file": []}}
    with pytest.raises(OptionError, match=r"versions\.2025-01-01\.file"):
        Options.of(SourceConfig("b", "bfcl_leaderboard", "u", {"versions": versions}))


# -- the real versions ------------------------------------------------------------------------------------------

# Each benchmark's column in each real version, written out here independently of the adapter's table.
V3_V4 = ("2024-10-21", "2025-01-19", "2025-04-14", "2025-12-16")
REAL_COLUMNS = {
    "v1 overall": {"2024-08-14": ("data.csv", "Overall Acc")},
    "v1 AST": {"2024-08-14": ("data.csv", "AST Summary")},
    "v1 exec": {"2024-08-14": ("data.csv", "Exec Summary")},
    "v1 relevance detection": {"2024-08-14": ("data.csv", "Relevance Detection")},
    "overall": {d: ("data_overall.csv", "Overall Acc") for d in V3_V4},
    "non-live": {
        **{d: ("data_non_live.csv", NON_LIVE_OLD) for d in ("2024-10-21", "2025-01-19", "2025-04-14")},
        "2025-12-16": ("data_non_live.csv", NON_LIVE_NEW),
    },
    "live": {d: ("data_live.csv", "Live Overall Acc") for d in V3_V4},
    "multi-turn": {
        "2024-10-21": ("data_overall.csv", "Multi Turn Acc"),
        **{d: ("data_multi_turn.csv", "Multi Turn Overall Acc") for d in ("2025-01-19", "2025-04-14", "2025-12-16")},
    },
    "agentic": {"2025-12-16": ("data_agentic.csv", "Agentic Overall Acc")},
}


def _real_cells(root, day: str, file: str, column: str) -> dict[str, str]:
    with open(root / day / file, encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert column in rows[0], (day, file, column)  # the renamed headers, as written in each real file
    return {r["Model"].strip(): r[column] for r in rows}


def test_bfcl_leaderboard_real_versions_columns_scores_dates(shared_upstream, tmp_path):
    """The shipped configuration on the five real versions: every published score equals its cell in the newest
    version that has the benchmark (read here with the csv module), every date the first version whose cell for
    the model is a score, the renamed non-live header one benchmark, the models no longer listed left out."""
    from benchwatch.sources import load_config
    from tests.sources.shipped import shipped_config_on

    root = shared_upstream.root / "gorilla_bfcl"
    cfg = load_config(shipped_config_on(shared_upstream, tmp_path)).sources["bfcl_leaderboard"]
    assert sorted(cfg.options["versions"]) == sorted(p.name for p in root.iterdir() if p.is_dir())
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        table = load_source(fetcher, cfg)
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    assert set(aggs["benchmark"]) == {"BFCL leaderboard " + b.label for b in BOARDS} and len(REAL_COLUMNS) == 9
    dropped = 0
    for label, by_day in REAL_COLUMNS.items():
        cells = {d: _real_cells(root, d, f, c) for d, (f, c) in by_day.items()}
        newest = max(cells)
        scores = {m: float(v.rstrip("%")) / 100 for m, v in cells[newest].items() if v != "N/A"}
        board = _board(table, "BFCL leaderboard " + label)
        assert {m: s for m, (s, _, _) in board.items()} == pytest.approx(scores), label
        for model, (_, _, day) in board.items():
            assert day == min(d for d, c in cells.items() if c.get(model, "N/A") != "N/A"), (label, model)
        dropped += len({m for d, c in cells.items() if d != newest for m, v in c.items() if v != "N/A"} - set(scores))
    assert len(aggs) == 829 and aggs["model"].nunique() == 178 and len(table.excluded) == dropped == 500
    # the renamed non-live header spans versions: models of 2024-10-21 keep that date under the 2025-12-16 name
    non_live = _board(table, "BFCL leaderboard non-live")
    assert non_live["Llama-3.1-8B-Instruct (Prompt)"][2] == "2024-10-21"
    assert non_live["Llama-3.1-8B-Instruct (Prompt)"][1] == 1150
    assert sorted({d for _, _, d in non_live.values()}) == list(V3_V4)
    assert any("Non_Live Overall Acc (2024-10-21 to 2025-04-14); data_non_live.csv: Non-Live" in n for n in table.notes)
    assert "2025-04-14: non-live: test set changed from 1,700 to 1,390 items (BFCL's own change)" in table.notes
