"""The bundled sample universe's span of publication dates: its generator (``benchwatch.sources.sample_universe``)
draws the models' dates in it, and the sample's reader (``benchwatch.sources.local.fetch_sample``) reports its last
day as the day the bundled data end; kept apart so that neither module imports the other for it."""

from __future__ import annotations

import pandas as pd

FIRST_DAY = pd.Timestamp("2024-01-08")
LAST_DAY = pd.Timestamp("2025-12-15")
