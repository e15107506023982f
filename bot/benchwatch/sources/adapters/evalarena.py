"""eval-arena: example-level JSONL files (``benchmark_id, model, example_id, pass1`` and ``count``).

One benchmark per file; ``count`` (samples drawn) becomes ``trials``. The option ``files`` lists file names
that are joined to ``url`` (a folder URL ending in ``/``); without it ``url`` is one file. A file's benchmark is
its ``benchmark_id``, or the name ``names`` gives its file (``names = {"humaneval_hf.jsonl" = "..."}``): two
files of one ``benchmark_id`` (eval-arena's ``humaneval_hf.jsonl`` is a second run set of HumanEval, other
models on the same problems) are two benchmarks, never one merged silently; without a name that is an error.
"""

from __future__ import annotations

import json

import pandas as pd
from pydantic import Field

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import fetch_files, proportion, provenance, read_once, require, surrogate_hook, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable


def _parse(text: str, src: str, url: str, name: str | None = None) -> list[list[str]]:
    out = []
    hook = surrogate_hook(text)
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line, object_pairs_hook=hook)
        except json.JSONDecodeError as exc:
            raise InputError(where(src, url), f"invalid JSON on line {n}: {exc.msg}") from None
        ctx = f"line {n}"
        bench = require(rec, "benchmark_id", str, src, url, ctx)
        model = require(rec, "model", str, src, url, ctx)
        item = require(rec, "example_id", (str, int), src, url, ctx)
        score = proportion(require(rec, "pass1", (int, float), src, url, ctx), src, url, f"{ctx}.pass1", percent=False)
        count = rec.get("count")
        trials = str(int(count)) if isinstance(count, int | float) and count >= 1 and count % 1 == 0 else ""
        out.append([name or bench, model, str(item), repr(score), "", trials])
    if not out:
        raise InputError(where(src, url), "no records")
    return out


class Options(SourceOptions):
    """eval-arena's options."""

    files: list[str] = Field(default_factory=list)  # the files under url (none: url itself)
    names: dict[str, str] = Field(default_factory=dict)  # file -> the benchmark name its rows take


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch every configured file."""
    opts = Options.of(cfg)
    downloads = fetch_files(fetcher, cfg, opts.files)
    names = dict(opts.names)
    first_file: dict[str, str]
    rows, first_file, notes = [], {}, []
    for dl in downloads:
        try:
            text = dl.path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise InputError(where(cfg.name, dl.url), "the body is not UTF-8 text") from None
        file = dl.url.rsplit("/", 1)[-1]
        parsed = _parse(text, cfg.name, dl.url, names.get(file))
        for bench in sorted({r[0] for r in parsed}):
            other = first_file.setdefault(bench, file)
            if other != file:
                raise InputError(
                    where(cfg.name, dl.url),
                    f"benchmark {bench!r} is also that of {other}: name one of them in `names` "
                    "(two run sets of one benchmark are two benchmarks, not one)",
                    field="names",
                    value=file,
                )
        once, note = read_once(
            pd.DataFrame(parsed, columns=LONG_COLUMNS), ["benchmark", "model", "item_id"], cfg.name, dl.url
        )
        if note:  # a row repeated whole is read once, as LiveCodeBench does (issue 41)
            notes.append(f"{file}: {note}")
            parsed = once.values.tolist()
        rows += parsed
    frame = pd.DataFrame(rows, columns=LONG_COLUMNS)
    return SourceTable(cfg.name, cfg.url, frame, notes=tuple(notes), provenance=provenance(cfg.url, downloads))
