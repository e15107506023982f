"""The shipped benchwatch.toml on the real upstream copies: which source reads which copy in ../shared/upstream, the
configuration rewritten onto a loopback server of them, and the served folder (zips extracted). One place for the
suite's shipped-configuration tests and ``benchmarks/shipped_atlas.py``."""

from __future__ import annotations

import json
import os
import re
import shutil
import tomllib
import zipfile
from pathlib import Path

from tests.conftest import ROOT

# The sources of the shipped config that have a real copy in ../shared/upstream, and where it lies.
REAL = {
    "swebench": "swebench/leaderboards.json",
    "livecodebench": "livecodebench/performances_generation.json",
    "livecodebench_execution": "livecodebench/performances_execution.json",
    "livecodebench_repair": "livecodebench/performances_repair.json",
    "livecodebench_testgen": "livecodebench/performances_testgen.json",
    "evalarena": "evalarena/",
    "epoch": "epoch/benchmark_data.zip",
    "evalplus": "evalplus/results.json",
    "mmlu_pro": "mmlu_pro/",
    "epoch_samples": "epoch_samples/parsed.csv",
    "alpaca_eval": "alpaca_eval/",
    "livebench_site": "livebench_site/",
    "all_the_noises": "all_the_noises/",
    "terminal_bench": "terminal_bench/",
    "can_ai_code": "can_ai_code/",
    "bfcl": "bfcl_result/",
    "llmstats": "llmstats/",
    "bfcl_leaderboard": "gorilla_bfcl/",
    "benchbench": "benchbench/",
}

# The sources whose ``versions`` (date = { prefix = "<commit>/", ... }) the copy lays out by date: each version's
# prefix becomes its date's folder (gorilla_bfcl/2024-08-14/data.csv).
DATED = ("bfcl_leaderboard",)


OTHER_URLS = {
    "epoch_samples": {"runs": "epoch_samples/benchmarks_runs.csv"},
    "can_ai_code": {"index": "can_ai_code/" + "git-tree.json"},  # the listing GitHub's API gives (``served_root``)
    "bfcl": {"index": "bfcl_result/" + "git-tree.json"},
    "llmstats": {"index": "llmstats/" + "git-tree.json"},  # a plain folder listed (``LISTED``)
}

# Left out of the whole runs below: none since the resolution floors are gone (MMLU-Pro's two real output files
# are two models: scores only, in a second).
SLOW: tuple[str, ...] = ()


def shipped_config_on(server, tmp_path, extra: str = "", leave_out: tuple[str, ...] = SLOW) -> str:
    """benchwatch.toml as shipped, with each real source's URL on the local server (others left out)."""
    text = (ROOT / "benchwatch.toml").read_text()
    config = tomllib.loads(text)
    out = []
    for block in re.split(r"(?m)^(?=\[)", text):
        header = re.match(r"\[sources\.([^\].]+)[\].]", block)
        if header and (header.group(1) not in REAL or header.group(1) in leave_out):
            continue  # helm and livebench: no real copy can be had here
        if header and header.group(1) in DATED:
            block = re.sub(r'(?m)^"(\d{4}-\d{2}-\d{2})" = \{ prefix = "[^"]*"', r'"\1" = { prefix = "\1/"', block)
        if header and block.startswith(f"[sources.{header.group(1)}]"):
            old = config["sources"][header.group(1)]["url"]
            block = block.replace(f'url = "{old}"', f'url = "{server.url}{REAL[header.group(1)]}"')
            for key, path in OTHER_URLS.get(header.group(1), {}).items():  # a source's other URLs
                block = block.replace(
                    f'{key} = "{config["sources"][header.group(1)][key]}"', f'{key} = "{server.url}{path}"'
                )
            files = config["sources"][header.group(1)].get("files")
            if isinstance(files, list):  # only the files that have a real copy (two of MMLU-Pro's 44 zips)
                here = [f for f in files if (server.root / REAL[header.group(1)] / f).is_file()]
                block = re.sub(r"(?ms)^files = \[.*?\]", "files = " + json.dumps(here), block)
        out.append(block)
    path = tmp_path / "benchwatch.toml"
    path.write_text("".join(out).replace("retries = 3", "retries = 0") + extra)
    return str(path)


# The copies zipped only to save disk (many small files under their repository paths: the README of
# ../shared/upstream says to serve them extracted); every other zip is an upstream file in its own right.
EXTRACTED = ("bfcl_result", "can_ai_code", "terminal_bench")
# The plain folders (their repository's files as they are) whose source finds its files in GitHub's git trees API:
# each gets a ``<folder>/git-tree.json`` of its files, as the extracted zips do.
LISTED = ("llmstats",)


def served_root(
    upstream: Path, folder: Path, extracted: tuple[str, ...] = EXTRACTED, listed: tuple[str, ...] = LISTED
) -> Path:
    """A folder to serve for ``upstream``: its files as they are (hard links, or copies across file systems), with
    the zips of the ``extracted`` copies unpacked in their folder instead (a zip of many small files served as its
    repository serves them), and a listing in GitHub's git trees shape of each ``listed`` folder's files."""
    plain: dict[str, list[str]] = {}  # each listed folder's files
    for path in sorted(upstream.rglob("*")):
        if not path.is_file():
            continue
        rel = path.relative_to(upstream)
        if path.suffix == ".zip" and len(rel.parts) == 2 and rel.parts[0] in extracted:
            with zipfile.ZipFile(path) as archive:
                archive.extractall(folder / rel.parts[0])
                names = [n for n in archive.namelist() if not n.endswith("/")]
            listing = folder / rel.parts[0] / "git-tree.json"  # GitHub's git trees API over the copy (its shape)
            known = json.loads(listing.read_text()) if listing.is_file() else {"tree": []}
            tree = known["tree"] + [{"path": n, "mode": "100644", "type": "blob"} for n in names]
            listing.write_text(json.dumps({"sha": "0" * 40, "tree": tree, "truncated": False}))
            continue
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        try:
            os.link(path, folder / rel)
        except OSError:  # another file system
            shutil.copy2(path, folder / rel)
        if len(rel.parts) > 1 and rel.parts[0] in listed:
            plain.setdefault(rel.parts[0], []).append(rel.relative_to(rel.parts[0]).as_posix())
    for top, files in plain.items():  # GitHub's git trees API over the plain folder (its shape)
        tree = [{"path": n, "mode": "100644", "type": "blob"} for n in files]
        (folder / top / "git-tree.json").write_text(json.dumps({"sha": "0" * 40, "tree": tree, "truncated": False}))
    return folder


def serve_copy(tmp_path_factory, name: str, what: str = ""):
    """A module fixture's body: the copy ``name`` of ../shared/upstream served as its repository serves it (its
    zips extracted, with their listing), yielding (server, the path ``what`` of the copy); skipped, saying so,
    where ../shared is not here."""
    import pytest

    from tests.conftest import SHARED
    from tests.sources.upstream_server import Upstream

    path = SHARED / "upstream" / name / what
    if not path.exists():
        pytest.skip("../shared/upstream is not here: it exists in CI and on the developers' machines only")
    with Upstream(served_root(SHARED / "upstream", tmp_path_factory.mktemp(name), (name,))) as server:
        yield server, path
