"""MkDocs hook: the collapsed rest of a long table is left out of the search index (benchwatch.site.search_scope)."""

from benchwatch.site import search_scope_hook as on_page_context  # noqa: F401 (the hook MkDocs reads)
