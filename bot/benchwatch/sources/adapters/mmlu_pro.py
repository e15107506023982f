"""MMLU-Pro: the authors' published model outputs, ``eval_results/model_outputs_<MODEL>_<N>shots.zip``.

Checked against the producer and the real files: TIGER-AI-Lab/MMLU-Pro @ f418b116 (2026-03-18) lists 48
such zips under ``eval_results/`` (a few end ``.json.zip``); ``../shared/upstream/mmlu_pro/`` holds two of
them byte for byte. Each zip holds one JSON file: a list of the 12,032 questions, each an object with
``question_id``, ``category``, ``answer`` (a letter), ``pred`` (the extracted letter, or null when the
answer could not be extracted) and the question, options and the model's output text.

A question is answered correctly when ``pred == answer``; a null ``pred`` counts as wrong (the official
script replaces it with a random guess, which adds about one tenth of the nulls in expectation: see
``../shared/data/mmlu_pro/SOURCE.md``). A record that is not an object is skipped (the count is logged);
a record without a ``pred`` field at all is an error naming the file; a record repeated whole is read once,
and a question id given twice with two records is an error. The model is the zip's name between ``model_outputs_`` and
``_<N>shots`` (or as configured: ``files = {MODEL = "FILE.zip"}``). The zips carry no dates.

Chance floors (``chance``): a question's ``options`` list is what the model chose among, so its floor is one over
the number of options (``chance_from`` says so). The real files: 9,982 questions with 10 options, 801 with 9,
320 with 8, 158 with 7, 92 with 6, 52 with 5, 607 with 4, 20 with 3 (the newest files, 2024-07 on). Seven
questions (2129, 2253, 2453, 3983, 5664, 5666, 6921) had fewer options in the earliest files (2024-05: one or
two, the dataset was revised after those runs; ``../shared/data/mmlu_pro/SOURCE.md``), so the files of one run
can disagree about a question: a floor is the item's, the same on every row, so each question takes the largest
number of options any file of the run gives it. A record without an ``options`` list of at least two entries
gives none (a question no file gives one to has no floor).

Benchmarks: ``MMLU-Pro`` over every question, and (``categories = true``, the default) each category as
its own benchmark ``MMLU-Pro <category>``. A zip is read in memory, never extracted.
"""

from __future__ import annotations

import json
import re
import zipfile

import pandas as pd

from benchwatch.errors import InputError
from benchwatch.sources.config import SourceConfig
from benchwatch.sources.http import Download, Fetcher
from benchwatch.sources.options import SourceOptions
from benchwatch.sources.parsing import provenance, surrogate_hook, where
from benchwatch.sources.table import LONG_COLUMNS, SourceTable, chance_of, with_chance

MAX_UNCOMPRESSED = 256 * 1024 * 1024
NAME = re.compile(r"model_outputs_(.+?)_\d+[-_]?shots.*\.zip")
CHANCE_FROM = "each question's number of options (the options in the authors' outputs)"


class Options(SourceOptions):
    """MMLU-Pro's options."""

    files: list[str] | dict[str, str] | None = None  # the zips under url, or a table model = zip name
    benchmark: str = "MMLU-Pro"  # the benchmark over every question
    categories: bool = True  # each category also as its own benchmark


def model_name(file: str) -> str:
    """The model a zip's name gives (``model_outputs_Llama-2-7b-hf_5shots.zip`` -> ``Llama-2-7b-hf``)."""
    found = NAME.fullmatch(file.rsplit("/", 1)[-1])
    return found.group(1) if found else file.rsplit("/", 1)[-1].removesuffix(".zip")


def _files(cfg: SourceConfig, opts: Options) -> dict[str, str]:
    files = opts.files
    if isinstance(files, list) and files and all(isinstance(f, str) and f for f in files):
        return {model_name(f): f for f in files}
    if isinstance(files, dict) and files and all(isinstance(f, str) and f for f in files.values()):
        return {str(m): f for m, f in files.items()}
    raise InputError(cfg.name, "expected a list of zip names, or a table model = zip name", field="files", value=files)


def _records(dl: Download, src: str) -> list:
    url = dl.url
    try:
        with zipfile.ZipFile(dl.path) as archive:
            members = [m for m in archive.infolist() if m.filename.endswith(".json")]
            if len(members) != 1:
                names = [m.filename for m in archive.infolist()]
                raise InputError(where(src, url), "expected one JSON file in the zip", value=names)
            if members[0].file_size > MAX_UNCOMPRESSED:
                raise InputError(where(src, url), "the JSON file is too large", value=members[0].file_size)
            # a lone surrogate (a JSON escape no UTF-8 file can hold) is kept as its escape
            body = archive.read(members[0])
            data = json.loads(body, object_pairs_hook=surrogate_hook(body))
    except zipfile.BadZipFile as exc:
        raise InputError(where(src, url), f"not a readable zip archive: {exc}") from None
    except json.JSONDecodeError as exc:
        raise InputError(where(src, url), f"invalid JSON at line {exc.lineno}: {exc.msg}") from None
    if not isinstance(data, list) or not data:
        raise InputError(where(src, url), "expected a non-empty JSON list of questions", value=type(data).__name__)
    return data


def _rows(records: list, model: str, src: str, url: str) -> tuple[list[tuple], int]:
    seen: dict[str, dict] = {}
    rows, skipped = [], 0
    for k, rec in enumerate(records):
        if not isinstance(rec, dict):
            skipped += 1
            continue
        for key in ("question_id", "category", "answer"):
            if rec.get(key) in (None, ""):
                raise InputError(where(src, url), "missing field", field=f"[{k}].{key}")
        if "pred" not in rec:  # null is "no answer extracted"; no field at all is a file of another shape
            raise InputError(where(src, url), "missing field", field=f"[{k}].pred", value=str(rec["question_id"]))
        item = str(rec["question_id"])
        if item in seen:  # a record repeated whole is read once; two different ones cannot be told apart
            if seen[item] == rec:
                continue
            raise InputError(
                where(src, url),
                f"the question {item!r} of {model!r} is given twice with two values",
                field=f"[{k}].question_id",
                value=item,
            )
        seen[item] = rec
        pred = rec["pred"]
        options = rec.get("options")
        count = len(options) if isinstance(options, list) else None
        right = 1.0 if pred is not None and pred == rec["answer"] else 0.0
        rows.append((str(rec["category"]), model, item, right, chance_of(count)))
    return rows, skipped


def load(fetcher: Fetcher, cfg: SourceConfig) -> SourceTable:
    """Fetch each configured zip and score every question."""
    opts = Options.of(cfg)
    src = cfg.name
    name = opts.benchmark
    by_category = opts.categories
    downloads, rows, notes = [], [], []
    for model, file in _files(cfg, opts).items():
        dl = fetcher.get(cfg.url + file, source=src)
        downloads.append(dl)
        got, skipped = _rows(_records(dl, src), model, src, dl.url)
        rows += got
        if skipped:
            notes.append(f"{file}: {skipped} record(s) that are not objects skipped")
    scored = pd.DataFrame(rows, columns=["category", "model", "item_id", "score", "chance"])
    frames = [scored.assign(benchmark=name)]
    if by_category:
        frames.append(scored.assign(benchmark=name + " " + scored["category"]))
    frame = pd.concat(frames, ignore_index=True)
    floors = frame["chance"]
    frame = frame.assign(score=frame["score"].map(repr), date="", trials="")[LONG_COLUMNS]
    frame, chance_from = with_chance(frame, floors, CHANCE_FROM)
    return SourceTable(
        src,
        cfg.url,
        frame,
        provenance=provenance(cfg.url, downloads),
        notes=tuple(notes),
        chance_from=chance_from,
    )
