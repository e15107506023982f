"""Stage 5b: alerts on every change of state or flag."""

from bot.alerts.changes import diff_alerts

__all__ = ["diff_alerts"]
