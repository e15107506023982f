"""A record's answer in one line, the first thing its page says (issue 60): its state with the figure that decided it,
its coverage verdicts with what would decide each that these models cannot, and its flags. Every part reads the
words the rules already wrote for the record (its ``why``, its verdicts, its ``resolve``): one rule, one sentence,
stated where the rule is kept. Escaped for Markdown here (every upstream string is)."""

from __future__ import annotations

import html
import re

from benchwatch.record import BenchmarkRecord
from benchwatch.site.escape import md
from benchwatch.vocabulary import FIGURES, VERDICTS

# each verdict by its own name (``vocabulary.Figure.verdict``), lower-cased into the sentence: one name per claim
_SHORT = {key: figure.verdict if key == "ddm" else figure.verdict.lower() for key, figure in FIGURES.items()}


def _state(rec: BenchmarkRecord) -> str:
    """The state with the evidence that decided it: the rules' own sentence (``why``'s first line)."""
    state = str(rec.state or "unknown")
    said = next((w for w in rec.why or [] if str(w).startswith(f"{state}:")), None)
    text = said if said is not None else state
    return f"**{md(text[:1].upper() + text[1:])}**."


def _decide(need: dict | None) -> str:
    """What would decide a "cannot tell", in a few words (``resolve_line`` says it whole, in the verdicts' table)."""
    if not need:
        return ""
    ways = []
    if need.get("models"):
        ways.append(f"{'at least ' if need.get('at_least') else ''}about {need['models']} models")
    if need.get("samples"):
        ways.append(f"{need['samples']} samples per item")
    if ways:
        return " or ".join(ways) + " would decide"
    return f"not even {need['largest_tried']} models would decide" if need.get("largest_tried") else ""


def _coverage(rec: BenchmarkRecord) -> str:
    """The coverage verdicts, found first, with what would decide the ones these models cannot."""
    if rec.kind == "aggregate":
        return "Coverage: not measured (scores only, no per-item data)."
    if rec.item_model == "withheld":
        return "Coverage: **withheld**: the item model does not fit these data (the Item model section says why)."
    verdicts = rec.verdicts or {}
    if not verdicts:
        return "Coverage: no verdict (too few models or items to bound)."
    parts: dict[str, list[str]] = {name: [] for name in VERDICTS}
    for key in FIGURES:
        v = verdicts.get(key)
        if not v:
            continue
        name = _SHORT.get(key, key)
        if v["verdict"] == "cannot tell":
            decide = _decide((rec.resolve or {}).get(key))
            name += f" ({decide})" if decide else ""
        parts[v["verdict"]].append(name)
    out = []
    if parts["found"]:
        out.append("found " + ", ".join(parts["found"]))
    if parts["cannot tell"]:
        out.append(f"cannot tell with these {rec.n_models} models: " + "; ".join(parts["cannot tell"]))
    if parts["clear"]:
        out.append("clear of " + ", ".join(parts["clear"]))
    return "Coverage: " + md("; ".join(out)) + "."


def verdict_line(rec: BenchmarkRecord) -> str:
    """The record's answer first (Markdown): state, coverage, flags."""
    flags = [str(f) for f in rec.flags or []]
    said = "Flags: **" + ", ".join(md(f) for f in flags) + "**." if flags else "No flag raised."
    return " ".join([_state(rec), _coverage(rec), said])


def verdict_text(rec: BenchmarkRecord) -> str:
    """``verdict_line`` as plain text (a feed item's, where no Markdown is read): the same words, unmarked."""
    line = verdict_line(rec).replace("**", "")
    return html.unescape(re.sub(r"\\(.)", r"\1", line))
