"""Names from upstream: one canonical spelling per name, and file names that map to names one to one."""

from __future__ import annotations

import hashlib
import re

from benchwatch.spelling import clean_name as clean_name  # the canonical spelling, shared with the adapters

_UNSAFE = re.compile(r"[^a-z0-9]+")
_HASHED = re.compile(r"-[0-9a-f]{8}$")


def safe_slug(name: str, max_length: int = 60) -> str:
    """A path-safe file name for ``name``, distinct for distinct names.

    A name that is already a short slug (lower-case letters, digits, inner dashes) is its own slug; any
    other name, and any name that ends like a hashed slug (``-`` and eight hex digits), becomes its
    slugged text plus the first eight hex digits of its SHA-256. The two kinds cannot meet: only hashed
    slugs end in ``-`` and eight hex digits, and two hashed slugs meet only if their hashes do (callers
    that publish many names check for that with ``slug_collisions``).
    """
    slug = _UNSAFE.sub("-", name.lower()).strip("-")[:max_length].strip("-")
    if slug != name or not slug or _HASHED.search(name):
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
        slug = f"{slug}-{digest}" if slug else digest
    return slug


def slug_collisions(names: list[str] | set[str]) -> list[tuple[str, str]]:
    """Pairs of distinct names that would share a file name (in practice never; refused when it happens)."""
    seen: dict[str, str] = {}
    clashes = []
    for name in sorted(set(names)):
        other = seen.setdefault(safe_slug(name), name)
        if other != name:
            clashes.append((other, name))
    return clashes
