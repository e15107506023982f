"""The home page's Sources table: the page a person reads linked, the revision short (full on hover), the age."""

from __future__ import annotations

import pytest

from bot.errors import InputError
from bot.site.pages import sources_section
from bot.sources.config import load_config

FULL = "sha256:" + "a" * 64 + "+sha256:" + "b" * 64 + "+sha256:" + "c" * 64


def _row(lines: list[str], name: str) -> str:
    return next(line for line in lines if line.startswith(f"| {name}") or line.startswith(f"| [{name}]"))


def test_homepage_linked_revision_short_with_full_on_hover_and_age():
    sources = {
        "board": {
            "status": "ok",
            "homepage": "https://example.org/leaderboard",
            "revision": FULL,
            "data_since": "2026-11-20T06:00:00Z",
        }
    }
    row = _row(sources_section(sources, "2026-11-30T06:00:00Z"), "board")
    assert "[board](https://example.org/leaderboard)" in row
    assert f'title="{FULL}"' in row and "aaaaaaaaaaaa+bbbbbbbbbbbb +1 more…" in row
    assert "| 10 days old |" in row and r"2026\-11\-20" in row  # dashes escaped for Markdown


@pytest.mark.parametrize("page", ["javascript:alert(1)", "https://x.org/a) [y](https://evil", None])
def test_a_page_that_is_not_a_plain_web_address_is_not_linked(page):
    sources = {"board": {"status": "ok", "homepage": page, "revision": "r1", "data_since": None}}
    row = _row(sources_section(sources, "2026-11-30T06:00:00Z"), "board")
    assert row.startswith("| board |") and "](" not in row
    assert "| r1 |" in row and "| – |" in row  # a short revision as it is; no data: no age


def test_the_configuration_refuses_a_homepage_that_is_not_a_web_address(tmp_path):
    path = tmp_path / "benchwatch.toml"
    path.write_text('[sources.a]\nadapter = "csv"\nurl = "x.csv"\nhomepage = "javascript:alert(1)"\n')
    with pytest.raises(InputError) as err:
        load_config(path)
    assert "sources.a.homepage" in str(err.value) and "javascript:alert(1)" in str(err.value)
