"""The benchmark pages of the site: each page with its feed, plots and downloads, written in this process or, for an
atlas, in forked workers (``write_benchmark_pages``); there the plots and downloads can be left to a process of
their own (``PageInputs.deferred``, ``write_benchmark_assets``) that runs beside MkDocs' build."""

from __future__ import annotations

import multiprocessing
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from benchwatch import threads
from benchwatch.errors import InputError
from benchwatch.history import Alert, Change, Reports, load_proposal, load_table, published_csv, to_json, written
from benchwatch.record import BenchmarkRecord
from benchwatch.site.benchmark import also_section, benchmark_body
from benchwatch.site.feed import rss_feed
from benchwatch.site.fill import proposal_section
from benchwatch.site.names import page_name
from benchwatch.site.paths import benchmark_feed, benchmark_page, plot_path
from benchwatch.site.plots import difficulty_svg, saturation_svg, tiers_svg
from benchwatch.store import safe_slug

# Page writing in worker processes from this many benchmark pages on (an atlas; the sample's 15 are written in
# this process): each page, its plots, feed and downloads cost ~50 ms, a forked worker ~30 ms to start.
PARALLEL_FROM = 40
MAX_WORKERS = 8


@dataclass(frozen=True)
class PageInputs:
    """What every benchmark page is written from."""

    reports: Reports
    docs: Path
    site_url: str
    records: dict[str, BenchmarkRecord]
    history: Any
    alerts: list[Alert]
    changes: list[Change]
    groups: dict[str, list[BenchmarkRecord]]
    deferred: bool = False  # plots and downloads not written here: ``write_benchmark_assets`` writes them


@dataclass
class Written:
    """What writing benchmark pages gives back: their benchmarks' tables, by name (for the bundle and, when
    ``deferred``, the assets), and, when ``deferred``, the paths (under the docs folder) of the plots and downloads
    left to ``write_benchmark_assets``."""

    tables: dict[str, dict]
    deferred: list[str]

    def add(self, other: Written) -> None:
        self.tables.update(other.tables)
        self.deferred.extend(other.deferred)


R = TypeVar("R")
_SHARED: PageInputs | None = None  # set in the parent before the workers fork, so they inherit it


def _write_shared_page(pid: str) -> Written | tuple[dict, str]:
    """``_write_page`` in a worker; a damaged input comes back as its fields and text (an InputError does not
    pickle: its constructor takes the parts of the text), raised again in the parent by ``_raised``."""
    assert _SHARED is not None
    try:
        return write_page(_SHARED, pid)
    except InputError as exc:
        return vars(exc), str(exc)


def _raised(result: R | tuple[dict, str]) -> R:
    if isinstance(result, tuple):
        error = InputError.__new__(InputError)
        ValueError.__init__(error, result[1])
        vars(error).update(result[0])
        raise error
    return result


def write_page(shared: PageInputs, pid: str) -> Written:
    """Write one benchmark page, its feed, plots and downloads (``deferred``: the page and its feed)."""
    reports, docs, records, history, alerts = shared.reports, shared.docs, shared.records, shared.history, shared.alerts
    recs = shared.groups[pid]
    per_benchmark: dict[str, dict] = {}
    left: list[str] = []
    sections = []
    for k, rec in enumerate(recs):
        name = rec.benchmark
        tables = _tables(reports, name)
        items, models, by_date = tables["items"], tables["models"], tables["by_date"]
        per_benchmark[name] = tables
        if k == 0:
            plan = _fill_plan(rec, items, models)
            sections.append(
                benchmark_body(
                    rec,
                    history,
                    alerts,
                    by_date,
                    shared.changes,
                    items,
                    page_id=pid,
                    plan=plan,
                    models=models,
                    group=recs,
                )
            )
        else:
            sections.append(also_section(rec, history, alerts))
        proposal = load_proposal(reports, name)
        if proposal is not None:
            sections.append(proposal_section(proposal, rec))
        assets = asset_files(reports, name, rec, items, by_date, models)
        if shared.deferred:
            left.extend(assets)
        else:
            _write_assets(docs, assets)
    (docs / benchmark_page(pid)).write_text("\n".join(sections), encoding="utf-8")
    names = {rec.benchmark for rec in recs}
    mine = [a for a in alerts if a.benchmark in names]
    (docs / benchmark_feed(pid)).write_text(
        rss_feed(
            mine,
            title=f"benchwatch: {page_name(pid, recs)}",
            site_url=shared.site_url,
            self_path=benchmark_feed(pid),
            records=records,
        ),
        encoding="utf-8",
    )
    return Written(per_benchmark, left)


def _fill_plan(rec: BenchmarkRecord, items, models) -> list[dict] | None:
    """The fill plan of a per-item benchmark (``benchwatch fill plan``), or None without abilities."""
    if items is None or models is None or "theta" not in models.columns or rec.kind == "aggregate":
        return None
    from benchwatch.fill import Benchmark, fill_plan

    return fill_plan(Benchmark(rec, items, models))


def asset_files(
    reports: Reports, name: str, rec: BenchmarkRecord, items, by_date, models=None
) -> dict[str, Callable[[], str]]:
    """Pictures and downloads of one benchmark: each file's path (under the docs folder) and what writes its text
    (a table's CSV is its file's in ``reports``, ``published_csv``)."""
    slug = safe_slug(name)

    def csv_of(kind: str, table) -> Callable[[], str]:
        return lambda: published_csv(reports.read(getattr(reports, kind)(name)), table)

    out: dict[str, Callable[[], str]] = {f"downloads/{slug}.json": lambda: to_json(written(rec))}
    if items is not None:
        out[f"downloads/{slug}-items.csv"] = csv_of("items", items)
        out[f"downloads/{slug}-items.json"] = lambda: to_json(items.to_dict(orient="records"))
        out[plot_path(name, "difficulty")] = lambda: difficulty_svg(
            items["z"].to_numpy(),
            rec.gaps,
            rec.target_spec or {},
            rec.target or "",
            rec.detection_stretch,
            items["item_id"].astype(str).tolist(),
            rec.thin_stretches,
        )
    if models is not None and "tier" in models.columns and rec.tier_method:
        method = rec.tier_method
        out[f"downloads/{slug}-models.csv"] = csv_of("models", models)
        out[plot_path(name, "tiers")] = lambda: tiers_svg(models, method)
    if by_date is not None and not by_date.empty:
        out[f"downloads/{slug}-by-date.csv"] = csv_of("by_date", by_date)
        out[plot_path(name, "saturation")] = lambda: saturation_svg(by_date, rec.top_models)
    return out


def _write_assets(docs: Path, files: dict[str, Callable[[], str]]) -> None:
    """Write ``asset_files``' files under ``docs``."""
    (docs / "plots").mkdir(parents=True, exist_ok=True)
    (docs / "downloads").mkdir(exist_ok=True)
    for path, text in files.items():
        (docs / path).write_text(text(), encoding="utf-8")


def _tables(reports: Reports, name: str) -> dict:
    return {kind: load_table(getattr(reports, kind)(name)) for kind in ("by_date", "items", "models")}


def write_benchmark_assets(shared: PageInputs, out: Path, read: dict[str, dict] | None = None) -> dict[str, dict]:
    """Every benchmark's plots and downloads under ``out`` (the files ``write_benchmark_pages`` left to it when
    ``deferred``), in this process, from its tables as ``read`` for its page (else read here); returns the
    benchmarks' tables, by name (for the bundle)."""
    per_benchmark: dict[str, dict] = {}
    read = read or {}
    for recs in shared.groups.values():
        for rec in recs:
            name = rec.benchmark
            tables = per_benchmark[name] = read[name] if name in read else _tables(shared.reports, name)
            _write_assets(
                out, asset_files(shared.reports, name, rec, tables["items"], tables["by_date"], tables["models"])
            )
    return per_benchmark


def page_workers(pages: int) -> int:
    """How many forked worker processes write ``pages`` benchmark pages (0: this process writes them)."""
    workers = min(threads.CORES, MAX_WORKERS)  # the cores this process may run on (its affinity)
    if pages < PARALLEL_FROM or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        return 0
    return workers


def write_benchmark_pages(shared: PageInputs) -> Written:
    """Write every benchmark page, its feed, plots and downloads (``deferred``: the pages and feeds). From
    ``PARALLEL_FROM`` pages on (an atlas) in forked workers, which inherit what was read and send back only the
    tables the bundle needs (or the paths left to the assets); the same files either way."""
    global _SHARED
    out = Written({}, [])
    workers = page_workers(len(shared.groups))
    if not workers:
        for pid in shared.groups:
            out.add(write_page(shared, pid))
        return out
    _SHARED = shared
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            for written in pool.map(_write_shared_page, shared.groups, chunksize=4):
                out.add(_raised(written))
    finally:
        _SHARED = None
    return out
