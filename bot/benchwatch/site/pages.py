"""The benchmark pages of the site: each page with its feed, plots and downloads, written in this process or, for an
atlas, in forked workers (``write_benchmark_pages``)."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchwatch import threads
from benchwatch.errors import InputError
from benchwatch.history import Reports, csv_text, load_proposal, load_table, to_json
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
    records: dict[str, dict]
    history: Any
    alerts: list[dict]
    changes: Any
    groups: dict[str, list[dict]]


_SHARED: PageInputs | None = None  # set in the parent before the workers fork, so they inherit it


def _write_shared_page(pid: str) -> dict[str, dict] | tuple[dict, str]:
    """``_write_page`` in a worker; a damaged input comes back as its fields and text (an InputError does not
    pickle: its constructor takes the parts of the text), raised again in the parent by ``_raised``."""
    assert _SHARED is not None
    try:
        return write_page(_SHARED, pid)
    except InputError as exc:
        return vars(exc), str(exc)


def _raised(result: dict[str, dict] | tuple[dict, str]) -> dict[str, dict]:
    if isinstance(result, tuple):
        error = InputError.__new__(InputError)
        ValueError.__init__(error, result[1])
        vars(error).update(result[0])
        raise error
    return result


def write_page(shared: PageInputs, pid: str) -> dict[str, dict]:
    """Write one benchmark page, its feed, plots and downloads; returns its benchmarks' tables, by name."""
    reports, docs, records, history, alerts = shared.reports, shared.docs, shared.records, shared.history, shared.alerts
    recs = shared.groups[pid]
    per_benchmark: dict[str, dict] = {}
    sections = []
    for k, rec in enumerate(recs):
        name = rec["benchmark"]
        by_date = load_table(reports.by_date(name))
        items = load_table(reports.items(name))
        models = load_table(reports.models(name))
        per_benchmark[name] = {"items": items, "models": models, "by_date": by_date}
        if k == 0:
            plan = _fill_plan(rec, items, models)
            sections.append(
                benchmark_body(
                    rec, history, alerts, by_date, shared.changes, items, page_id=pid, plan=plan, models=models
                )
            )
        else:
            sections.append(also_section(rec, history, alerts))
        proposal = load_proposal(reports, name)
        if proposal is not None:
            sections.append(proposal_section(proposal, rec))
        _write_assets(docs, name, rec, items, by_date, models)
    (docs / benchmark_page(pid)).write_text("\n".join(sections), encoding="utf-8")
    names = {rec["benchmark"] for rec in recs}
    mine = [a for a in alerts if a["benchmark"] in names]
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
    return per_benchmark


def _fill_plan(rec: dict, items, models) -> list[dict] | None:
    """The fill plan of a per-item benchmark (``benchwatch fill plan``), or None without abilities."""
    if items is None or models is None or "theta" not in models.columns or rec.get("kind") == "aggregate":
        return None
    from benchwatch.fill import Benchmark, fill_plan

    return fill_plan(Benchmark(rec, items, models))


def _write_assets(docs: Path, name: str, rec: dict, items, by_date, models=None) -> None:
    """Pictures and downloads of one benchmark."""
    slug = safe_slug(name)
    (docs / "plots").mkdir(exist_ok=True)
    (docs / "downloads").mkdir(exist_ok=True)
    (docs / "downloads" / f"{slug}.json").write_text(to_json(rec), encoding="utf-8")
    if items is not None:
        (docs / "downloads" / f"{slug}-items.csv").write_text(csv_text(items), encoding="utf-8")
        (docs / "downloads" / f"{slug}-items.json").write_text(
            to_json(items.to_dict(orient="records")), encoding="utf-8"
        )
        (docs / plot_path(name, "difficulty")).write_text(
            difficulty_svg(
                items["z"].to_numpy(),
                rec["gaps"],
                rec.get("target_spec") or {},
                rec.get("target") or "",
                rec.get("detection_stretch"),
                items["item_id"].astype(str).tolist(),
                rec.get("thin_stretches"),
            ),
            encoding="utf-8",
        )
    if models is not None and "tier" in models.columns and rec.get("tier_method"):
        (docs / "downloads" / f"{slug}-models.csv").write_text(csv_text(models), encoding="utf-8")
        (docs / plot_path(name, "tiers")).write_text(tiers_svg(models, rec["tier_method"]), encoding="utf-8")
    if by_date is not None and not by_date.empty:
        (docs / "downloads" / f"{slug}-by-date.csv").write_text(csv_text(by_date), encoding="utf-8")
        (docs / plot_path(name, "saturation")).write_text(saturation_svg(by_date, rec["top_models"]), encoding="utf-8")


def write_benchmark_pages(shared: PageInputs) -> dict[str, dict]:
    """Write every benchmark page, its feed, plots and downloads; returns the benchmarks' tables, by name. From
    ``PARALLEL_FROM`` pages on (an atlas) in forked workers, which inherit what was read and send back only the
    tables the bundle needs; the same files either way."""
    global _SHARED
    per_benchmark: dict[str, dict] = {}
    workers = min(threads.CORES, MAX_WORKERS)  # the cores this process may run on (its affinity)
    if len(shared.groups) < PARALLEL_FROM or workers < 2 or "fork" not in multiprocessing.get_all_start_methods():
        for pid in shared.groups:
            per_benchmark.update(write_page(shared, pid))
        return per_benchmark
    _SHARED = shared
    try:
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            for tables in pool.map(_write_shared_page, shared.groups, chunksize=4):
                per_benchmark.update(_raised(tables))
    finally:
        _SHARED = None
    return per_benchmark
