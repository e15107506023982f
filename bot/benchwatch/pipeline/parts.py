"""Fan-out parts: what one runner's sources produced, carried to the merge that writes reports/.

A part is a folder: ``part.json`` (the delta: records, history rows, alerts, changes, source statuses,
outcomes, and the SHA-256 of every file) and ``files/`` (the per-benchmark tables and snapshots, at
their paths in reports/). It is written aside and renamed into place, so a part is whole or absent.
A part records the digest of the reports it was computed from: the merge refuses a part from other
reports, since its alerts and history rows are differences from those.

A part travels as a CI artifact, so the merge trusts nothing in it: the format, the types, every path
(relative, inside the folders a run writes, no ``..``), every file's hash and the manifest's own hash
(``digest``: SHA-256 of the manifest's canonical JSON without it, so an edited history row or record is
refused like an edited file) are checked first.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path, PurePosixPath

from benchwatch.errors import InputError
from benchwatch.history import BenchmarkRecord, Reports, to_json, typed, written
from benchwatch.record import as_record

FORMAT = 2  # 2: the manifest carries its own digest
PART_FILE = "part.json"
FILES = "files"
BASE_FILES = ("latest.json", "history.csv", "alerts.json", "changelog.json", "sources.json")
WRITABLE = ("items", "models", "by_date", "snapshots")  # the folders of reports/ a part may write into


def base_digest(reports: Reports) -> str:
    """The digest of the reports a part starts from (the files its delta is a difference from)."""
    digest = hashlib.sha256()
    for name in BASE_FILES:
        data = reports.read_bytes(reports.root / name)
        digest.update(name.encode() + b"\0" + (b"-" if data is None else hashlib.sha256(data).digest()))
    return digest.hexdigest()


def manifest_digest(manifest: dict) -> str:
    """SHA-256 of a manifest's canonical JSON (sorted keys, rounded floats), its own ``digest`` left out."""
    body = {k: v for k, v in manifest.items() if k != "digest"}
    return hashlib.sha256(to_json(body).encode("utf-8")).hexdigest()


def write_part(folder: str | Path, delta, reports: Reports, *, now: str, position: int) -> None:
    """Write ``delta`` as a part in ``folder`` (replaced whole: written aside, then renamed)."""
    folder = Path(folder)
    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        for rel, data in delta.files.items():
            path = tmp / FILES / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        manifest = {
            "format": FORMAT,
            "base": base_digest(reports),
            "now": now,
            "position": position,
            "sources": delta.sources,
            "records": {name: written(rec) for name, rec in delta.records.items()},
            "new_rows": delta.new_rows,
            "new_alerts": delta.new_alerts,
            "changes": delta.changes,
            "statuses": delta.statuses,
            "outcomes": delta.outcomes,
            "ok": delta.ok,
            "failed": delta.failed,
            "files": {rel: hashlib.sha256(data).hexdigest() for rel, data in sorted(delta.files.items())},
        }
        manifest["digest"] = manifest_digest(manifest)
        (tmp / PART_FILE).write_text(to_json(manifest), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)
        os.replace(tmp, folder)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


_TYPES = {
    "format": int,
    "base": str,
    "now": str,
    "position": int,
    "sources": list,
    "records": dict,
    "new_rows": list,
    "new_alerts": list,
    "changes": list,
    "statuses": dict,
    "outcomes": list,
    "ok": int,
    "failed": int,
    "files": dict,
}


def _safe_rel(folder: Path, rel: object) -> str:
    path = PurePosixPath(str(rel))
    if (
        not isinstance(rel, str)
        or path.is_absolute()
        or ".." in path.parts
        or len(path.parts) < 2
        or path.parts[0] not in WRITABLE
        or "\\" in rel
    ):
        raise InputError(str(folder / PART_FILE), f"a file path outside the reports' tables: {rel!r}", field="files")
    return str(path)


def read_part(folder: str | Path) -> dict:
    """A part's manifest and files, every field and file checked (a clear error names what is wrong)."""
    folder = Path(folder)
    where = str(folder / PART_FILE)
    try:
        manifest = json.loads((folder / PART_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(where, "no part here (a `benchwatch run --reports-out` folder has one)") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InputError(where, f"not a readable part ({exc})") from None
    if not isinstance(manifest, dict):
        raise InputError(where, "not a part: expected a JSON object")
    for key, kind in _TYPES.items():
        if not isinstance(manifest.get(key), kind) or (kind is int and isinstance(manifest.get(key), bool)):
            raise InputError(where, f"expected {kind.__name__}, got {type(manifest.get(key)).__name__}", field=key)
    if manifest["format"] != FORMAT:
        raise InputError(where, f"part format {manifest['format']} (this benchwatch reads {FORMAT})", field="format")
    if not isinstance(manifest.get("digest"), str) or manifest_digest(manifest) != manifest["digest"]:
        raise InputError(
            where, "the manifest does not match its own SHA-256 (edited or damaged): refused", field="digest"
        )
    files = {}
    for rel, sha in manifest["files"].items():
        rel = _safe_rel(folder, rel)
        try:
            data = (folder / FILES / rel).read_bytes()
        except FileNotFoundError:
            raise InputError(where, f"listed file {rel} is missing", field="files") from None
        if hashlib.sha256(data).hexdigest() != sha:
            raise InputError(where, f"file {rel} does not match its SHA-256 (damaged or altered)", field="files")
        files[rel] = data
    for name, rec in manifest["records"].items():
        if not isinstance(rec, dict) or as_record(rec).benchmark != name:
            raise InputError(where, f"record {name!r} is not a benchmark record", field="records")
    return {**manifest, "files": files, "folder": str(folder)}


def combine(parts: list[dict], reports: Reports):
    """One delta from the parts, in the order of their sources in the configuration; refuses parts from
    other reports and two parts that carry one source or one benchmark. Returns (delta, the parts' time)."""
    from benchwatch.pipeline.apply import Delta

    if not parts:
        raise InputError("merge", "no parts given")
    base = base_digest(reports)
    owner_of_source: dict[str, str] = {}
    owner_of_bench: dict[str, str] = {}
    for part in parts:
        where = part["folder"]
        if part["base"] != base:
            raise InputError(
                where,
                f"computed from other reports than {reports.root} (base {part['base'][:12]}, reports now "
                f"{base[:12]}): the parts of one fan-out start from one commit; rerun this part",
                field="base",
            )
        for source in part["sources"]:
            if source in owner_of_source:
                raise InputError(where, f"source {source!r} is also in part {owner_of_source[source]}", field="sources")
            owner_of_source[source] = where
        for bench in part["records"]:
            if bench in owner_of_bench:
                raise InputError(
                    where, f"benchmark {bench!r} is also claimed by part {owner_of_bench[bench]}", field="records"
                )
            owner_of_bench[bench] = where
    ordered = sorted(parts, key=lambda p: p["position"])
    delta = Delta(
        sources=[s for p in ordered for s in p["sources"]],
        records={k: _record(p, k, v) for p in ordered for k, v in p["records"].items()},
        new_rows=[r for p in ordered for r in p["new_rows"]],
        new_alerts=[a for p in ordered for a in p["new_alerts"]],
        changes=[c for p in ordered for c in p["changes"]],
        statuses={k: v for p in ordered for k, v in p["statuses"].items()},
        outcomes=[o for p in ordered for o in p["outcomes"]],
        files={k: v for p in ordered for k, v in p["files"].items()},
        ok=sum(p["ok"] for p in ordered),
        failed=sum(p["failed"] for p in ordered),
    )
    return delta, min(p["now"] for p in ordered)


def _record(part: dict, name: str, body: dict) -> BenchmarkRecord:
    """A part's record of ``name``, validated as latest.json's are (an undeclared or mistyped field names the part
    and the field), its values as the part holds them."""
    typed(BenchmarkRecord, body, f"{part['folder']}: {name}")
    return as_record(body)
