"""Stage 5b: alerts on every change of state or flag, and on benchmarks gone upstream or held back."""

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".changes": ("diff_alerts", "notice_alert"),
    },
)
