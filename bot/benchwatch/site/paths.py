"""The site paths of a benchmark's page, pictures and feed (safe for any upstream name)."""

from __future__ import annotations

from benchwatch.record import BenchmarkRecord
from benchwatch.store import safe_slug


def benchmark_page(benchmark: str) -> str:
    """The site path of a benchmark id's page (safe for any upstream name)."""
    return f"benchmarks/{safe_slug(benchmark)}.md"


def page_of(rec: BenchmarkRecord) -> str:
    """The page (of its benchmark id) that shows a record."""
    return benchmark_page(rec.page or rec.benchmark)


def plot_path(benchmark: str, kind: str) -> str:
    """The site path of one of a benchmark's pictures."""
    return f"plots/{safe_slug(benchmark)}-{kind}.svg"


def benchmark_feed(benchmark: str) -> str:
    """The site path of a benchmark's RSS feed."""
    # At the site root: Material resolves sitemap.xml next to every rel=alternate link it finds.
    return f"feed-{safe_slug(benchmark)}.xml"
