"""The scheduler: --once goes through APScheduler; one run at a time; missed runs coalesced."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime, timedelta

from apscheduler.schedulers.background import BackgroundScheduler
from apscheduler.triggers.interval import IntervalTrigger

from benchwatch.cli import main
from benchwatch.pipeline import JOB_OPTIONS, add_job
from benchwatch.pipeline.schedule import JOB_ID


def test_once_runs_the_job_through_the_scheduler_and_exits(tmp_path, capsys):
    argv = [
        "schedule",
        "--once",
        "--sample",
        "--no-site",
        "--reports",
        str(tmp_path / "r"),
        "--cache",
        str(tmp_path / "c"),
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "schedule: run finished: exit status 0" in out
    assert (tmp_path / "r" / "latest.json").exists()


def test_a_bad_cron_is_an_input_error(capsys):
    assert main(["schedule", "--sample", "--cron", "not a cron"]) == 2
    assert "--cron" in capsys.readouterr().err


def test_once_checks_the_cron_before_running_anything(tmp_path, capsys):
    argv = ["schedule", "--once", "--sample", "--no-site", "--cron", "61 * * * *", "--reports", str(tmp_path / "r")]
    assert main(argv) == 2
    assert "--cron" in capsys.readouterr().err
    assert not (tmp_path / "r").exists()  # the job never ran


def test_a_second_instance_never_starts_while_one_runs():
    running, peak, starts, lines = [0], [0], [0], []
    lock = threading.Lock()

    def slow_job() -> str:
        with lock:
            running[0] += 1
            starts[0] += 1
            peak[0] = max(peak[0], running[0])
        time.sleep(0.6)
        with lock:
            running[0] -= 1
        return "ok"

    scheduler = BackgroundScheduler(timezone="UTC")
    add_job(scheduler, slow_job, IntervalTrigger(seconds=0.15, timezone="UTC"), lines.append)
    scheduler.start()
    time.sleep(1.6)
    scheduler.shutdown(wait=True)
    assert JOB_OPTIONS["max_instances"] == 1
    assert peak[0] == 1 and starts[0] >= 2
    assert any("skipped a run: the previous one is still running" in line for line in lines)


def test_missed_runs_are_coalesced_into_one():
    calls, lines = [], []
    scheduler = BackgroundScheduler(timezone="UTC")
    trigger = IntervalTrigger(seconds=5, timezone="UTC")
    scheduler.start(paused=True)
    add_job(scheduler, lambda: calls.append(1), trigger, lines.append)
    # As if the box had been asleep: the job was due 40 s ago, so 8 fire times (all within the grace
    # time) have passed; coalescing runs it once for all of them.
    scheduler.modify_job(JOB_ID, next_run_time=datetime.now(UTC) - timedelta(seconds=40))
    scheduler.resume()
    time.sleep(0.5)
    scheduler.shutdown(wait=True)
    assert JOB_OPTIONS["coalesce"] is True
    assert len(calls) == 1
