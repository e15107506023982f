"""Stage 7: the static audit site (MkDocs Material) and its RSS feeds."""

from bot.site.build import build_site, find_site_project, restore_site
from bot.site.escape import md
from bot.site.feed import rss_feed

__all__ = ["build_site", "find_site_project", "md", "restore_site", "rss_feed"]
