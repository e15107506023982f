"""Stage 8: the static audit site (MkDocs Material) and its RSS feeds."""

from typing import TYPE_CHECKING

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".build": ("build_site", "find_site_project", "restore_site"),
        ".escape": ("md",),
        ".feed": ("rss_feed",),
        ".search_scope": ("search_scope_hook",),
    },
)

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.site.build import build_site as build_site
    from benchwatch.site.build import find_site_project as find_site_project
    from benchwatch.site.build import restore_site as restore_site
    from benchwatch.site.escape import md as md
    from benchwatch.site.feed import rss_feed as rss_feed
    from benchwatch.site.search_scope import search_scope_hook as search_scope_hook
