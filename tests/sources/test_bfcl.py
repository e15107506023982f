"""BFCL's per-item score files (issue 59): a category a benchmark, each dated snapshot a publication, a model dated by
the first snapshot that lists it, and a snapshot that moves the scores of models already listed named a rescoring
in the changelog and the alerts, never taken for progress."""

from __future__ import annotations

import json
import re
import zipfile

import pytest

from benchwatch.errors import InputError
from tests.sources.test_adapters_fixtures import _load

LINE1 = '{{"accuracy": {acc}, "correct_count": {right}, "total_count": {total}}}'


def _score_file(total: int, failed: list[int]) -> str:
    right = total - len(failed)
    lines = [LINE1.format(acc=right / total, right=right, total=total)]
    return "\n".join(lines + [json.dumps({"id": k}) for k in failed]) + "\n"


def _serve(server, files: dict[str, str]) -> None:
    """Score files under their repository paths, and the listing GitHub's git trees API gives of them."""
    for path, body in files.items():
        (server.root / path).parent.mkdir(parents=True, exist_ok=True)
        (server.root / path).write_text(body)
    tree = [{"path": p, "type": "blob"} for p in files] + [{"path": "2024-07-06", "type": "tree"}]
    (server.root / "tree.json").write_text(json.dumps({"tree": tree, "truncated": False}))


def _read(server, tmp_path):
    return _load(server, tmp_path, "bfcl", "", index=server.url + "tree.json")


def test_bfcl_dates_a_model_by_its_first_snapshot_and_names_a_rescoring(fixture_server, tmp_path):
    """Three snapshots: a is listed from the first, b joins in the second (a unchanged: no rescoring), the third
    moves a's score with no new model (a rescoring, named); c, listed only in the first, is left out, named."""
    _serve(
        fixture_server,
        {
            "2024-07-06/score-BFCL/a/simple_score.json": _score_file(4, [1]),
            "2024-07-06/score-BFCL/c/simple_score.json": _score_file(4, []),
            "2024-07-20/score/a/simple_score.json": _score_file(4, [1]),
            "2024-07-20/score/b/simple_score.json": _score_file(4, [2, 3]),
            "2024-08-11/score/a/simple_score.json": _score_file(4, [1, 4]),
            "2024-08-11/score/b/simple_score.json": _score_file(4, [2, 3]),
            "2024-08-11/result/a/simple_result.json": "not a score file: not read",
        },
    )
    table = _read(fixture_server, tmp_path)
    frame = table.frame
    assert set(frame["benchmark"]) == {"BFCL simple"}
    assert frame.groupby("model")["date"].first().to_dict() == {"a": "2024-07-06", "b": "2024-07-20"}
    scores = frame.set_index(["model", "item_id"])["score"]
    assert [scores["a", f"simple_{k}"] for k in range(4)] == ["0", "1", "1", "0"]  # the newest snapshot's
    assert [scores["b", f"simple_{k}"] for k in range(4)] == ["1", "0", "0", "1"]
    assert [(e["model"], e["reason"]) for e in table.excluded] == [("c", "not in the newest snapshot (2024-08-11)")]
    assert table.notes == ("2024-08-11: rescored: 1 of 2 (model, category) scores moved, no new model",)
    assert table.rescored == {
        "BFCL simple": "rescored upstream on 2024-08-11: 1 of the 2 models listed on 2024-07-20 have other scores "
        "(the benchmark's checker changed): a rescoring, not progress"
    }


@pytest.mark.parametrize(
    ("body", "words"),
    [
        (LINE1.format(acc=0.75, right=3, total=4) + "\n", ["correct_count", "0 failure lines of 4"]),
        (_score_file(4, [5]), ["'id'", "not an id in 1..4", "5"]),
        (_score_file(4, [2]).rstrip() + '\n{"id": 2}\n', ["given twice"]),
        ('{"accuracy": 0.5, "total_count": 4}\n', ["total_count", "whole counts"]),
        (LINE1.format(acc=0.9, right=4, total=4) + "\n", ["accuracy", "not 4 of 4"]),
    ],
)
def test_bfcl_refuses_a_score_file_it_cannot_read_naming_it(fixture_server, tmp_path, body, words):
    path = "2024-08-11/score/a/simple_score.json"
    _serve(fixture_server, {path: body})
    with pytest.raises(InputError) as info:
        _read(fixture_server, tmp_path)
    assert path in str(info.value) and all(w in str(info.value) for w in words), str(info.value)


def test_bfcl_refuses_a_category_of_two_sizes(fixture_server, tmp_path):
    _serve(
        fixture_server,
        {
            "2024-07-20/score/a/java_score.json": _score_file(4, []),
            "2024-08-11/score/a/java_score.json": _score_file(5, []),
        },
    )
    with pytest.raises(InputError, match="java has 4 items elsewhere"):
        _read(fixture_server, tmp_path)


def test_a_rescoring_is_named_in_the_changelog_and_raises_its_alert(fixture_server, tmp_path):
    """A run reads two snapshots whose second moves a listed model's scores: the benchmark's changelog entry says it
    was rescored upstream, an alert of kind ``rescored`` names it, and the page's changes say so."""
    import benchwatch

    files = {f"2024-07-20/score/m{k}/simple_score.json": _score_file(6, list(range(1, k + 1))) for k in range(1, 5)}
    files |= {f"2024-08-11/score/m{k}/simple_score.json": _score_file(6, list(range(1, k + 2))) for k in range(1, 5)}
    _serve(fixture_server, files)
    config = tmp_path / "bw.toml"
    url = fixture_server.url
    config.write_text(f'[sources.bfcl]\nadapter = "bfcl"\nurl = "{url}"\nindex = "{url}tree.json"\n')
    benchwatch.run(config, reports=tmp_path / "r", cache=tmp_path / "c", site_out=tmp_path / "s")
    changes = json.loads((tmp_path / "r" / "changelog.json").read_text())["changes"]
    assert [c["upstream"] for c in changes] == [
        "rescored upstream on 2024-08-11: 4 of the 4 models listed on 2024-07-20 have other scores "
        "(the benchmark's checker changed): a rescoring, not progress"
    ]
    alerts = json.loads((tmp_path / "r" / "alerts.json").read_text())["alerts"]
    rescored = [a for a in alerts if a["kind"] == "rescored"]
    assert len(rescored) == 1 and rescored[0]["title"].startswith("BFCL simple: rescored upstream on 2024-08-11")
    pages = [p.read_text() for p in (tmp_path / "s").rglob("*.html")]
    assert any("BFCL simple" in text and "a rescoring, not progress" in text for text in pages)


@pytest.fixture(scope="module")
def bfcl_served(tmp_path_factory):
    """BFCL's five snapshot zips served extracted, with the listing GitHub's git trees API gives (``served_root``)."""
    from tests.sources.shipped import serve_copy

    yield from serve_copy(tmp_path_factory, "bfcl_result")


def test_bfcl_the_newest_snapshots_items_its_models_dated_by_their_first_snapshot(bfcl_served, tmp_path):
    """12 categories of 1,700 items, the 71 models of 2024-08-11; every (model, category)'s share passed equals its
    file's accuracy, each model's date the first snapshot whose folder lists it, the six models 2024-08-11 dropped
    left out in every category, and the 2024-07-22 and 2024-08-11 rescorings named: all read independently from
    the zips."""
    server, folder = bfcl_served
    table = _load(server, tmp_path, "bfcl", "bfcl_result/", index=server.url + "bfcl_result/git-tree.json")
    frame = table.frame.assign(right=table.frame["score"].astype(int))
    shape = frame.groupby("benchmark").agg(models=("model", "nunique"), items=("item_id", "nunique"))
    assert len(shape) == 12 and set(shape["models"]) == {71} and shape["items"].sum() == 1700
    first, heads = {}, {}
    for zipped in sorted(folder.glob("*.zip")):
        with zipfile.ZipFile(zipped) as z:
            for name in z.namelist():
                found = re.fullmatch(r"(\d{4}-\d{2}-\d{2})/score[^/]*/([^/]+)/(\w+)_score\.json", name)
                if found:
                    first.setdefault(found.group(2), found.group(1))
                    if found.group(1) == "2024-08-11":
                        heads[("BFCL " + found.group(3), found.group(2))] = json.loads(z.read(name).splitlines()[0])
    shares = frame.groupby(["benchmark", "model"])["right"].mean()
    assert len(shares) == len(heads) == 852
    assert all(abs(shares[k] - h["correct_count"] / h["total_count"]) < 1e-12 for k, h in heads.items())
    dates = frame.groupby("model")["date"].first()
    assert dates.to_dict() == {m: first[m] for m in dates.index}
    assert sorted(set(dates)) == ["2024-07-06", "2024-07-20", "2024-07-25", "2024-08-11"]  # 07-22 added no model
    assert len(table.excluded) == 6 * 12 and len(first) == 71 + 6
    assert any(n.startswith("2024-07-22: rescored:") and n.endswith("no new model") for n in table.notes)
    assert set(table.rescored) == set(shape.index)
    assert all(s.startswith("rescored upstream on 2024-08-11") for s in table.rescored.values())
