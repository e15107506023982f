"""The home page's Sources table: the page a person reads linked, the revision short (full on hover), the data's
own date ("as of") and how long the upstream has not changed."""

from __future__ import annotations

import pytest

from benchwatch.errors import InputError
from benchwatch.history import SourceStatus
from benchwatch.site.sources_table import sources_section
from benchwatch.sources import load_config

FULL = "sha256:" + "a" * 64 + "+sha256:" + "b" * 64 + "+sha256:" + "c" * 64


def _row(section: str, name: str) -> str:
    return next(line for line in section.splitlines() if line.startswith(f"| {name}") or line.startswith(f"| [{name}]"))


def test_homepage_linked_revision_short_with_full_on_hover_and_as_of():
    sources = {
        "board": SourceStatus(
            status="ok",
            homepage="https://example.org/leaderboard",
            revision=FULL,
            data_since="2026-11-20T06:00:00Z",
            as_of="2025-04-22",
            as_of_from="upstream",
        ),
        "other": SourceStatus(status="ok", revision="r2", as_of="2026-11-01", as_of_from="newest dated result"),
    }
    lines = sources_section(sources, "2026-11-30T06:00:00Z")
    row = _row(lines, "board")
    assert "[board](https://example.org/leaderboard)" in row
    assert f'title="{FULL}"' in row and "aaaaaaaaaaaa+bbbbbbbbbbbb +1 more…" in row
    assert 'title="upstream date">2025-04-22</span> (unchanged upstream for 19 months)' in row
    assert r"| 2026\-11\-20 |" in row  # first fetched, dashes escaped for Markdown
    other = _row(lines, "other")
    assert 'title="newest dated result">2026-11-01</span> |' in other  # recent: no age


@pytest.mark.parametrize("page", ["javascript:alert(1)", "https://x.org/a) [y](https://evil", None])
def test_a_page_that_is_not_a_plain_web_address_is_not_linked(page):
    sources = {"board": SourceStatus(status="ok", homepage=page, revision="r1", data_since=None)}
    row = _row(sources_section(sources, "2026-11-30T06:00:00Z"), "board")
    assert row.startswith("| board |") and "](" not in row
    assert "| r1 |" in row and "| not stated upstream | – |" in row  # a short revision as it is; no dates


def test_the_configuration_refuses_a_homepage_that_is_not_a_web_address(tmp_path):
    path = tmp_path / "benchwatch.toml"
    path.write_text('[sources.a]\nadapter = "csv"\nurl = "x.csv"\nhomepage = "javascript:alert(1)"\n')
    with pytest.raises(InputError) as err:
        load_config(path)
    assert "sources.a.homepage" in str(err.value) and "javascript:alert(1)" in str(err.value)
