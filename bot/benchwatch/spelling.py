"""One canonical spelling of an upstream name, shared by the adapters (which tell a name listed twice by it) and
the store (which writes every name in it); and the readable name made from a source's own ids (Epoch's file ids
become the names Epoch's site gives them), shared by the pages and the run's log."""

from __future__ import annotations

import re
import unicodedata

# Dashes NFKC leaves as they are: the non-breaking hyphen becomes U+2010, the minus sign stays U+2212.
_DASHES = dict.fromkeys(map(ord, "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d"), "-")


def clean_name(text: str) -> str:
    """The canonical spelling of an upstream name: NFKC, ASCII dashes, no control or invisible
    characters, single spaces, no space at either end. Names that look the same become the same."""
    s = unicodedata.normalize("NFKC", str(text)).translate(_DASHES)
    s = "".join(" " if ch.isspace() else ch for ch in s if unicodedata.category(ch) not in ("Cc", "Cf") or ch.isspace())
    return " ".join(s.split())


EPOCH_TITLES = {  # Epoch's hub download names its CSVs by id; its site names the benchmarks so
    "gpqa_diamond": "GPQA Diamond",
    "math_level_5": "MATH Level 5",
    "otis_mock_aime_2024_2025": "OTIS Mock AIME 2024-2025",
    "frontiermath": "FrontierMath Tiers 1-3",
    "frontiermath_tier_4": "FrontierMath Tier 4",
    "simpleqa_verified": "SimpleQA Verified",
    "swe_bench_verified": "SWE-bench Verified",
    "swe_bench_bash": "SWE-bench bash-only",
    "chess_puzzles": "Chess puzzles",
}
WORDS = {  # the spelling of words in ids
    "mmlu": "MMLU", "gsm8k": "GSM8K", "bbh": "BBH", "piqa": "PIQA", "arc": "ARC", "ai2": "AI2", "qa": "QA",
    "swe": "SWE", "gpqa": "GPQA", "hella": "Hella", "swag": "Swag", "cybench": "Cybench", "aider": "Aider",
    "lambada": "LAMBADA", "open": "Open", "book": "Book", "polyglot": "Polyglot",
}  # fmt: skip


def _words(text: str) -> str:
    return " ".join(WORDS.get(w, w) for w in text.split("_"))


def default_display_name(benchmark: str) -> str:
    """A readable name from the id a source publishes, or the id itself."""
    epoch = re.fullmatch(r"Epoch ([a-z0-9_]+)", benchmark)
    if not epoch:
        return benchmark
    stem = epoch.group(1)
    if stem in EPOCH_TITLES:
        return f"{EPOCH_TITLES[stem]} (Epoch)"
    if stem.endswith("_external"):
        return f"{_words(stem.removesuffix('_external'))} (Epoch, reported by others)"
    return f"{_words(stem)} (Epoch)"
