"""Assemble the MkDocs project (hand-written pages + generated ones) and build it with --strict."""

from __future__ import annotations

import hashlib
import html
import importlib.metadata
import json
import logging
import os
import re
import shutil
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import NamedTuple

from benchwatch.errors import InputError
from benchwatch.history import Reports, to_json
from benchwatch.record import BenchmarkRecord, as_record
from benchwatch.site.alerts import alerts_page
from benchwatch.site.bundle import BUNDLE, bundle_bytes, bundle_tables
from benchwatch.site.feed import rss_feed
from benchwatch.site.glossary import append_glossary
from benchwatch.site.home import SUMMARY_PLOT, SUMMARY_PLOT_NARROW, index_page, summary_points
from benchwatch.site.inputs import page_inputs, shown_records, source_statuses
from benchwatch.site.names import page_name, shown_name
from benchwatch.site.pages import (
    PageInputs,
    _raised,
    page_workers,
    write_benchmark_assets,
    write_benchmark_pages,
)
from benchwatch.site.paths import benchmark_page
from benchwatch.site.render import TEMPLATES
from benchwatch.site.summary_plot import NARROW, summary_svg

PACKAGED_PROJECT = Path(__file__).resolve().parents[1] / "site_project"
CHECKOUT_PROJECT = Path(__file__).resolve().parents[3] / "site"


def find_site_project(explicit: str | Path | None = None) -> Path:
    """The MkDocs project folder: explicit, ./site, the copy in the package, or the source checkout."""
    candidates = [Path(explicit)] if explicit else [Path("site"), PACKAGED_PROJECT, CHECKOUT_PROJECT]
    for folder in candidates:
        if (folder / "mkdocs.yml").is_file():
            return folder.resolve()
    raise InputError(str(candidates[0]), "no MkDocs project here (site/mkdocs.yml not found)")


class SitePages(NamedTuple):
    """What ``write_pages`` wrote: the number of pages, and (``deferred``) the paths under the docs folder of the
    plots, downloads and bundle left to ``write_assets``."""

    pages: int
    deferred: list[str]
    inputs: PageInputs  # what the pages were written from
    tables: dict[str, dict]  # each benchmark's tables as read for its page, by name


def write_pages(
    reports: Reports, docs: Path, site_url: str, now: str | None = None, deferred: bool = False
) -> SitePages:
    """Write the generated Markdown pages and feeds into ``docs``. ``deferred``: the benchmarks' plots and downloads
    and the bundle are not written, but named, for ``write_assets`` to write into the built site (``AssetsBeside``)."""
    shared = page_inputs(reports, docs, site_url, deferred)
    records, alerts = shared.records, shared.alerts
    (docs / "benchmarks").mkdir(parents=True, exist_ok=True)
    sources = source_statuses(reports)
    now = now or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    (docs / "index.md").write_text(index_page(records, alerts, sources, now), encoding="utf-8")
    (docs / "plots").mkdir(exist_ok=True)
    (docs / SUMMARY_PLOT).write_text(summary_svg(summary_points(records)), encoding="utf-8")
    (docs / SUMMARY_PLOT_NARROW).write_text(summary_svg(summary_points(records), NARROW), encoding="utf-8")
    (docs / "alerts.md").write_text(alerts_page(alerts, records), encoding="utf-8")
    (docs / "feed.xml").write_text(
        rss_feed(alerts, title="benchwatch: all alerts", site_url=site_url, self_path="feed.xml", records=records),
        encoding="utf-8",
    )
    written = write_benchmark_pages(shared)
    (docs / "downloads").mkdir(exist_ok=True)
    schemas = published_schemas()
    (docs / "schema").mkdir(exist_ok=True)
    for name, text in schemas.items():
        (docs / "schema" / name).write_text(text, encoding="utf-8")
    if not deferred:
        _write_bundle(docs, shared, written.tables, schemas)
    left = [*written.deferred, BUNDLE] if deferred else []
    return SitePages(2 + len(shared.groups), left, shared, written.tables)


def write_assets(inputs: PageInputs, tables: dict[str, dict], out: Path) -> None:
    """What ``write_pages(..., deferred=True)`` left: every benchmark's plots and downloads and the bundle, under
    ``out`` at the same paths, in this process, from what the pages were written from (``SitePages``: a table not
    given is read)."""
    (out / "downloads").mkdir(parents=True, exist_ok=True)
    per_benchmark = write_benchmark_assets(inputs, out, tables)
    _write_bundle(out, inputs, per_benchmark, published_schemas())


_ASSETS: SitePages | None = None  # set while the site builds: the assets' forked process inherits it


def _write_assets_job(out: str) -> tuple[dict, str] | None:
    """``write_assets`` in the forked process, from the pages' inputs and tables it inherits (``_ASSETS``); a damaged
    input comes back as its fields and text (see ``pages._raised``)."""
    assert _ASSETS is not None
    try:
        write_assets(_ASSETS.inputs, _ASSETS.tables, Path(out))
    except InputError as exc:
        return vars(exc), str(exc)
    return None


def _raised_if_any(result: tuple[dict, str] | None) -> None:
    """The error ``_write_assets_job`` sent back, raised (``pages._raised``); nothing when it wrote everything."""
    if result is not None:
        _raised(result)


def _write_bundle(docs: Path, shared: PageInputs, per_benchmark: dict[str, dict], schemas: dict[str, str]) -> None:
    tables = _named(bundle_tables(shared.records, shared.history, shared.alerts, per_benchmark), shared.records)
    (docs / BUNDLE).write_bytes(bundle_bytes(tables, schemas))


def _named(tables: dict, records: dict[str, BenchmarkRecord]) -> dict:
    """The bundle's tables, each with a ``benchmark`` column followed by ``name``: the name the pages
    show beside the stable id."""
    for frame in tables.values():
        if "benchmark" in frame.columns and "name" not in frame.columns:
            names = [shown_name(records.get(b) or as_record({"benchmark": str(b)})) for b in frame["benchmark"]]
            frame.insert(int(frame.columns.get_loc("benchmark")) + 1, "name", names)
    return tables


def published_schemas() -> dict[str, str]:
    """The JSON Schema of every JSON file of reports/, by its published file name."""
    from benchwatch.history import FILES, file_schema

    return {name.replace(".json", ".schema.json"): to_json(file_schema(name)) for name in FILES}


STAMP = ".benchwatch-inputs.json"  # in the built site: the digest of what it was built from


def inputs_digest(reports_root: Path, project_dir: Path, site_url: str | None, now: str) -> str:
    """A digest of everything a build reads: the reports it shows (not the run log or the snapshots), the
    MkDocs project, the site code and its templates, the URL and the day (pages show the age of the data in days)."""
    digest = hashlib.sha256()
    for base in (reports_root, project_dir):
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(base)
            hidden = any(part.startswith(".") for part in rel.parts)
            if not path.is_file() or hidden or rel.parts[0] == "snapshots" or rel.as_posix() == "runs.csv":
                continue
            digest.update(rel.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    for path in [*sorted(Path(__file__).parent.glob("*.py")), *sorted(TEMPLATES.glob("*.j2"))]:
        digest.update(path.read_bytes())
    versions = [importlib.metadata.version(p) for p in ("mkdocs", "mkdocs-material")]
    digest.update(json.dumps([site_url, now[:10], versions]).encode())
    return digest.hexdigest()


def _stamp(out: Path) -> dict | None:
    try:
        return json.loads((out / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def restore_site(out: Path) -> bool:
    """Put the last good site back when a run died in the middle of swapping it; True if it did."""
    old = out.parent / f".{out.name}.old"
    if old.is_dir() and not out.exists():
        old.rename(out)
        return True
    return False


def _nav(groups: dict[str, list[BenchmarkRecord]]) -> list:
    """The navigation: each benchmark page under its display name (``page_name``), in the order of those names."""
    named = sorted((page_name(pid, recs).casefold(), page_name(pid, recs), pid) for pid, recs in groups.items())
    return [
        {"Home": "index.md"},
        # MkDocs prints nav titles as they are: an upstream name must arrive already escaped.
        {"Benchmarks": [{html.escape(name): benchmark_page(pid)} for _, name, pid in named]},
        {"Alerts": "alerts.md"},
        {"Methodology": "methodology.md"},
        {"Reading the data": "data.md"},
        {"About": "about.md"},
    ]


HOME_REPOSITORY = "https://github.com/benchwatch/benchwatch"
LOCAL_ADDRESS = "http://127.0.0.1:8000/"  # where ``benchwatch serve`` serves a site built without an address


def footer(now: str, environ: dict | None = None) -> str:
    """Every page's footer: the version that built the site, the build date, the code and how to cite it (the
    repository of this build in GitHub Actions, a fork's own)."""
    repo = (os.environ if environ is None else environ).get("GITHUB_REPOSITORY", "")
    home = f"https://github.com/{repo}" if REPOSITORY.fullmatch(repo) else HOME_REPOSITORY
    version = importlib.metadata.version("benchwatch")
    return (
        f"Built by benchwatch {html.escape(version)} on {html.escape(now[:10])} · "
        f'<a href="{home}">source code</a> · <a href="{home}/blob/main/CITATION.cff">cite this</a>'
    )


REPOSITORY = re.compile(r"([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))/([A-Za-z0-9._-]{1,100})")


def site_address(explicit: str | None = None, environ: dict | None = None) -> str | None:
    """Where the site is published: ``explicit`` (``--site-url`` or ``[site] url``), else, in GitHub
    Actions, the repository's own Pages address (``GITHUB_REPOSITORY``, so a fork's feeds, canonical links
    and sitemap point at the fork), else None (a local build: ``benchwatch serve``'s address, LOCAL_ADDRESS)."""
    if explicit:
        if not re.fullmatch(r"https?://[^\s\"'<>]+", explicit):
            raise InputError("--site-url", f"expected an http(s) address, got {explicit!r}", field="site_url")
        return explicit.rstrip("/") + "/"
    repo = (os.environ if environ is None else environ).get("GITHUB_REPOSITORY", "")
    found = REPOSITORY.fullmatch(repo)
    if not found:
        return None
    owner, name = found.group(1).lower(), found.group(2)
    if name.lower() == f"{owner}.github.io":
        return f"https://{owner}.github.io/"
    return f"https://{owner}.github.io/{name}/"


def build_site(
    reports_dir: str | Path,
    out_dir: str | Path,
    *,
    project: str | Path | None = None,
    site_url: str | None = None,
    now: str | None = None,
    phase: Callable[[str], None] = lambda name: None,
) -> int:
    """Build the site from a reports folder into ``out_dir``, replaced only when the build succeeded.

    The new site is built beside the old one and swapped in with two renames; a run that dies between
    them leaves the old site under ``.NAME.old``, put back by the next build (or ``benchwatch repair``).
    """
    project_dir = find_site_project(project)
    reports = Reports(Path(reports_dir))
    out = Path(out_dir).resolve()
    restore_site(out)
    now = now or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    digest = inputs_digest(reports.root, project_dir, site_address(site_url), now)
    built = _stamp(out)
    if built is not None and built.get("inputs") == digest:
        return int(built["pages"])  # nothing the site shows has changed: the built one stands
    staging = out.parent / f".{out.name}.building"
    shutil.rmtree(staging, ignore_errors=True)
    mkdocs_log = logging.getLogger("mkdocs")
    level = mkdocs_log.level
    mkdocs_log.setLevel(logging.WARNING)
    try:
        pages = _build_into(staging, reports, project_dir, site_url, now)
        stamp = json.dumps({"inputs": digest, "pages": pages})
        (staging / STAMP).write_text(stamp + "\n", encoding="utf-8")
        phase("site build")
        _swap_in(staging, out, phase)
    finally:
        mkdocs_log.setLevel(level)
        shutil.rmtree(staging, ignore_errors=True)
    return pages


def _build_into(staging: Path, reports: Reports, project_dir: Path, site_url: str | None, now: str) -> int:
    """Write the pages into a copy of the project's docs and build the site from them with MkDocs into
    ``staging``; returns the number of pages."""
    from mkdocs.commands.build import build  # only once a build is needed: an unchanged site loads no MkDocs
    from mkdocs.config import load_config

    from benchwatch.site.assets_beside import AssetsBeside
    from benchwatch.site.render_beside import RenderBeside

    global _ASSETS
    with tempfile.TemporaryDirectory(prefix="benchwatch-docs-") as tmp:
        docs = Path(tmp) / "docs"
        shutil.copytree(project_dir / "docs", docs)
        url = site_address(site_url) or LOCAL_ADDRESS  # not mkdocs.yml's: a fork's local build is not there
        _, groups = shown_records(reports)
        # An atlas's plots and downloads are written into the built site by a process of their own while
        # MkDocs builds from the pages, which name them; its Markdown is rendered on two cores. The same site.
        deferred = page_workers(len(groups)) > 0
        written = write_pages(reports, docs, url, now, deferred=deferred)
        append_glossary(docs)
        config = load_config(
            config_file=str(project_dir / "mkdocs.yml"),
            docs_dir=str(docs),
            site_dir=str(staging),
            site_url=url,
            strict=True,
            nav=_nav(groups),
            copyright=footer(now),
        )
        if deferred:
            config.plugins["benchwatch/assets-beside"] = AssetsBeside(
                written.deferred, _write_assets_job, _raised_if_any
            )
            config.plugins["benchwatch/render-beside"] = RenderBeside()
        config.plugins.on_startup(command="build", dirty=False)
        _ASSETS = written
        try:
            build(config)
        finally:
            _ASSETS = None
            config.plugins.on_shutdown()
    return written.pages


def _swap_in(staging: Path, out: Path, phase: Callable[[str], None]) -> None:
    """Put the site built in ``staging`` at ``out`` with two renames: between them the old site is under
    ``.NAME.old`` (``restore_site`` puts it back after a run that died there)."""
    old = out.parent / f".{out.name}.old"
    shutil.rmtree(old, ignore_errors=True)
    if out.exists():
        out.rename(old)
    phase("site swap")
    staging.rename(out)
    shutil.rmtree(old, ignore_errors=True)
