"""Stage 5b: alerts on every change of state or flag, and on benchmarks gone upstream or held back."""

from typing import TYPE_CHECKING

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".changes": ("diff_alerts", "notice_alert"),
    },
)

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.alerts.changes import diff_alerts as diff_alerts
    from benchwatch.alerts.changes import notice_alert as notice_alert
