"""The alerts' and the changelog's ledgers (issue 62): every entry of alerts.json and changelog.json also as one JSON
line of alerts.jsonl and changelog.jsonl, written with them in the run's transaction. A damaged file of either pair
loses nothing: ``repair`` (and the run's heal before it reads anything) restores each from the other, the entries
equal to the originals, titles and evidence included; ``check`` names every entry one holds that the other lacks."""

from __future__ import annotations

import json
from pathlib import Path

from benchwatch.history.formats import rounded

LEDGERS = {"alerts.json": "alerts.jsonl", "changelog.json": "changelog.jsonl"}  # a file and its ledger
TIME_KEY = {"alerts.json": "raised_at", "changelog.json": "snapshot_at"}  # the order both keep


def ledger_text(entries: list[dict]) -> str:
    """The ledger of ``entries``: one JSON line each, in their order, rounded as the file beside it rounds them
    (``formats.to_json``: a ledger read back equals the file read back)."""
    return "".join(json.dumps(rounded(e), ensure_ascii=False, sort_keys=True) + "\n" for e in entries)


def read_ledger(path: Path) -> tuple[list[dict], int]:
    """A ledger's whole entries, and how many of its lines are not one (a cut or damaged line); ([], 0) without
    the file."""
    if not path.exists():
        return [], 0
    kept, bad = [], 0
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            bad += 1
            continue
        if isinstance(entry, dict):
            kept.append(entry)
        else:
            bad += 1
    return kept, bad


def entry_key(entry: dict) -> str:
    """What tells two entries apart: an alert's id, else the whole entry."""
    return str(entry["id"]) if "id" in entry else json.dumps(entry, ensure_ascii=False, sort_keys=True)


def lacking(entries: list[dict], others: list[dict]) -> list[dict]:
    """The entries of ``others`` that ``entries`` lacks, in their order."""
    have = {entry_key(e) for e in entries}
    return [e for e in others if entry_key(e) not in have]


def union(name: str, entries: list[dict], others: list[dict]) -> list[dict]:
    """Every entry of either, once, in time order (``TIME_KEY``; stable: the first's order kept among equals)."""
    both = [*entries, *lacking(entries, others)]
    return sorted(both, key=lambda e: str(e.get(TIME_KEY[name], "")))
