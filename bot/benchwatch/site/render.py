"""Pages from templates: Jinja2 (which ships with MkDocs), one template per page kind in ``templates/``.

Each template line is a line of the page; the Python side (the page modules: ``benchwatch.site.home``,
``.benchmark``, ``.alerts``, ``.fill`` and the cells they share) prepares the values, formats a cell's figures and
escapes every upstream string (the ``md`` filter), the templates lay out the Markdown."""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

import jinja2

from benchwatch.site.escape import md
from benchwatch.site.numbers import fmt, pct

TEMPLATES = Path(__file__).parent / "templates"
EMPTY = ("", "–", "– – –")  # cells that say nothing: a column empty in every row is left out of its table


def kept_columns(columns: list[tuple[str, str]], rows: list[list[str]]) -> list[int]:
    """The columns of a table that say something in some row (the first one always)."""
    return [k for k in range(len(columns)) if k == 0 or any(row[k].strip() not in EMPTY for row in rows)]


@cache
def environment() -> jinja2.Environment:
    """The templates' environment: undefined names fail loudly, and no HTML autoescape (the pages are Markdown:
    upstream strings go through the ``md`` filter, which escapes both Markdown and HTML)."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
    )
    env.filters.update({"md": md, "fmt": fmt, "pct": pct, "json": json.dumps})
    env.globals["kept_columns"] = kept_columns
    return env


def render(template: str, helpers: dict[str, Callable], **context: object) -> str:
    """One page (or section) from its template, with the page code's ``helpers`` as functions it may call."""
    return environment().get_template(template).render(**helpers, **context)
