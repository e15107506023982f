"""Safe file names for untrusted upstream strings."""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile(r"[^a-z0-9]+")


def safe_slug(name: str, max_length: int = 60) -> str:
    """A path-safe slug of ``name``; a short hash is added whenever the slug is not the name itself."""
    slug = _UNSAFE.sub("-", name.lower()).strip("-")[:max_length].strip("-")
    if slug != name or not slug:
        digest = hashlib.sha256(name.encode("utf-8")).hexdigest()[:8]
        slug = f"{slug}-{digest}" if slug else digest
    return slug
