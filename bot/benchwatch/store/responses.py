"""The common long table of responses, and its validation at the edge."""

from __future__ import annotations

import csv
import hashlib
import io

import numpy as np
import pandas as pd

from benchwatch.errors import InputError
from benchwatch.sources import KEY, REQUIRED_COLUMNS, missing_columns
from benchwatch.store.csvbytes import row_bytes
from benchwatch.store.naming import clean_name

OPTIONAL_COLUMNS = ("date", "trials", "chance")
MAX_TRIALS = 1_000_000  # samples behind one score; more is a unit mistake (or an attack), not an evaluation
MAX_NAME = 1_000  # characters in a benchmark, model or item id: longer is a pasted document, not a name


def iso_dates(text: pd.Series) -> pd.Series:
    """ISO 8601 dates as naive UTC timestamps (time zones, mixed or not, converted; a date alone is UTC)."""
    return pd.to_datetime(text.where(text.ne("")), format="ISO8601", errors="coerce", utc=True).dt.tz_localize(None)


def _line(index: int) -> int:
    """CSV line number of a data row (line 1 is the header)."""
    return int(index) + 2


def fail_rows(source: str, bad: pd.Series, field: str, values: pd.Series, message: str) -> None:
    """Raise an InputError for the first flagged row, counting the others."""
    rows = np.flatnonzero(bad.to_numpy())
    if rows.size == 0:
        return
    first = rows[0]
    more = f"; {rows.size - 1} more row(s) like this" if rows.size > 1 else ""
    raise InputError(
        source,
        message + more,
        field=field,
        value=values.iloc[first],
        row=_line(first),
    )


def check_name_length(source: str, field: str, values: pd.Series) -> None:
    """Refuse a name (benchmark, model, item id) longer than MAX_NAME characters, naming the row."""
    length = values.astype(str).str.len()
    bad = length > MAX_NAME
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        more = int(bad.sum()) - 1
        text = str(values.iloc[first])
        raise InputError(
            source,
            f"{field} is {int(length.iloc[first]):,} characters long, over the limit of {MAX_NAME:,} "
            f"(starts {text[:40]!r})" + (f"; {more} more row(s) like this" if more else ""),
            field=field,
            row=_line(first),
        )


def validate_responses(raw: pd.DataFrame, source: str) -> pd.DataFrame:
    """Check a raw table against the common shape and return it typed and sorted."""
    missing = [c for c in REQUIRED_COLUMNS if c not in raw.columns]
    if missing:
        defaulted = raw.attrs.get("defaulted", ())  # a column the reader filled in is not one the file has
        raise InputError(source, missing_columns(missing, [str(c) for c in raw.columns if c not in defaulted]))
    if raw.empty:
        raise InputError(source, "no data rows")
    raw = raw.reset_index(drop=True)
    out = pd.DataFrame(index=raw.index)
    for col in ("benchmark", "model", "item_id"):
        text = canonical_names(raw[col])
        fail_rows(source, text.eq("") | raw[col].isna(), col, raw[col], "empty value")
        check_name_length(source, col, raw[col])
        out[col] = text

    score = pd.to_numeric(raw["score"], errors="coerce")
    fail_rows(source, score.isna(), "score", raw["score"], "score is missing or not a number")
    fail_rows(source, (score < 0) | (score > 1), "score", raw["score"], "score must lie in [0, 1]")
    out["score"] = score.astype(float)

    if "date" in raw.columns:
        text = raw["date"].astype(str).str.strip().where(raw["date"].notna(), "")  # NaT/NA: no date
        date = iso_dates(text)
        fail_rows(source, date.isna() & text.ne(""), "date", raw["date"], "not an ISO date")
        out["date"] = date.dt.normalize()
    else:
        out["date"] = pd.Series(pd.NaT, index=raw.index, dtype="datetime64[ns]")

    if "trials" in raw.columns:
        text = raw["trials"].astype(str).str.strip().where(raw["trials"].notna(), "")  # NA: one trial
        trials = pd.to_numeric(text.where(text.ne("")), errors="coerce")
        bad = (trials.isna() & text.ne("")) | (
            trials.notna() & ((trials < 1) | (trials > MAX_TRIALS) | (trials % 1 != 0))
        )
        fail_rows(source, bad, "trials", raw["trials"], f"trials must be a whole number from 1 to {MAX_TRIALS:,}")
        out["trials"] = trials.astype("Int64")
    else:
        out["trials"] = pd.array([pd.NA] * len(raw), dtype="Int64")

    if "chance" in raw.columns:
        chance = _chance(raw["chance"], out, source)
        if chance is not None:
            out["chance"] = chance

    merged = merged_names(raw, out, ["benchmark", "model"])
    out, dup = _drop_agreeing_twins(out, raw)
    if dup.any():
        first = np.flatnonzero(dup.to_numpy())[0]
        key = tuple(out.loc[first, KEY])
        twin = out.index[(out[KEY] == pd.Series(key, index=KEY)).all(axis=1)]
        lines = ", ".join(str(_line(i)) for i in twin[:5])
        forms = sorted({tuple(raw.loc[i, KEY].astype(str)) for i in twin})
        what = f"duplicate (benchmark, model, item_id) on lines {lines}"
        if len(forms) > 1:
            spelled = " and ".join(repr(f) for f in forms)
            what += f": {spelled} are one name once normalised (Unicode NFKC, spaces), with different results"
        raise InputError(
            source,
            what,
            field="item_id",
            value=key,
            row=_line(first),
        )
    out = out.sort_values(KEY, kind="stable").reset_index(drop=True)
    out.attrs["merged"] = merged
    return out


def _chance(column: pd.Series, out: pd.DataFrame, source: str) -> pd.Series | None:
    """The items' nominal chance floors (one over the number of options of a multiple-choice item: what a model
    that guesses uniformly gets right), as floats, NaN where a row gives none; None when no row gives one (the
    table then carries no ``chance`` column, as before floors existed). Every row of an item must agree."""
    text = column.astype(str).str.strip().where(column.notna(), "")
    chance = pd.to_numeric(text.where(text.ne("")), errors="coerce")
    bad = (chance.isna() & text.ne("")) | (chance.notna() & ((chance < 0) | (chance >= 1)))
    fail_rows(source, bad, "chance", column, "chance must be a number in [0, 1) (one over the number of options)")
    if chance.isna().all():
        return None
    keyed = pd.DataFrame({"benchmark": out["benchmark"], "item_id": out["item_id"], "chance": chance.fillna(-1.0)})
    spread = keyed.groupby(["benchmark", "item_id"], sort=False)["chance"].transform("nunique")
    fail_rows(
        source,
        spread > 1,
        "chance",
        column,
        "the rows of one item give different chance floors (it is the item's, the same for every model)",
    )
    return chance.astype(float)


def canonical_names(values: pd.Series) -> pd.Series:
    """Each name in its canonical spelling (see ``clean_name``); the common all-ASCII case stays fast."""
    text = values.astype(str)
    plain = text.str.fullmatch(r"[ -~]*") & ~text.str.contains("  ", regex=False)
    out = text.str.strip()
    if not plain.all():
        out[~plain] = [clean_name(v) for v in text[~plain]]
    return out


def merged_names(raw: pd.DataFrame, out: pd.DataFrame, columns: list[str]) -> list[dict]:
    """The spellings that were merged into one name, for the provenance list: one entry per merged name."""
    entries = []
    for col in columns:
        pairs = pd.DataFrame({"raw": raw[col].astype(str), "name": out[col], "benchmark": out["benchmark"]})
        spellings = pairs.drop_duplicates().groupby(["benchmark", "name"])["raw"].agg(sorted)
        for (bench, name), forms in spellings.items():
            if len(forms) > 1 or forms[0] != name:
                shown = ", ".join(repr(f) for f in forms)
                label = name if col == "model" else "(the benchmark's name)"
                reason = f"{col} spelled {shown} upstream: read as {name!r}"
                entries.append({"benchmark": bench, "model": label, "reason": reason})
    return entries


def _drop_agreeing_twins(out: pd.DataFrame, raw: pd.DataFrame) -> tuple[pd.DataFrame, pd.Series]:
    """Rows that name the same cell after normalisation: one kept when they agree; the duplicates otherwise."""
    dup = out.duplicated(KEY, keep=False)
    if not dup.any():
        return out, dup
    twins = out[dup]
    values = [c for c in ("score", "trials", "date", "chance") if c in twins.columns]
    agree = twins.groupby(KEY)[values].nunique(dropna=False).le(1).all(axis=1)
    spelled = raw.loc[twins.index, ["benchmark", "model", "item_id"]].astype(str).drop_duplicates()
    if agree.all() and len(spelled) == len(twins):  # distinct spellings, the same result: one row
        out = out[~out.duplicated(KEY, keep="first")]
        return out, out.duplicated(KEY, keep=False)
    return out, dup


def content_revision(df: pd.DataFrame) -> str:
    """A short content hash of one benchmark's table (per-item or aggregate), independent of row order: the
    SHA-256 of its CSV text sorted by model and item, floats as ``%.10g`` and dates as ``%Y-%m-%d``.

    Computed without writing that text as pandas would: each column's distinct values are formatted (and
    quoted as the CSV writer quotes them) once, the rows ordered by their values' codes, and the bytes of each
    block of rows gathered by numpy and fed to the hash, so that tens of millions of cells hash in
    seconds and little memory. The bytes are those ``to_csv(index=False, float_format="%.10g",
    date_format="%Y-%m-%d")`` writes (a test keeps them so).
    """
    keys = [c for c in ("model", "item_id") if c in df.columns]
    cols = [c for c in ("model", "item_id", "score", "n_items", "date", "trials") if c in df.columns]
    if "chance" in df.columns and df["chance"].notna().any():  # a benchmark without floors keeps its revision
        cols.append("chance")
    codes, tables = [], []
    for c in cols:
        code, shown = _coded(df[c], sort=c in keys)
        codes.append(code)
        tables.append(shown)
    order = np.lexsort([codes[cols.index(k)] for k in reversed(keys)]) if keys else np.arange(len(df))
    blob, starts, lengths, bases = _table_bytes(tables)
    digest = hashlib.sha256((",".join(cols) + "\n").encode())
    step = 200_000
    for lo in range(0, len(order), step):  # a block of rows at a time: memory stays a few tens of MB
        rows = order[lo : lo + step]
        block = np.stack([codes[k][rows] + bases[k] for k in range(len(cols))], axis=1)
        digest.update(row_bytes(block, blob, starts, lengths).tobytes())
    return digest.hexdigest()[:12]


def _csv_field(text: str) -> str:
    """One field as the CSV writer writes it (quoted where it holds a comma, a quote or a line break)."""
    if text == "":
        return ""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow([text])
    return buffer.getvalue()[:-1]


def _coded(column: pd.Series, sort: bool) -> tuple[np.ndarray, list[str]]:
    """Each row's code into the column's distinct values as the CSV text shows them (missing: the last, empty)."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        column = column.astype(object)
    codes, uniques = pd.factorize(column, sort=sort, use_na_sentinel=True)
    if pd.api.types.is_datetime64_any_dtype(column.dtype):
        shown = [v.strftime("%Y-%m-%d") for v in uniques]
    elif pd.api.types.is_float_dtype(column.dtype):
        shown = ["%.10g" % v for v in uniques]  # noqa: UP031 (the writer's own format)
    else:
        shown = [_csv_field(str(v)) for v in uniques]
    codes = np.where(codes < 0, len(shown), codes).astype(np.int64)
    return codes, [*shown, ""]


def _table_bytes(tables: list[list[str]]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[int]]:
    """The distinct values of every column as one byte blob: where each starts, its length, each column's base."""
    encoded = [v.encode("utf-8") for t in tables for v in t]
    lengths = np.array([len(b) for b in encoded], np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    bases = np.cumsum([0, *[len(t) for t in tables[:-1]]]).tolist()
    return np.frombuffer(b"".join(encoded), np.uint8), starts, lengths, bases
