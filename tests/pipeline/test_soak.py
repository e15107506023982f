"""Soak: 120 steps over a loopback upstream that changes, fails, trickles and corrupts at random (seeded,
bounded in time). A step is a run, or a run killed (-9) at a random phase and then run again, or a run
followed by damage to one reports file (then `check` must find it and `repair` fix it), or two runs started
0.1 s apart, or damage that nobody repairs (latest.json deleted, the snapshots removed, a snapshot damaged, a
stale staging folder left with its commit record, alerts.json cut) before a plain run, which must heal it and
say so in an operational alert (issue 41). After every step `benchwatch check` finds nothing wrong; at the end
every published revision is one the upstream really served, and the history holds one row per real change, as
an undisturbed series of runs would (issues 12 and 27)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time

import numpy as np
import pandas as pd
import pytest

from benchwatch.cli import main
from benchwatch.history import Reports, check_reports, load_history, load_latest
from benchwatch.sources import Fetcher, SourceConfig, load_source
from benchwatch.store import content_revision, validate_aggregates, validate_responses

pytestmark = pytest.mark.slow

RUNS = 120  # about two minutes on two cores (200 steps took three: the suite keeps under ten minutes)
CHANGE = {"board": 0.3, "cells": 0.12}  # chance of a real change per run (a per-item change costs a refit)
SEED = 20261130
FAULTS = ["500", "truncated", "html", "trickle:0.05", "304", "hang:0.4"]
STEPS = {"run": 0.45, "kill": 0.15, "damage": 0.15, "overlap": 0.15, "heal": 0.10}
HARM = ["latest.json deleted", "snapshots removed", "a snapshot damaged", "a stale staging folder", "alerts.json cut"]
HARM += ["changelog.json cut"]  # issue 62: the ledgers restore both files whole
PHASES = ["fetch", "fit", "snapshot save", "staging", "run log", "commit swap", "site build", "site swap"]


def _forked(argv: list[str], kill_at: str | None = None) -> int:
    """A run in a child process (forked: nothing to import again), killed with SIGKILL at ``kill_at``."""
    pid = os.fork()
    if pid == 0:  # the child
        code = 99
        try:
            import benchwatch.pipeline.phases as phases

            if kill_at is not None:
                phases.phase = lambda name: os.kill(os.getpid(), signal.SIGKILL) if name == kill_at else None
            code = main(argv)
        finally:
            os._exit(code)
    return pid


def _wait(pid: int) -> int:
    _, status = os.waitpid(pid, 0)
    return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)


def _damage(rng, reports) -> str:
    """Cut one reports file: a table or log inside its last line (the line is lost, never silently
    shortened), a JSON or gzip file in the middle."""
    files = sorted(
        p
        for p in reports.rglob("*")
        if p.is_file() and not p.name.endswith(".lock") and ".repair-backup" not in p.parts and p.stat().st_size
    )
    victim = files[int(rng.integers(len(files)))]
    data = victim.read_bytes()
    if victim.suffix == ".csv" and data.count(b"\n") >= 2:
        start = data.rstrip(b"\n").rfind(b"\n") + 1
        cut = start + max(1, (len(data) - start) // 2)
    else:
        cut = max(1, len(data) // 2)
    victim.write_bytes(data[:cut])
    return str(victim.relative_to(reports))


def _harm(rng, reports, case: str) -> str:
    """Damage that nobody repairs by hand (issue 41): the next plain run must heal it."""
    import shutil

    if case == "latest.json deleted":
        (reports / "latest.json").unlink()
    elif case == "snapshots removed":
        shutil.rmtree(reports / "snapshots", ignore_errors=True)
    elif case == "a snapshot damaged":
        snapshots = sorted((reports / "snapshots").rglob("*.csv.gz"))
        victim = snapshots[int(rng.integers(len(snapshots)))]
        victim.write_bytes(victim.read_bytes()[: max(1, victim.stat().st_size // 2)])
    elif case == "a stale staging folder":  # a committed staging of a run that read older files than today's
        body = json.loads((reports / "latest.json").read_text())
        older = {**body, "benchmarks": body["benchmarks"][1:]}
        (reports / ".staging").mkdir(exist_ok=True)
        (reports / ".staging" / "latest.json").write_text(json.dumps(older))
        base = {"latest.json": hashlib.sha256(b"an older latest.json").hexdigest()}
        (reports / ".staging" / "COMMIT.json").write_text(json.dumps({"files": ["latest.json"], "base": base}))
    else:
        name = "alerts.json" if case == "alerts.json cut" else "changelog.json"
        text = (reports / name).read_text()
        (reports / name).write_text(text[: len(text) // 2])
    return case


def _kept(reports) -> tuple[dict, list]:
    """The alerts by id and the changelog's entries as they are (before a harm), or empty where unreadable."""
    try:
        alerts = {a["id"]: a for a in json.loads((reports / "alerts.json").read_text())["alerts"]}
        changes = json.loads((reports / "changelog.json").read_text())["changes"]
    except (ValueError, OSError, KeyError):
        return {}, []
    return alerts, changes


def _healed(reports) -> set[str]:
    """The ids of the operational alerts saying what a run rebuilt (an unreadable alerts.json: none)."""
    try:
        alerts = json.loads((reports / "alerts.json").read_text())["alerts"]
    except (ValueError, OSError):
        return set()
    return {a["id"] for a in alerts if a["kind"] == "healed"}


def _board(rng, shift: np.ndarray) -> bytes:
    models = {f"model-{k}": {"pass@1": {"humaneval": round(float(80 - 6 * k + shift[k]), 1)}} for k in range(6)}
    return json.dumps(models).encode()


def _cells(rng, flips: np.ndarray) -> bytes:
    ability = np.linspace(-1.5, 1.5, 6)[:, None] - np.linspace(-2, 2, 24)[None, :]
    y = (ability + flips > 0).astype(int)
    rows = [f"m{m},i{i:02d},{y[m, i]}" for m in range(6) for i in range(24)]
    return ("model,item_id,score\n" + "\n".join(rows) + "\n").encode()


def _revisions(fetcher: Fetcher, folder, name: str, adapter: str, body: bytes) -> set[tuple[str, str]]:
    """The (benchmark, revision) pairs of one genuine upstream body, read by the adapter from a local file."""
    local = folder / f"{hashlib.sha256(body).hexdigest()[:16]}-{name}"
    if local.exists():
        return set()  # seen before
    local.write_bytes(body)
    cfg = SourceConfig(name, adapter, str(local), {"benchmark": "cells"} if adapter == "csv" else {})
    table = load_source(fetcher, cfg)
    if adapter == "csv":
        frame = validate_responses(table.frame, name)
    else:
        frame = validate_aggregates(table.aggregates.astype(str), name)
    return {(b, content_revision(rows)) for b, rows in frame.groupby("benchmark")}


def test_steps_of_faults_kills_damage_and_overlaps_leave_a_sound_record(fixture_server, tmp_path, capsys):
    rng = np.random.default_rng(SEED)
    root = fixture_server.root
    files = {"board": ("evalplus", "board.json"), "cells": ("csv", "cells.csv")}
    state = {"board": np.zeros(6), "cells": np.zeros((6, 24))}
    bodies = {"board": _board(rng, state["board"]), "cells": _cells(rng, state["cells"])}
    config = tmp_path / "benchwatch.toml"
    lines = ["[http]", "retries = 1", "backoff = 0.01", "read_timeout = 0.2", "deadline = 0.3"]
    for name, (adapter, file) in files.items():
        lines += [f"[sources.{name}]", f'adapter = "{adapter}"', f'url = "{fixture_server.url}{file}"']
    lines += ['benchmark = "cells"']
    config.write_text("\n".join(lines) + "\n")
    reports, cache, site = tmp_path / "r", tmp_path / "c", tmp_path / "_site"
    argv = ["run", "--config", str(config), "--reports", str(reports), "--cache", str(cache)]
    genuine: set[tuple[str, str]] = set()
    published: dict[str, list[str]] = {}  # benchmark -> its revision in latest.json after each run
    statuses, steps, killed, damaged, harmed = [], [], [], [], []
    reader = Fetcher(tmp_path / "genuine-cache")
    (tmp_path / "genuine").mkdir()
    start = time.perf_counter()
    for run in range(RUNS):
        for name, (adapter, file) in files.items():
            if rng.random() < CHANGE[name]:  # a real change upstream
                if name == "board":
                    k = rng.integers(6)
                    state[name][k] += rng.choice([-0.4, 0.3])
                    bodies[name] = _board(rng, state[name])
                else:
                    m, i = rng.integers(6), rng.integers(24)
                    state[name][m, i] = 0 if state[name][m, i] else rng.choice([-9, 9])
                    bodies[name] = _cells(rng, state[name])
            (root / file).write_bytes(bodies[name])
            genuine |= _revisions(reader, tmp_path / "genuine", name, adapter, bodies[name])
            if rng.random() < 0.25:  # a fault on this run's requests
                fixture_server.script[f"/{file}"] = [str(rng.choice(FAULTS))] * int(rng.integers(1, 3))
            else:
                fixture_server.script.pop(f"/{file}", None)
            entries = list((cache / "http").glob("*.body")) if (cache / "http").is_dir() else []
            if entries and rng.random() < 0.05:  # the cache is damaged between runs
                victim = entries[int(rng.integers(len(entries)))]
                victim.write_bytes(victim.read_bytes()[: max(1, victim.stat().st_size // 3)])
        build = run % 50 == 49
        this = [*argv, "--site-out", str(site)] if build else [*argv, "--no-site"]
        step = str(rng.choice(list(STEPS), p=list(STEPS.values())))
        if step == "heal" and not (reports / "latest.json").exists():
            step = "run"  # nothing to damage before the first run
        steps.append(step)
        if step == "heal":
            healed_before = _healed(reports)
            alerts_before, changes_before = _kept(reports)
            harmed.append(_harm(rng, reports, HARM[len(harmed) % len(HARM)]))  # each in turn: every one happens
        if step == "kill":
            kill_at = str(rng.choice(PHASES))
            killed.append(_wait(_forked([*argv, "--site-out", str(site)], kill_at)) == -signal.SIGKILL)
        elif step == "overlap":
            first = _forked(this)
            time.sleep(0.1)
            second = _forked(this)
            pair = (_wait(first), _wait(second))
            assert all(code in (0, 1) for code in pair), pair
        status = main(this)  # after a kill: the run that makes the folder whole; after harm: the run that heals
        statuses.append(status)
        if step == "heal":  # said in the run's log, and in one new operational alert
            assert "heal " in capsys.readouterr().out, harmed[-1]
            assert len(_healed(reports) - healed_before) == 1, harmed[-1]  # kept through a cut: whole alerts stay
            alerts_after, changes_after = _kept(reports)  # issue 62: none lost, each as it was, title and evidence
            assert all(alerts_after.get(i) == a for i, a in alerts_before.items()), harmed[-1]
            assert all(c in changes_after for c in changes_before), harmed[-1]
        assert status in (0, 1), capsys.readouterr().err  # every run ends; all sources failing is 1
        for name, rec in load_latest(Reports(reports)).items():
            published.setdefault(name, []).append(rec.revision)
        if step == "damage":
            damaged.append(_damage(rng, reports))
            assert main(["check", "--reports", str(reports)]) == 1, damaged[-1]
            assert main(["repair", "--reports", str(reports)]) == 0, capsys.readouterr().out
        # a record still rebuilt waits only for a source that failed this run, or (after `repair`) for the next run
        left = check_reports(reports, pending=step != "damage")
        assert not left or (status == 1 and all("is as rebuilt from history.csv" in p for p in left)), (step, left)
        capsys.readouterr()
    reader.close()
    elapsed = time.perf_counter() - start
    assert sum(killed) > 8 and len(damaged) > 8 and steps.count("overlap") > 8  # every disturbance did happen
    assert len(harmed) > 5 and set(harmed) == set(HARM)

    assert main(["check", "--reports", str(reports), "--site-out", str(site)]) == 0, capsys.readouterr().out
    history = load_history(Reports(reports))
    for name, seen in published.items():
        assert {(name, r) for r in seen} <= genuine  # nothing corrupted was ever published
        changes = [r for k, r in enumerate(seen) if k == 0 or r != seen[k - 1]]
        rows = history.loc[history["benchmark"] == name, "revision"].tolist()
        assert rows == changes, name  # one row per real change, in order, none twice
    assert len(published) == 2 and all(len(set(v)) > 3 for v in published.values())  # the data did move
    runs = pd.read_csv(reports / "runs.csv", dtype=str)
    assert len(runs) >= RUNS - damaged.count("runs.csv") and statuses.count(0) > RUNS * 0.8
    assert (runs["status"] != "ok").sum() > 10  # and the faults did bite
    assert not list((cache / "http").glob("*.part"))
    assert (site / "index.html").exists()
    assert elapsed < 1800, f"{RUNS} steps took {elapsed:.0f} s"  # a guard against a hang, not a timing target
    print(  # the figures of the closing note (pytest -s)
        f"soak: {RUNS} steps in {elapsed:.0f} s ({sum(killed)} killed, {len(damaged)} damaged and repaired, "
        f"{len(harmed)} damaged and healed by the next run, "
        f"{steps.count('overlap')} overlapping pairs); exit 0: {statuses.count(0)}, exit 1: {statuses.count(1)}; "
        f"runs with a failed source: {(runs['status'] != 'ok').sum()}; history rows: "
        + ", ".join(f"{n} {len(history[history['benchmark'] == n])}" for n in sorted(published))
        + f"; distinct genuine revisions served: {len(genuine)}"
    )
