"""Generator of the bundled synthetic sample universe (run as a module to rewrite the shipped file).

Forty synthetic models published over 2024-2025 answer five synthetic benchmarks drawn from a Rasch
model, each built to show one pattern benchwatch exists to reveal:

- ``synthetic-olympiad``: 30 items in three tight difficulty clusters, so wide coverage gaps;
- ``synthetic-easy-heavy``: 500 items piled at the easy end (measure mismatch, large DDM), 3% cells missing;
- ``synthetic-saturated``: 800 items on which the top models are within noise of each other near the ceiling;
- ``synthetic-stagnant``: the top models plateau at the same ability far below the ceiling
  (pass@1 over 5 samples, so fractional scores with ``trials``);
- ``synthetic-healthy``: difficulties drawn from the target (uniform z) and well separated top models.

Everything is drawn from one ``numpy`` generator with a fixed seed, so the output is reproducible:
``python -m benchwatch.sources.sample_universe`` rewrites ``bot/benchwatch/sources/data/sample_universe.csv.gz``.
"""

from __future__ import annotations

import gzip
import io

import numpy as np
import pandas as pd
from scipy.special import expit, ndtri

from benchwatch.sources.local import SAMPLE_FILE
from benchwatch.sources.sample_dates import FIRST_DAY, LAST_DAY

SEED = 20261129
N_MODELS = 40


def _models(rng: np.random.Generator) -> tuple[list[str], pd.DatetimeIndex, np.ndarray]:
    """Model names, publication dates and a general ability that rises over time."""
    span = (LAST_DAY - FIRST_DAY).days
    days = np.sort(rng.choice(span + 1, size=N_MODELS, replace=False))
    dates = pd.DatetimeIndex(FIRST_DAY + pd.to_timedelta(days, unit="D"))
    progress = days / span
    ability = -1.6 + 3.4 * progress + rng.normal(0.0, 0.45, N_MODELS)
    names = [f"synthetic-model-{i + 1:02d}" for i in range(N_MODELS)]
    return names, dates, ability


def _difficulty_from_z(z: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Logit difficulty of an item placed at quantile z of the models' ability distribution."""
    return theta.mean() + theta.std() * ndtri(np.clip(z, 1e-4, 1 - 1e-4))


def _normal_scores(g: np.ndarray, scale: float) -> np.ndarray:
    """Abilities with the models' order but a normal spread, so the top five stand well apart."""
    ranks = np.argsort(np.argsort(g))
    return scale * ndtri((ranks + 0.5) / g.size)


def _benchmarks(rng: np.random.Generator, g: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
    """Per benchmark: (abilities, difficulties, trials per cell)."""
    out = {}
    theta = 1.6 * g
    z = np.concatenate([rng.uniform(lo, lo + 0.05, 15) for lo in (0.22, 0.68)])
    out["synthetic-olympiad"] = (theta, _difficulty_from_z(z, theta), 1)

    theta = _normal_scores(g, 2.5)
    z = np.where(rng.random(500) < 0.8, rng.beta(1.0, 6.0, 500), rng.uniform(0.75, 1.0, 500))
    out["synthetic-easy-heavy"] = (theta, _difficulty_from_z(z, theta), 1)

    theta = np.minimum(2.0 * g + 2.5, 4.5)  # the leaders share one ability: within noise of each other
    out["synthetic-saturated"] = (theta, rng.normal(0.0, 1.2, 800), 1)

    theta = np.minimum(g, 0.55)
    out["synthetic-stagnant"] = (theta, rng.normal(0.9, 1.2, 300), 5)

    theta = _normal_scores(g, 3.0)
    out["synthetic-healthy"] = (theta, _difficulty_from_z(rng.uniform(0.0, 1.0, 300), theta), 1)
    return out


def generate(seed: int = SEED) -> pd.DataFrame:
    """The sample universe as a long table: benchmark, model, item_id, score, date, trials."""
    rng = np.random.default_rng(seed)
    names, dates, g = _models(rng)
    frames = []
    for bench, (theta, b, trials) in _benchmarks(rng, g).items():
        p = expit(theta[:, None] - b[None, :])
        successes = rng.binomial(trials, p)
        models, items = np.meshgrid(np.arange(len(names)), np.arange(len(b)), indexing="ij")
        keep = np.ones_like(p, dtype=bool)
        if bench == "synthetic-easy-heavy":
            keep = rng.random(p.shape) >= 0.03
        frames.append(
            pd.DataFrame(
                {
                    "benchmark": bench,
                    "model": np.asarray(names)[models[keep]],
                    "item_id": [f"{bench.removeprefix('synthetic-')}-{i + 1:03d}" for i in items[keep]],
                    "score": successes[keep] / trials,
                    "date": dates[models[keep]].strftime("%Y-%m-%d"),
                    "trials": trials if trials > 1 else pd.NA,
                }
            )
        )
    df = pd.concat(frames, ignore_index=True)
    return df.sort_values(["benchmark", "model", "item_id"], kind="stable").reset_index(drop=True)


def to_csv_gz(df: pd.DataFrame) -> bytes:
    """Reproducible gzip bytes (no timestamp in the header)."""
    text = df.to_csv(index=False, float_format="%.4g", lineterminator="\n")
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as fh:
        fh.write(text.encode())
    return buf.getvalue()


def main() -> None:
    """Rewrite the shipped sample file."""
    SAMPLE_FILE.parent.mkdir(parents=True, exist_ok=True)
    SAMPLE_FILE.write_bytes(to_csv_gz(generate()))
    print(f"wrote {SAMPLE_FILE}")


if __name__ == "__main__":
    main()
