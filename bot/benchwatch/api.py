"""benchwatch's Python API: audit a DataFrame of per-item scores (``audit``), or run the whole job (``run``).

``benchwatch audit`` and ``benchwatch run`` are thin layers over these functions: what they print or write is
what these return. Only the standard library loads with this module; the stages load when a function runs.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchwatch import irt, pipeline, rules, store
from benchwatch import site as stage_site
from benchwatch import sources as stage_sources
from benchwatch.errors import InputError
from benchwatch.irt import DEFAULT_SCALE
from benchwatch.progress import first_run_note, kernels_in, silenced

if TYPE_CHECKING:
    import pandas as pd

    from benchwatch.metrics import Target
    from benchwatch.pipeline import BenchmarkAudit, JobResult
    from benchwatch.record import BenchmarkRecord  # loaded with the first record: an input error loads no pydantic
    from benchwatch.rules import RuleBook, Thresholds
    from benchwatch.sources import Fetcher, SourceTable

__all__ = ["AuditResult", "audit", "audit_each", "audit_rows", "run", "run_folders"]

FRAME_CHANCE = "a chance column of the frame"  # where a frame's chance floors came from, in the record's words
kernels_in(Path(irt.__file__).parent)  # the fit's kernels, which a first run compiles (progress imports no stage)


@dataclass(frozen=True, eq=False)
class AuditResult:
    """One benchmark's audit.

    ``record``: the typed record (``benchwatch.BenchmarkRecord``: its figures read by attribute, ``record.ddm``;
    the fields a run adds when it publishes, such as ``snapshot_at``, are None), ``as_dict()`` it as
    ``benchwatch audit --json`` prints it (before ``benchwatch.history.rounded``); ``verdicts`` and ``flags``: the
    rules applied to it (also the record's): per coverage figure "found", "cannot tell" or "clear" with its
    threshold and level, and the raised flags (``retire``, ``watch``, ``revise``, ``fill``); ``items``: item_id,
    b, b_sd, z per item (just item_id where no item could be placed); ``models``: each model's ability, score and
    tier; ``by_date``: the figures at each model publication date (None without dates).
    """

    benchmark: str
    record: BenchmarkRecord
    verdicts: dict[str, dict[str, Any]]
    flags: list[str]
    items: pd.DataFrame
    models: pd.DataFrame
    by_date: pd.DataFrame | None = None

    def as_dict(self) -> dict[str, Any]:
        """The record as a JSON-ready dict, its fields as the files name them: what ``benchwatch audit --json``
        prints (before rounding)."""
        return self.record.model_dump(by_alias=True, exclude_unset=True)


def audit(
    frame: pd.DataFrame,
    *,
    source: str = "python",
    method: str = "map",
    thresholds: Thresholds | Mapping[str, float] | None = None,
    scale: str = DEFAULT_SCALE,
    target: Target | None = None,
    sampler: str = "auto",
    chance_from: str | None = None,
    progress: bool = False,
) -> AuditResult:
    """Audit the one benchmark of ``frame``: its item difficulties, coverage, saturation, verdicts and flags.

    ``frame`` has the columns benchmark, model, item_id, score (in [0, 1]); date, trials and chance are optional.
    It is checked as ``benchwatch audit`` checks a file (an ``InputError`` names ``source``, the line and the
    column at fault). A frame of several benchmarks is an ``InputError`` naming them: ``audit_each`` audits each.
    ``method``: "map" (default), "mcmc" or "nuts" (``sampler`` picks NUTS's); ``thresholds``: a
    ``benchwatch.rules.Thresholds``, or a mapping of its fields to change (``{"fill_max_gap": 0.2}``), default the
    CLI's; ``scale``: the difficulty scale; ``target``: the difficulty distribution covered (default uniform);
    ``chance_from``: where a chance column's floors came from, in words; ``progress``: each stage of the audit
    shown on standard error, as ``benchwatch audit`` shows it (silent by default).
    """
    rows = _checked(frame, source)
    names = sorted(rows["benchmark"].unique())
    if len(names) != 1:
        shown = ", ".join(repr(str(n)) for n in names[:10]) + (", ..." if len(names) > 10 else "")
        raise InputError(
            source,
            f"holds {len(names)} benchmarks ({shown}): audit() takes one; audit_each() audits each",
            field="benchmark",
        )
    args: dict[str, Any] = {"method": method, "thresholds": thresholds, "scale": scale, "target": target}
    args.update(sampler=sampler, progress=progress)
    return audit_rows(rows, source=source, chance_from=chance_from or FRAME_CHANCE, **args)[0]


def audit_each(
    frame: pd.DataFrame,
    *,
    source: str = "python",
    method: str = "map",
    thresholds: Thresholds | Mapping[str, float] | None = None,
    scale: str = DEFAULT_SCALE,
    target: Target | None = None,
    sampler: str = "auto",
    chance_from: str | None = None,
    progress: bool = False,
) -> dict[str, AuditResult]:
    """``audit`` of every benchmark in ``frame``, by benchmark name (in sorted order), as ``benchwatch audit``
    audits a file of several."""
    rows = _checked(frame, source)
    args: dict[str, Any] = {"method": method, "thresholds": thresholds, "scale": scale, "target": target}
    args.update(sampler=sampler, progress=progress)
    found = audit_rows(rows, source=source, chance_from=chance_from or FRAME_CHANCE, **args)
    return {r.benchmark: r for r in found}


def audit_rows(
    rows: pd.DataFrame,
    *,
    source: str,
    method: str = "map",
    thresholds: Thresholds | Mapping[str, float] | None = None,
    scale: str = DEFAULT_SCALE,
    target: Target | None = None,
    sampler: str = "auto",
    chance_from: str | None = None,
    progress: bool = False,
) -> list[AuditResult]:
    """The audits of ``rows``, a table already checked by ``benchwatch.store.validate_responses`` (what
    ``benchwatch audit`` reads from a file), one per benchmark in sorted order (``progress``: as ``audit``)."""
    limits = _thresholds(thresholds)
    with silenced(not progress):
        audits = pipeline.audit_responses(
            source,
            method=method,
            scale=scale,
            sampler=sampler,
            rows=rows,
            chance_from=chance_from,
            thresholds=rules.threshold_map(limits),
            **({} if target is None else {"target": target}),
        )
    return [_result(a, limits) for a in audits]


def _checked(frame: pd.DataFrame, source: str) -> pd.DataFrame:
    import pandas as pd

    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, got {type(frame).__name__}")
    return store.validate_responses(frame, source)


def _thresholds(given: Thresholds | Mapping[str, float] | None) -> Thresholds:
    if given is None:
        return rules.DEFAULT_THRESHOLDS
    if isinstance(given, Mapping):
        return rules.Thresholds(**given)
    return given


def _result(done: BenchmarkAudit, limits: Thresholds) -> AuditResult:
    """The record with the rules applied (a file has no configuration of its own: no previous flags or state)."""
    rec = pipeline.benchmark_record(done)
    verdicts = rules.recorded_verdicts(rec, limits)
    flags = rules.evaluate_flags(rec, thresholds=limits)
    return AuditResult(
        benchmark=done.benchmark,
        record=rec.model_copy(update={"verdicts": verdicts, "flags": flags}),
        verdicts=verdicts,
        flags=flags,
        items=done.items,
        models=done.models,
        by_date=done.by_date,
    )


NOW = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")
SAMPLE_REPORTS = "_sample/reports"
SAMPLE_CACHE = "_sample/cache"
INPUT_REPORTS = "_input/reports"  # your own files: kept apart from the live history in reports/
INPUT_CACHE = "_input/cache"
INPUT_SITE = "_input/site"  # a site of your own files does not replace the sample's in _site


def run_folders(
    *,
    sample: bool = False,
    inputs: Sequence[str | Path] = (),
    reports: str | Path | None = None,
    cache: str | Path | None = None,
    site_out: str | Path | None = None,
) -> tuple[str, str, str]:
    """The reports, cache and site folders ``run`` uses: those given, else the defaults for the run's kind (the
    sample's and your own files' apart from the live run's)."""
    reports = reports or (SAMPLE_REPORTS if sample else INPUT_REPORTS if inputs else "reports")
    cache = cache or (SAMPLE_CACHE if sample else INPUT_CACHE if inputs else ".cache")
    site_out = site_out or (INPUT_SITE if inputs and not sample else "_site")
    return str(reports), str(cache), str(site_out)


def run(
    config: str | Path = stage_sources.DEFAULT_CONFIG,
    *,
    sample: bool = False,
    inputs: Sequence[str | Path] = (),
    sources: str | Sequence[str] | None = None,
    reports: str | Path | None = None,
    cache: str | Path | None = None,
    site_out: str | Path | None = None,
    site: bool = True,
    site_url: str | None = None,
    force: bool = False,
    method: str = "map",
    sampler: str = "auto",
    lock_timeout: float = 600.0,
    deadline: float | None = None,
    now: str | None = None,
    reports_out: str | Path | None = None,
    progress: bool = False,
) -> JobResult:
    """The job, as ``benchwatch run`` does it: audit every benchmark, update the reports, build the site.

    ``sample``: the bundled sample; ``inputs``: local files (CSV of responses, evaluation logs); neither: the
    live sources of ``config`` (``sources``: only these, names or a comma-separated string). The folders default
    as ``run_folders`` says; ``site`` off skips the site; ``reports_out``: a fan-out part's folder; ``now``: the
    run's UTC timestamp (YYYY-MM-DDTHH:MM:SSZ); ``progress``: the run's log (standard output) and its progress
    (standard error) shown, as ``benchwatch run`` shows them (silent by default). Returns the pipeline's
    ``JobResult`` (benchmarks, new snapshots, alerts, sources ok, failed and unreached). Bad input (the options,
    the files, the configuration) is an ``InputError``, raised before any source is fetched or any file written.
    """
    if now is not None and not NOW.fullmatch(now):
        raise InputError("--now", f"expected a UTC time like 2026-01-31T06:00:00Z, got {now!r}", field="--now")
    if site_url:
        stage_sources.check_address(site_url, "--site-url")
    reports, cache, site_out = run_folders(
        sample=sample, inputs=inputs, reports=reports, cache=cache, site_out=site_out
    )
    places = {"--reports": reports, "--cache": cache, "--site-out": site_out if site else None}
    _check_folders({**places, "--reports-out": reports_out})
    with silenced(not progress):
        if sample or inputs:
            plan = _local_sources(sample, inputs, cache)
        else:
            plan = _live_sources(config, sources, deadline, cache)
        first_run_note()  # the fits compile their kernels first: a minute with no other line on a busy machine
        try:
            result = pipeline.run_job(
                plan.loads,
                reports_dir=reports,
                site_out=site_out if site else None,
                build_site=stage_site.build_site,
                force=force,
                method=method,
                sampler=sampler,
                cache_dir=cache,
                strict=bool(sample or inputs),
                rules=plan.book or rules.RuleBook(),
                lock_timeout=lock_timeout,
                deadline=plan.deadline if plan.live else deadline,
                now=now,
                part_out=reports_out,
                position=plan.position,
                site_url=site_url or plan.site_url,
                log=print if progress else _unsaid,
            )
        finally:
            if plan.fetcher is not None:
                plan.fetcher.close()
    return dataclasses.replace(result, unreached=plan.unreached) if plan.unreached else result


def _unsaid(line: str) -> None:
    """The run's log when no progress is asked for."""


def _check_folders(folders: Mapping[str, str | Path | None]) -> None:
    """Each folder a run writes (by its option) is a folder or can be made one: a file in its place, or in the
    place of a folder above it, is refused before any work."""
    for option, folder in folders.items():
        if folder is None:
            continue
        path = Path(folder)
        for place in (path, *path.parents):
            if place.exists():
                if not place.is_dir():
                    raise InputError(option, f"{place} is a file, not a folder", value=str(folder))
                break


@dataclass
class _Plan:
    """What a run fetches (each source's load, in order) and how: what ``run`` hands the pipeline."""

    loads: list[tuple[str, Callable[[], SourceTable]]]
    fetcher: Fetcher | None = None
    book: RuleBook | None = None
    live: bool = False
    deadline: float | None = None
    position: int = 0  # a fan-out part's place in a merge
    site_url: str | None = None  # the configuration's
    unreached: int = 0  # sources whose server no connection could be made to


def _local_sources(sample: bool, inputs: Sequence[str | Path], cache: str) -> _Plan:
    """The sample's sources, then each input file, read and checked before the job's libraries load (a bad file
    answers at once)."""
    plan = _Plan([])
    if sample:
        plan.fetcher = sample_fetcher = stage_sources.Fetcher(Path(cache))
        plan.loads += [
            (cfg.name, functools.partial(stage_sources.load_source, sample_fetcher, cfg))
            for cfg in stage_sources.snapshot_sources()
        ]
        plan.loads.append(("sample", stage_sources.fetch_sample))
    for path in inputs:
        table = stage_sources.read_input(path)
        if len(table.frame) or table.aggregates is None:  # board rows alone (Every Eval Ever) are a board
            store.validate_responses(table.frame, table.location)
        else:
            store.validate_aggregates(table.aggregates, table.location)
        plan.loads.append((Path(path).name, functools.partial(_kept, table)))
    return plan


def _kept(table: SourceTable) -> SourceTable:
    """An input file's table, read and checked before the job: its load returns it as it is."""
    return table


def _live_sources(config: str | Path, only: str | Sequence[str] | None, deadline: float | None, cache: str) -> _Plan:
    """The configuration's sources (or ``only`` these), each fetched through one ``Fetcher``; when no source's
    server can be reached at all, each fails at once with its cause (``benchwatch.sources.unreachable``)."""
    loaded = stage_sources.load_config(config)  # a missing or malformed file answers before any adapter loads
    book = rules.rules_from_config(loaded.rules, str(loaded.path), loaded.benchmarks)
    chosen = list(loaded.sources)
    if only:
        names = only.split(",") if isinstance(only, str) else only
        chosen = [s.strip() for s in names if s.strip()]
        unknown = [s for s in chosen if s not in loaded.sources]
        if unknown:
            raise InputError(str(loaded.path), f"no such source(s) {', '.join(unknown)}", field="--sources")
    loaded.check_adapters(stage_sources.ADAPTERS)
    http = loaded.http
    deadline = deadline if deadline is not None else http.get("run_deadline")
    deadline = None if deadline is None else float(deadline)
    fetcher = stage_sources.Fetcher(
        Path(cache),
        connect_timeout=float(http.get("connect_timeout", 10)),
        read_timeout=float(http.get("read_timeout", 60)),
        retries=int(http.get("retries", 3)),
        backoff=float(http.get("backoff", 1.0)),
        max_bytes=int(http.get("max_bytes", 512 * 1024 * 1024)),
        deadline=float(http.get("deadline", stage_sources.DEADLINE)),
        stop_at=None if deadline is None else time.monotonic() + deadline,
    )
    urls = {name: loaded.sources[name].url for name in chosen}
    unreached = stage_sources.unreachable(urls, timeout=float(http.get("connect_timeout", 10)))
    loads: list[tuple[str, Callable[[], SourceTable]]] = [
        (name, functools.partial(stage_sources.load_source, fetcher, loaded.sources[name])) for name in chosen
    ]
    if chosen and len(unreached) == len(chosen):  # the network, not the sources: none is fetched
        loads = [(n, functools.partial(stage_sources.unreached, n, urls[n], unreached[n])) for n in chosen]
    order = list(loaded.sources)
    position = min((order.index(name) for name in chosen), default=0)
    return _Plan(loads, fetcher, book, True, deadline, position, loaded.site.get("url"), len(unreached))
