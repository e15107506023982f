"""LLM Stats (issue 59): model cards with self-reported scores, found through a listing in GitHub's git trees shape.
Fixture cards follow the repository's schema (``schemas/models-schema.json``) and the real cards' oddities (SOURCE.md
of ../shared/upstream/llmstats); the real copy is read over loopback and checked against its JSON read here."""

from __future__ import annotations

import json
import tomllib
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from benchwatch.errors import InputError
from benchwatch.sources import Fetcher, SourceConfig, load_source
from benchwatch.store import validate_aggregates
from tests.conftest import ROOT, SHARED

SIZES = {"GPQA": 198, "MMLU": 14042, "AIME 2024": 30}


def _entry(name: str, score: object, method: str = "0-shot", own: bool = True) -> dict:
    return {
        "dataset_name": name,
        "score": score,
        "is_self_reported": own,
        "analysis_method": method,
        "date_recorded": "2024-10-22",
        "source_link": "https://example.invalid/post",
    }


def _card(name: str, release: str, metrics: list[dict]) -> dict:
    return {"name": name, "description": "a model", "release_date": release, "qualitative_metrics": metrics}


def _serve(root: Path, cards: dict[str, dict | str]) -> None:
    """The cards under ``ls/`` (path -> JSON document, or a body as sent) and ``ls/tree.json``, their listing."""
    tree = [{"path": "models", "mode": "040000", "type": "tree"}, {"path": "README.md", "type": "blob"}]
    for path, doc in cards.items():
        target = root / "ls" / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2))
        tree.append({"path": path, "mode": "100644", "type": "blob"})
    (root / "ls" / "tree.json").write_text(json.dumps({"sha": "0" * 40, "tree": tree, "truncated": False}))


def _load(server, tmp_path, sizes: dict | None = None, prefix: str = "LLM Stats "):
    options = {"index": server.url + "ls/tree.json", "benchmarks": SIZES if sizes is None else sizes}
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        return load_source(
            fetcher, SourceConfig("llmstats", "llmstats", server.url + "ls/", options | {"prefix": prefix})
        )


SONNET = "models/anthropic/claude-3-5-sonnet-20241022/model.json"
SONNET_OLD = "models/anthropic/claude-3-5-sonnet-20240620/model.json"
DISTILL = "models/deepseek/deepseek-r1-distill-qwen-7b/model.json"


def test_a_model_is_its_folders_id_dated_by_its_release_and_only_configured_names_are_read(fixture_server, tmp_path):
    """Two versions under one display name stay two models; the rows are dated by release_date; an unconfigured
    name is counted in a note, a configured name no card lists is said; the table is marked self-reported."""
    _serve(
        fixture_server.root,
        {
            SONNET: _card("Claude 3.5 Sonnet", "2024-10-22", [_entry("GPQA", 0.65), _entry("MT-Bench", 8.99)]),
            SONNET_OLD: _card("Claude 3.5 Sonnet", "2024-06-20", [_entry("GPQA", 0.594), _entry("MMLU", 0.887)]),
            "models/README.md": "not a card",
            "models/anthropic/notes/extra/model.json": "{}",  # one level too deep: not a card
        },
    )
    table = _load(fixture_server, tmp_path)
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    got = {(r.benchmark, r.model): (r.score, r.n_items, str(r.date)[:10]) for r in aggs.itertuples()}
    assert got == {
        ("LLM Stats GPQA", "claude-3-5-sonnet-20241022"): (0.65, 198, "2024-10-22"),
        ("LLM Stats GPQA", "claude-3-5-sonnet-20240620"): (0.594, 198, "2024-06-20"),
        ("LLM Stats MMLU", "claude-3-5-sonnet-20240620"): (0.887, 14042, "2024-06-20"),
    }
    assert "1 benchmark name(s) with 1 score(s) not read: no test-set size configured" in table.notes
    assert table.gone == ("LLM Stats AIME 2024",)
    assert table.provenance["self_reported"] is True and table.provenance["adapter"] == "llmstats"
    assert table.frame.empty and not table.excluded


def test_one_name_twice_in_a_card_told_apart_by_method_is_left_out_naming_both(fixture_server, tmp_path):
    """``AIME 2024`` Pass@1 and Cons@64 are two measures: neither is read, both listed with their values; an entry
    repeated whole is read once."""
    metrics = [_entry("AIME 2024", 0.555, "Pass@1"), _entry("AIME 2024", 0.833, "Cons@64"), _entry("GPQA", 0.491)]
    _serve(fixture_server.root, {DISTILL: _card("R1 Distill Qwen 7B", "2025-01-20", [*metrics, metrics[2]])})
    table = _load(fixture_server, tmp_path)
    assert list(table.aggregates["benchmark"]) == ["LLM Stats GPQA"]
    assert list(table.aggregates["score"]) == ["0.491"]
    assert "1 score(s) listed again in one card with the same analysis_method and score: read once" in table.notes
    [gone] = table.excluded
    assert gone["benchmark"] == "LLM Stats AIME 2024" and gone["model"] == "deepseek-r1-distill-qwen-7b"
    assert DISTILL in gone["reason"] and "'Pass@1' 0.555" in gone["reason"] and "'Cons@64' 0.833" in gone["reason"]


def test_one_name_and_method_twice_with_two_scores_is_refused(fixture_server, tmp_path):
    metrics = [_entry("GPQA", 0.4442, "Diamond"), _entry("GPQA", 0.4596, "Diamond")]
    _serve(fixture_server.root, {SONNET: _card("Claude 3.5 Sonnet", "2024-10-22", metrics)})
    with pytest.raises(InputError) as info:
        _load(fixture_server, tmp_path)
    text = str(info.value)
    assert SONNET in text and "claude-3-5-sonnet-20241022" in text and "'GPQA'" in text and "twice" in text
    assert info.value.value == [0.4442, 0.4596]


def test_a_score_off_the_0_1_scale_is_left_out_naming_file_and_value(fixture_server, tmp_path):
    """MMLU 81.4 on a card (a percentage, or another measure: which cannot be told) is excluded with its file and
    value; the card's other scores and the other cards are read; off-scale scores of unread names are not looked at."""
    _serve(
        fixture_server.root,
        {
            SONNET: _card(
                "Claude", "2024-10-22", [_entry("MMLU", 81.4), _entry("GPQA", 0.6), _entry("CodeForces", 1977)]
            ),
            SONNET_OLD: _card("Claude", "2024-06-20", [_entry("MMLU", 0.887)]),
        },
    )
    table = _load(fixture_server, tmp_path, prefix="")
    assert sorted(zip(table.aggregates["benchmark"], table.aggregates["model"], strict=True)) == [
        ("GPQA", "claude-3-5-sonnet-20241022"),
        ("MMLU", "claude-3-5-sonnet-20240620"),
    ]
    [off] = table.excluded
    assert off["benchmark"] == "MMLU" and off["model"] == "claude-3-5-sonnet-20241022"
    assert SONNET in off["reason"] and "81.4" in off["reason"] and "0-1 scale" in off["reason"]


@pytest.mark.parametrize(
    ("card", "words"),
    [
        (_card("C", "2024-10-22", [_entry("GPQA", "0.6")]), ["qualitative_metrics[0].score", "'0.6'"]),
        (_card("C", "2024-10-22", [_entry("GPQA", True)]), ["GPQA", "not a number", "True"]),
        (_card("C", "2024-10-22", [{"score": 0.6}]), ["qualitative_metrics[0].dataset_name", "missing"]),
        (_card("C", "22/10/2024", [_entry("GPQA", 0.6)]), ["release_date", "22/10/2024", "claude-3-5-sonnet"]),
        ({"name": "C", "qualitative_metrics": []}, ["release_date", "missing"]),
        (_card("C", "2024-10-22", []) | {"qualitative_metrics": {}}, ["qualitative_metrics", "expected list"]),
        ('{"name": "C", "release_date": "2024-10-22", "qualitative_metrics": [', ["invalid or truncated JSON"]),
        (
            '{"name": "C", "score": NaN, "release_date": "2024-10-22", "qualitative_metrics": '
            '[{"dataset_name": "MMLU", "score": NaN}]}',
            ["MMLU", "not a number", "nan"],
        ),
    ],
)
def test_a_broken_card_is_refused_naming_the_file_field_and_value(fixture_server, tmp_path, card, words):
    _serve(fixture_server.root, {SONNET: card})
    with pytest.raises(InputError) as info:
        _load(fixture_server, tmp_path)
    text = str(info.value)
    assert SONNET in text and all(w in text for w in words), text


def test_an_id_under_two_organisations_is_named_with_each_and_a_dotted_path_never_followed(fixture_server, tmp_path):
    _serve(
        fixture_server.root,
        {
            "models/org-a/same-model/model.json": _card("A", "2024-01-01", [_entry("GPQA", 0.3)]),
            "models/org-b/same-model/model.json": _card("B", "2024-02-01", [_entry("GPQA", 0.4)]),
            "models/../up/model.json": _card("U", "2024-03-01", [_entry("GPQA", 0.5)]),  # a '..' part: not followed
        },
    )
    table = _load(fixture_server, tmp_path)
    assert sorted(table.aggregates["model"]) == ["org-a/same-model", "org-b/same-model"]
    assert (fixture_server.root / "ls" / "up" / "model.json").is_file()  # it was there to be read


def test_no_benchmarks_configured_or_no_card_listed_is_an_error(fixture_server, tmp_path):
    _serve(fixture_server.root, {"models/x/y/model.json": _card("Y", "2024-01-01", [])})
    with pytest.raises(InputError, match="no benchmarks configured"):
        _load(fixture_server, tmp_path, sizes={})
    with pytest.raises(InputError, match="test-set size") as info:
        _load(fixture_server, tmp_path, sizes={"GPQA": 0})
    assert info.value.field == "benchmarks.GPQA"
    _serve(fixture_server.root, {})  # the listing names no card
    (fixture_server.root / "ls" / "tree.json").write_text(json.dumps({"tree": [{"path": "a", "type": "blob"}]}))
    with pytest.raises(InputError, match="no model card under 'models/'"):
        _load(fixture_server, tmp_path)


def test_a_not_self_reported_score_is_kept_and_counted(fixture_server, tmp_path):
    _serve(
        fixture_server.root,
        {DISTILL: _card("D", "2025-01-20", [_entry("GPQA", 0.491, "Diamond, Pass@1", own=False), _entry("MMLU", 0.7)])},
    )
    table = _load(fixture_server, tmp_path)
    assert sorted(table.aggregates["score"]) == ["0.491", "0.7"]
    assert "1 score(s) read are marked is_self_reported false (reported by others): kept" in table.notes


# -- the real copy -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def llmstats_served(tmp_path_factory):
    """../shared/upstream served as its hosts serve it, ``llmstats/git-tree.json`` its listing (``served_root``)."""
    from tests.sources.shipped import served_root
    from tests.sources.upstream_server import Upstream

    if not (SHARED / "upstream" / "llmstats" / "models").is_dir():
        pytest.skip("../shared/upstream/llmstats is not here: it exists in CI and on the developers' machines only")
    root = served_root(SHARED / "upstream", tmp_path_factory.mktemp("llmstats"))
    with Upstream(root) as server:
        yield server


def _expected(sizes: dict[str, int]) -> tuple[dict, list, Counter, int]:
    """The real cards read here, independently: (benchmark, model) -> (score, release) for a configured name listed
    once (or repeated whole) on 0-1, the (benchmark, model) left out, the unconfigured names' counts, and how many
    of the scores read the cards mark is_self_reported false."""
    want, left, unread, others = {}, [], Counter(), 0
    for path in sorted((SHARED / "upstream" / "llmstats" / "models").glob("*/*/model.json")):
        card = json.loads(path.read_text())
        model = path.parent.name
        by_name = defaultdict(set)
        for m in card["qualitative_metrics"]:
            if m["dataset_name"] in sizes:
                by_name[m["dataset_name"]].add((m["analysis_method"], m["score"], m["is_self_reported"]))
            else:
                unread[m["dataset_name"]] += 1
        for name, entries in by_name.items():
            score = next(iter(entries))[1] if len(entries) == 1 else None  # two methods: two measures, none
            if score is None or not 0 <= score <= 1:
                left.append((name, model))
            else:
                want[(name, model)] = (score, card["release_date"])
                others += next(iter(entries))[2] is False
    return want, left, unread, others


def test_llmstats_real_cards_each_configured_score_once_self_reported(llmstats_served, tmp_path):
    """The 126 real cards through the shipped configuration's benchmarks: each score as the card gives it, dated by
    the model's release; the seven AIME 2024 Pass@1/Cons@64 pairs and mistral-small-3.1's GPQA Main/Diamond left
    out; every configured benchmark has at least five models."""
    shipped = tomllib.loads((ROOT / "benchwatch.toml").read_text())["sources"]["llmstats"]
    sizes = shipped["benchmarks"]
    server = llmstats_served
    options = {"index": server.url + "llmstats/git-tree.json", "benchmarks": sizes, "prefix": shipped["prefix"]}
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        table = load_source(fetcher, SourceConfig("llmstats", "llmstats", server.url + "llmstats/", options))
    want, left, unread, others = _expected(sizes)
    aggs = validate_aggregates(table.aggregates.astype(str), "test")
    got = {(r.benchmark.removeprefix("LLM Stats "), r.model): (r.score, str(r.date)[:10]) for r in aggs.itertuples()}
    assert got == want
    assert len(got) == 565 and aggs["model"].nunique() == 114 and aggs["benchmark"].nunique() == len(sizes) == 14
    assert all(aggs["benchmark"].str.startswith("LLM Stats "))
    assert dict(zip(aggs["benchmark"], aggs["n_items"], strict=True)) == {"LLM Stats " + k: v for k, v in sizes.items()}
    assert aggs.groupby("benchmark")["model"].nunique().min() >= 5
    assert sorted((e["benchmark"].removeprefix("LLM Stats "), e["model"]) for e in table.excluded) == sorted(left)
    assert sorted(left) == sorted(
        [("AIME 2024", m) for m in ("deepseek-r1-zero", *(f"deepseek-r1-distill-{s}" for s in DISTILLS))]
        + [("GPQA", "mistral-small-3.1-24b-instruct-2503")]
    )
    assert f"{len(unread)} benchmark name(s) with {sum(unread.values())} score(s) not read: " in "\n".join(table.notes)
    assert table.provenance["self_reported"] is True and not table.gone
    assert table.provenance["upstream_date"] == "2025-05-22"  # the commit's date, as the server sends it
    assert table.provenance["revision"].startswith("126files:")
    assert others == 47  # DeepSeek's figures for its distills, and others': kept
    assert f"{others} score(s) read are marked is_self_reported false (reported by others): kept" in table.notes
    # two versions under one display name stay two models
    assert {"claude-3-5-sonnet-20240620", "claude-3-5-sonnet-20241022"} <= set(aggs["model"])


DISTILLS = ("llama-70b", "llama-8b", "qwen-1.5b", "qwen-14b", "qwen-32b", "qwen-7b")


def test_the_shipped_block_reads_the_served_copy_through_its_listing(llmstats_served, tmp_path):
    """``served_root`` lists the plain llmstats folder in GitHub's git trees shape (``LISTED``), and the shipped
    ``[sources.llmstats]`` block, rewritten onto the server (its ``url`` and its ``index``: ``REAL``, ``OTHER_URLS``),
    reads every card through it."""
    from tests.sources.shipped import shipped_config_on

    server = llmstats_served
    listing = json.loads((server.root / "llmstats" / "git-tree.json").read_text())
    cards = sorted(e["path"] for e in listing["tree"] if e["path"].endswith("/model.json"))
    real = SHARED / "upstream" / "llmstats"
    assert cards == sorted(p.relative_to(real).as_posix() for p in real.glob("models/*/*/model.json"))
    assert len(cards) == 126 and listing["truncated"] is False and {e["type"] for e in listing["tree"]} == {"blob"}
    block = tomllib.loads(Path(shipped_config_on(server, tmp_path)).read_text())["sources"]["llmstats"]
    assert block["url"] == server.url + "llmstats/" and block["index"] == server.url + "llmstats/git-tree.json"
    options = {k: v for k, v in block.items() if k not in ("adapter", "url")}
    with Fetcher(tmp_path / "cache", retries=0) as fetcher:
        table = load_source(fetcher, SourceConfig("llmstats", block["adapter"], block["url"], options))
    assert len(table.aggregates) == 565 and len(table.excluded) == 8
    assert table.provenance["homepage"] == "https://llm-stats.com/" and table.provenance["self_reported"] is True
    assert fetcher.log and all(d.url.startswith(server.url + "llmstats/") for d in fetcher.log)
