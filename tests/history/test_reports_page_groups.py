"""One page per benchmark id: which record leads it."""

from __future__ import annotations

from benchwatch.history.reports import page_groups
from benchwatch.record import as_record


def test_the_per_item_fit_named_as_the_page_leads_it_then_the_other_fits_then_the_boards():
    records = {
        name: as_record({"benchmark": name, "page": "SWE-bench Verified", "kind": kind})
        for name, kind in [
            ("Epoch swe_bench_verified", "aggregate"),
            ("Epoch samples SWE-bench Verified", "items"),
            ("SWE-bench Verified", "items"),
            ("A board", "aggregate"),
        ]
    } | {"Other": as_record({"benchmark": "Other", "kind": "items"})}
    groups = page_groups(records)
    assert [r.benchmark for r in groups["SWE-bench Verified"]] == [
        "SWE-bench Verified",
        "Epoch samples SWE-bench Verified",
        "A board",
        "Epoch swe_bench_verified",
    ]
    assert [r.benchmark for r in groups["Other"]] == ["Other"]
