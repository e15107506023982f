"""The common long table of responses, and its validation at the edge."""

from __future__ import annotations

import numpy as np
import pandas as pd

from benchwatch.errors import InputError
from benchwatch.sources import KEY, REQUIRED_COLUMNS, missing_columns
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


def percent_hint(scores: np.ndarray | pd.Series, option: str | None = None) -> str:
    """What an error says of scores out of [0, 1] that look like percentages (all within [0, 100], some above 1):
    to use ``option`` (``--percent``), or, where a reader has none, to give proportions; else nothing. One hint
    for every reader of scores: ``saturation`` and ``tiers`` (leaderboards), ``audit`` and ``run`` (responses)."""
    values = np.asarray(scores, dtype=float)
    values = values[~np.isnan(values)]
    if not values.size or values.min() < 0 or values.max() > 100 or values.max() <= 1:
        return ""
    fix = f"use {option}" if option else "give proportions, each divided by 100"
    return f" (the scores look like percentages, 0 to 100: {fix})"


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
    """Check a raw table against the common shape and return it typed and sorted.

    Every column is read as codes into its distinct values (a column already read as categories, as
    ``benchwatch.sources.fetch_csv_file`` reads a file, keeps its own), and each check runs once per distinct
    value, never once per row: a matrix of millions of cells names a few thousand models and items and a handful of
    scores. The names come back as categories (their canonical spellings, sorted): a code per row, each name held
    once. Tables built from them for publication (a benchmark's models, its items) carry the names as text."""
    missing = [c for c in REQUIRED_COLUMNS if c not in raw.columns]
    if missing:
        defaulted = raw.attrs.get("defaulted", ())  # a column the reader filled in is not one the file has
        raise InputError(source, missing_columns(missing, [str(c) for c in raw.columns if c not in defaulted]))
    if raw.empty:
        raise InputError(source, "no data rows")
    raw = raw.reset_index(drop=True)
    # column -> (each row's name code, each row's spelling code, the names sorted, the spellings)
    names = {col: _name_codes(raw[col], col, source) for col in ("benchmark", "model", "item_id")}
    columns: dict[str, object] = {
        col: (codes, sorted_names.astype(object)) for col, (codes, _, sorted_names, _) in names.items()
    }
    columns["score"] = _scores(raw["score"], source)
    # no dates: built once the rows are in order (None), never taken
    columns["date"] = _dates(raw["date"], source) if "date" in raw.columns else None
    columns["trials"] = _trials(raw["trials"], source) if "trials" in raw.columns else None
    if "chance" in raw.columns:
        chance = _chance(raw["chance"], names, source)
        if chance is not None:
            columns["chance"] = chance
    merged = _merged(names, ["benchmark", "model"])
    out = _table(columns, _cell_order(names, columns, raw, source))
    out.attrs["merged"] = merged
    return out


def _name_codes(
    column: pd.Series, col: str, source: str
) -> tuple[np.ndarray, np.ndarray | None, np.ndarray, np.ndarray]:
    """A name column (benchmark, model, item_id) read: each row's code into the canonical names sorted, each row's
    code into the spellings read (None for item ids: only the spellings of benchmarks and models merged are listed),
    the names sorted and the spellings; an empty or overlong name refused."""
    codes, uniques = _distinct(column)
    text = pd.Series(uniques, dtype=object).astype(str)
    canonical = canonical_names(text).to_numpy(dtype=object)
    empty = np.asarray(canonical == "", bool)
    fail_rows(source, _rows(codes, empty, missing=True), col, column, "empty value")
    _check_lengths(source, col, column, codes, text)
    sorted_names, name_of = (
        np.unique(canonical.astype(str), return_inverse=True)
        if canonical.size
        else (
            np.array([], dtype=str),
            np.array([], np.int64),
        )
    )
    row_codes = name_of.ravel().astype(np.int32)[codes]  # (a missing name was refused above)
    spelled = None if col == "item_id" else codes  # the spellings merged are listed for benchmarks and models
    return row_codes, spelled, sorted_names, text.to_numpy(dtype=object)


def _scores(column: pd.Series, source: str) -> np.ndarray:
    """Each row's score as a float, a missing or non-numeric score and one outside [0, 1] refused."""
    codes, uniques = _distinct(column)
    values = pd.to_numeric(pd.Series(uniques, dtype=object), errors="coerce").to_numpy(dtype=float)
    missing_score = np.isnan(values)
    fail_rows(source, _rows(codes, missing_score, missing=True), "score", column, "score is missing or not a number")
    outside = _rows(codes, (values < 0) | (values > 1))
    fail_rows(source, outside, "score", column, f"score must lie in [0, 1]{percent_hint(values)}")
    return values[codes]


def _dates(column: pd.Series, source: str) -> pd.api.extensions.ExtensionArray:
    """Each row's date (its day, naive UTC; missing where a row gives none), a date that is not ISO 8601 refused."""
    codes, uniques = _distinct(column)
    text = pd.Series(uniques, dtype=object).astype(str).str.strip()  # NaT/NA (code -1): no date
    date = iso_dates(text)
    fail_rows(source, _rows(codes, np.asarray(date.isna() & text.ne(""), bool)), "date", column, "not an ISO date")
    return _take(date.dt.normalize().array, codes)


def _trials(column: pd.Series, source: str) -> pd.api.extensions.ExtensionArray | None:
    """Each row's number of trials (missing: one), anything but a whole number from 1 to ``MAX_TRIALS`` refused;
    None when no row gives one."""
    codes, uniques = _distinct(column)
    text = pd.Series(uniques, dtype=object).astype(str).str.strip()  # NA (code -1): one trial
    trials = pd.to_numeric(text.where(text.ne("")), errors="coerce")
    bad = (trials.isna() & text.ne("")) | (trials.notna() & ((trials < 1) | (trials > MAX_TRIALS) | (trials % 1 != 0)))
    fail_rows(
        source,
        _rows(codes, np.asarray(bad, bool)),
        "trials",
        column,
        f"trials must be a whole number from 1 to {MAX_TRIALS:,}",
    )
    # every row without a number of trials (one each): kept as the table without the column keeps it
    return None if trials.isna().all() else _take(trials.astype("Int64").array, codes)


def _cell_order(names: dict, columns: dict, raw: pd.DataFrame, source: str) -> np.ndarray:
    """The rows' order by (benchmark, model, item) (codes are ranks in the names' order); rows naming one cell (rare)
    kept once where they agree, refused otherwise."""
    key = _cell_key([names[c][0] for c in KEY], [names[c][2].size for c in KEY])
    order = np.argsort(key, kind="stable")
    ordered = key[order]
    same = ordered[1:] == ordered[:-1]
    del ordered
    if same.any():
        flags = np.zeros(key.size, bool)
        flags[order[1:][same]] = True
        flags[order[:-1][same]] = True
        out, dup = _drop_agreeing_twins(_table(columns, None), raw, pd.Series(flags))
        if dup.any():
            _refuse_twins(out, raw, dup, source)
        kept = out.index.to_numpy()
        order = kept[np.argsort(key[kept], kind="stable")]
    return order


def _table(columns: dict, order: np.ndarray | None) -> pd.DataFrame:
    """The validated table from its per-row columns (the names as codes into their sorted names), in ``order``
    (None: as read); in order, each column is taken from ``columns`` in turn, so that only one is ever held twice."""
    out: dict = {}
    n = columns["score"].size if order is None else order.size
    for col in list(columns):
        value = columns[col] if order is None else columns.pop(col)  # in order: each original let go once taken
        if value is None and col == "date":  # no dates given
            out[col] = pd.array(np.full(n, np.datetime64("NaT", "ns")), dtype="datetime64[ns]")
        elif value is None:  # no trials given: one each (missing), a byte a row (Int64 took 9)
            out[col] = pd.arrays.IntegerArray(np.ones(n, np.int8), np.ones(n, bool))
        elif isinstance(value, tuple):  # (codes, names)
            codes, sorted_names = value
            small = np.int8 if sorted_names.size < 2**7 else np.int16 if sorted_names.size < 2**15 else np.int32
            out[col] = pd.Categorical.from_codes(
                (codes if order is None else codes[order]).astype(small, copy=False),
                categories=pd.Index(sorted_names, dtype=object),
            )
        elif isinstance(value, np.ndarray):
            out[col] = value if order is None else value[order]
        else:
            out[col] = value if order is None else value.take(order)
        del value
    return pd.DataFrame(out, copy=False)


def _refuse_twins(out: pd.DataFrame, raw: pd.DataFrame, dup: pd.Series, source: str) -> None:
    """The error for rows that name one cell with different results."""
    first = np.flatnonzero(dup.to_numpy())[0]
    first = out.index[first]
    cell = tuple(str(v) for v in out.loc[first, KEY])
    twin = out.index[(out[KEY].astype(object) == pd.Series(cell, index=KEY)).all(axis=1)]
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
        value=cell,
        row=_line(first),
    )


def _distinct(column: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Each row's code into the column's distinct values (-1 where missing) and those values (an object array)."""
    codes, uniques = pd.factorize(column, use_na_sentinel=True)
    return codes.astype(np.int32 if len(uniques) < 2**31 else np.int64, copy=False), np.asarray(uniques, dtype=object)


def _rows(codes: np.ndarray, bad: np.ndarray, missing: bool = False) -> pd.Series:
    """The rows whose value is flagged in ``bad`` (one flag per distinct value); with ``missing`` the rows with no
    value too."""
    flagged = np.append(np.asarray(bad, bool), missing)  # code -1 reads the last entry: the missing value's flag
    return pd.Series(flagged[codes])


def _take(values, codes: np.ndarray):
    """The per-row array of per-distinct-value ``values`` (missing where the code is -1)."""
    return values.take(codes, allow_fill=True)


def _check_lengths(source: str, field: str, column: pd.Series, codes: np.ndarray, text: pd.Series) -> None:
    """Refuse a name (benchmark, model, item id) longer than MAX_NAME characters, naming the row."""
    length = text.str.len().to_numpy()
    bad = _rows(codes, length > MAX_NAME)
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        more = int(bad.sum()) - 1
        value = str(text.iloc[codes[first]])
        raise InputError(
            source,
            f"{field} is {len(value):,} characters long, over the limit of {MAX_NAME:,} "
            f"(starts {value[:40]!r})" + (f"; {more} more row(s) like this" if more else ""),
            field=field,
            row=_line(first),
        )


def _cell_key(codes: list[np.ndarray], sizes: list[int]) -> np.ndarray:
    """One integer per row naming its (benchmark, model, item) cell."""
    key = codes[0].astype(np.int64)
    for c, n in zip(codes[1:], sizes[1:], strict=True):
        key *= max(n, 1)
        key += c
    return key


def _chance(column: pd.Series, names: dict, source: str) -> np.ndarray | None:
    """The items' nominal chance floors (one over the number of options of a multiple-choice item: what a model
    that guesses uniformly gets right), as floats, NaN where a row gives none; None when no row gives one (the
    table then carries no ``chance`` column, as before floors existed). Every row of an item must agree."""
    codes, uniques = _distinct(column)
    text = pd.Series(uniques, dtype=object).astype(str).str.strip()
    values = pd.to_numeric(text.where(text.ne("")), errors="coerce")
    bad = (values.isna() & text.ne("")) | (values.notna() & ((values < 0) | (values >= 1)))
    fail_rows(
        source,
        _rows(codes, np.asarray(bad, bool)),
        "chance",
        column,
        "chance must be a number in [0, 1) (one over the number of options)",
    )
    per_value = np.append(values.to_numpy(dtype=float), np.nan)  # code -1: no floor given
    chance = per_value[codes]
    if np.isnan(chance).all():
        return None
    item = _cell_key([names["benchmark"][0], names["item_id"][0]], [names[c][2].size for c in ("benchmark", "item_id")])
    # an item's distinct floors (no floor counts as one of them), each value once however it is spelled
    floor_values, floor_of = np.unique(np.nan_to_num(per_value, nan=-1.0), return_inverse=True)
    pairs = np.unique(item * floor_values.size + floor_of.ravel()[codes])
    items, floors_per_item = np.unique(pairs // floor_values.size, return_counts=True)
    uneven = np.isin(item, items[floors_per_item > 1])
    fail_rows(
        source,
        pd.Series(uneven),
        "chance",
        column,
        "the rows of one item give different chance floors (it is the item's, the same for every model)",
    )
    return chance


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
    frames = {
        col: pd.DataFrame({"raw": raw[col].astype(str), "name": out[col], "benchmark": out["benchmark"]})
        for col in columns
    }
    return _merged_entries(frames, columns)


def _merged(names: dict, columns: list[str]) -> list[dict]:
    """``merged_names`` from the columns' codes: one row per distinct (spelling, benchmark) pair, never per row."""
    bench = names["benchmark"][0]
    n_bench = max(1, names["benchmark"][2].size)
    frames = {}
    for col in columns:
        row_codes, spelling, sorted_names, text = names[col]
        if n_bench == 1:  # one benchmark: every spelling read is one of its pairs
            pairs = np.arange(text.size, dtype=np.int64)
        else:  # no row is missing a name (refused above)
            pairs = pd.unique(_cell_key([spelling, bench], [text.size, n_bench]))
        spell, at = pairs // n_bench, pairs % n_bench
        name_of = np.empty(text.size, np.int64)
        name_of[spelling] = row_codes
        frames[col] = pd.DataFrame(
            {
                "name": pd.Series(sorted_names[name_of[spell]], dtype=object),
                "raw": pd.Series(text[spell], dtype=object),
                "benchmark": pd.Series(names["benchmark"][2][at], dtype=object),
            }
        )
    return _merged_entries(frames, columns)


def _merged_entries(frames: dict, columns: list[str]) -> list[dict]:
    """One entry per name read from several spellings (or one that differs from it), from each column's frame of
    (raw, name, benchmark) pairs."""
    entries = []
    for col in columns:
        pairs = frames[col][["raw", "name", "benchmark"]]
        spellings = pairs.drop_duplicates().groupby(["benchmark", "name"])["raw"].agg(sorted)
        for (bench, name), forms in spellings.items():
            if len(forms) > 1 or forms[0] != name:
                shown = ", ".join(repr(f) for f in forms)
                label = name if col == "model" else "(the benchmark's name)"
                reason = f"{col} spelled {shown} upstream: read as {name!r}"
                entries.append({"benchmark": bench, "model": label, "reason": reason})
    return entries


def _drop_agreeing_twins(out: pd.DataFrame, raw: pd.DataFrame, dup: pd.Series) -> tuple[pd.DataFrame, pd.Series]:
    """Rows that name the same cell after normalisation (``dup``): one kept when they agree; the duplicates
    otherwise."""
    twins = out[dup]
    values = [c for c in ("score", "trials", "date", "chance") if c in twins.columns]
    agree = twins.groupby(KEY)[values].nunique(dropna=False).le(1).all(axis=1)
    spelled = raw.loc[twins.index, ["benchmark", "model", "item_id"]].astype(str).drop_duplicates()
    if agree.all() and len(spelled) == len(twins):  # distinct spellings, the same result: one row
        out = out[~out.duplicated(KEY, keep="first")]
        return out, out.duplicated(KEY, keep=False)
    return out, dup
