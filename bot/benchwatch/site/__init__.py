"""Stage 7: the static audit site (MkDocs Material) and its RSS feeds."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".build": ("build_site", "find_site_project", "restore_site"),
        ".escape": ("md",),
        ".feed": ("rss_feed",),
    },
)
