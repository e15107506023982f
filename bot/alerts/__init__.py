"""Stage 5b: alerts on every change of state or flag, and on benchmarks gone upstream or held back."""

from bot.alerts.changes import diff_alerts, notice_alert

__all__ = ["diff_alerts", "notice_alert"]
