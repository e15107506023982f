"""The whole audit of one benchmark at the size of the largest public matrices (issue 23).

A full ``audit`` (the MAP fit, the abilities, the model-based figures, the model-free bounds and verdicts,
what larger pool would decide, the paired saturation figures) of a simulated 1PL matrix, timed against the
fit alone and against one plain numpy pass over the same cells measured in the same run, with the process's
peak memory. At a size where the dense reference still fits, the figures are also computed by the dense
models x items path (``item_posterior_dense``, ``marginal_abilities``) and compared.

Every item has a nominal chance floor of 0.25 (``--chance``; 0 for open-ended items) and is answered at 0.4 of it
(``--share``): the audit estimates the effective floor, fits at it, runs the fit check and computes the bounds at
both ends of the floor's interval. Up to 5 million cells (``--baseline``) two baselines are timed in the same run,
each ``--repeats`` times, interleaved with the floored audit (medians compared): the audit of the code issue 37
was filed against (``--filed-at``: its ``bot`` package by ``git archive``, in a process of its own, on the same
responses without floors), which is issue 37's "today's time" (target: the floored audit within 1.5x of it at
300 x 5,000); and this code's own audit without item models (the 1PL, no floor, no check), a stricter reference
that also has every later speed-up of the stages both share.

Run: ``python benchmarks/audit_scale.py`` (4,500 x 12,000, 30% missing; targets: under 10 minutes and 8 GB on
2 cores; then the dense reference at 100 x 1,000, where both fit); ``--models 300 --items 5000 --missing 0``;
``--mmlu-pro`` for ``../shared/data/mmlu_pro/`` (targets of both: under 10 s, within 5x the fit alone).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bot"))


def rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2


def simulate(
    n_models: int, n_items: int, missing: float, seed: int = 0, chance: float = 0.0, share: float = 0.0
) -> pd.DataFrame:
    """A long table of binary responses shaped as ``benchwatch.store.validate_responses`` returns a file's (the
    names as categorical codes, no dates, one trial each: a 38-million-row table in about a GB), built a block of
    models at a time (never the whole dense matrix, nor a cell's index as int64); with ``chance`` every item has
    that nominal floor (a ``chance`` column) and is answered with ``share`` of it."""
    rng = np.random.default_rng(seed)
    theta, b = rng.normal(0, 1.5, n_models), rng.normal(0, 1.5, n_items)
    code = np.int16 if max(n_models, n_items) < 2**15 else np.int32
    models, items = [], []
    for lo in range(0, n_models, 250):
        block = rng.random((min(250, n_models - lo), n_items)) >= missing
        m, i = np.nonzero(block)
        models.append((m + lo).astype(code))
        items.append(i.astype(code))
        del block, m, i
    floor = chance * share
    scores = []
    # the same draws as one call over every cell: a generator's stream can be cut anywhere
    for m, i in zip(models, items, strict=True):
        p = expit(theta[m] - b[i])
        scores.append((rng.random(m.size) < floor + (1 - floor) * p).astype(float))
        del p
    n = sum(m.size for m in models)
    frame = pd.DataFrame(
        {
            "benchmark": pd.Categorical.from_codes(np.zeros(n, np.int8), ["scale"]),
            "model": pd.Categorical.from_codes(np.concatenate(models), [f"m{k:05d}" for k in range(n_models)]),
            "item_id": pd.Categorical.from_codes(np.concatenate(items), [f"i{k:06d}" for k in range(n_items)]),
            "score": np.concatenate(scores),
            "date": pd.array(np.full(n, np.datetime64("NaT", "ns")), dtype="datetime64[ns]"),
            "trials": pd.arrays.IntegerArray(np.ones(n, np.int8), np.ones(n, bool)),
        },
        copy=False,
    )
    del models, items, scores
    if chance:
        frame["chance"] = np.float64(chance)
    return frame


FILED_AT = "5b45c7576a87b0f739db4faa48477002c77ad2a6"  # main when issue 37 was filed (its first change is 12aa46c)
FILED_SCRIPT = """
import json, sys, time
import pandas as pd
sys.path.insert(0, sys.argv[1])
from bot.irt import encode_responses, fit_rasch
from bot.pipeline.audit import measure, split_uninformative
from bot.rules import threshold_map
frame, warm = pd.read_pickle(sys.argv[2]), pd.read_pickle(sys.argv[3])
measure(warm, fit_rasch(encode_responses(warm), "map"), source="warm-up", by_date=False)
start = time.perf_counter()
fit = fit_rasch(encode_responses(split_uninformative(frame)[0]), "map")
measure(frame, fit, source="scale", by_date=False, thresholds=threshold_map(), seed=0)
print(json.dumps(time.perf_counter() - start))
"""


class FiledAudit:
    """The audit of an earlier commit's code (its ``bot`` package, before the package was named benchwatch), timed
    on the same responses in a process of its own, as this script times the current audit: fit and audit after a
    warm-up that loads its compiled kernels. The code is extracted by ``git archive`` into a cache folder, where
    its kernels compile once (a first run, untimed)."""

    def __init__(self, commit: str, frame: pd.DataFrame, warm: pd.DataFrame) -> None:
        import subprocess
        import tempfile

        self.folder = Path(tempfile.gettempdir()) / f"benchwatch-filed-{commit[:12]}"
        if not (self.folder / "bot").is_dir():
            self.folder.mkdir(parents=True, exist_ok=True)
            archive = subprocess.run(
                ["git", "-C", str(ROOT), "archive", commit, "bot"], check=True, capture_output=True
            ).stdout
            subprocess.run(["tar", "-x", "-C", str(self.folder)], input=archive, check=True)
        self.data = self.folder / "responses.pkl"
        self.warm = self.folder / "warm.pkl"
        frame.to_pickle(self.data)
        warm.to_pickle(self.warm)
        self.run()  # its kernels compiled (and cached) outside the timing

    def run(self) -> float:
        import json
        import subprocess

        out = subprocess.run(
            [sys.executable, "-c", FILED_SCRIPT, str(self.folder), str(self.data), str(self.warm)],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
        return float(json.loads(out.strip().splitlines()[-1]))


def numpy_pass(data) -> float:
    """One plain numpy pass over the cells (a gradient of the 1PL at zero), computed in place: two arrays of a number
    per cell at once, not four (at 38 million cells its temporaries were this script's peak, above the audit's)."""
    start = time.perf_counter()
    p = np.zeros(data.n_models)[data.model_idx]
    p -= np.zeros(data.n_items)[data.item_idx]
    expit(p, out=p)
    np.subtract(data.y, p, out=p)
    np.bincount(data.item_idx, p, minlength=data.n_items)
    return time.perf_counter() - start


def dense_agreement(frame: pd.DataFrame, rec: dict, audit) -> str:
    """The model-based figures (abilities, item posteriors, draws) and the bounds computed from dense models x
    items matrices instead of the cells, against the audit's: the largest difference over the figures."""
    from scipy.special import log_expit

    from benchwatch.irt import difficulty_b, encode_responses, item_posterior_dense
    from benchwatch.metrics import (
        UNIFORM,
        axis_bounds,
        axis_grid,
        axis_likelihood,
        figures_from_draws,
        posterior_z_draws,
    )
    from benchwatch.metrics.resolution import N_DRAWS, target_reference

    data = encode_responses(frame)
    theta = audit.models.set_index("model")["theta_axis"].reindex(data.models).to_numpy(float)
    trials, successes = data.dense()
    post = item_posterior_dense(trials, successes, theta)
    draws = posterior_z_draws(theta, "ability-quantile", N_DRAWS, np.random.default_rng(0), post)
    dense = figures_from_draws(draws, UNIFORM, reference=target_reference(data.n_items, UNIFORM))
    model_based = max(abs(dense.median[k] - rec[k]) for k in ("ddm", "max_gap", "top5_gap_sum"))
    from benchwatch.irt import uncertain_abilities

    sd = audit.models.set_index("model")["theta_sd"].reindex(data.models).to_numpy(float)
    abilities = uncertain_abilities(theta, sd)  # each ability's own error, as the audit's bounds take it
    grid = difficulty_b(axis_grid(), abilities.population, "ability-quantile")
    eta = abilities.slope[:, None] * (abilities.theta[:, None] - grid[None, :])
    rows = successes.T @ log_expit(eta) + (trials - successes).T @ log_expit(-eta)
    b = axis_bounds(axis_likelihood(rows))
    bounds = max(
        abs(b.detection_limit - rec["detection_limit"]),
        abs(b.ddm_lo - rec["ddm_bound_lo"]),
        abs(b.ddm_hi - rec["ddm_bound_hi"]),
        abs(b.top5_upper - (rec["top5_gap_sum_bound_hi"] or 1.0)),
    )
    return (
        f"dense reference: model-based figures within {model_based:.1e} (their Monte Carlo error is ~1e-3), "
        f"bounds within {bounds:.1e}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", type=int, default=4500)
    parser.add_argument("--items", type=int, default=12000)
    parser.add_argument("--missing", type=float, default=0.3)
    parser.add_argument("--mmlu-pro", action="store_true", help="audit ../shared/data/mmlu_pro/mmlu_pro.csv instead")
    parser.add_argument("--dense-check", action="store_true", help="also compare with the dense path (small sizes)")
    parser.add_argument("--chance", type=float, default=0.25, help="every item's nominal floor (0: open-ended)")
    parser.add_argument("--share", type=float, default=0.4, help="the share of it the models guess at")
    parser.add_argument(
        "--baseline",
        choices=("auto", "yes", "no"),
        default="auto",
        help="also time the audit as it was before item models (the 1PL, no floor, no fit check) in the same run "
        "(auto: up to 5 million cells)",
    )
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed runs of each audit where the baselines run (the medians compared)"
    )
    parser.add_argument(
        "--filed-at",
        default=FILED_AT,
        help="also time the audit of this commit's code (git archive into a cache folder, a process of its own) on "
        "the same responses without floors, where the baselines run ('' skips it; default: the code issue 37 was "
        "filed against, 'today's time' of its must-show 4)",
    )
    args = parser.parse_args()
    if args.dense_check:  # the dense reference is the open-ended 1PL's
        args.chance = 0.0
    from benchwatch.irt import encode_responses, fit_item_model, fit_rasch
    from benchwatch.pipeline.audit import measure, split_uninformative
    from benchwatch.rules import DEFAULT_THRESHOLDS, recorded_verdicts, threshold_map
    from benchwatch.store import validate_responses

    if args.mmlu_pro:
        from benchwatch.sources import fetch_csv_file

        folder = ROOT.parent / "shared" / "data" / "mmlu_pro"
        table = fetch_csv_file(folder / "mmlu_pro.csv")
        raw = table.frame
        if args.chance:  # each question's own floor: one over its number of options
            options = pd.read_csv(folder / "items.csv", dtype=str).set_index("item_id")["n_options"].astype(int)
            raw = raw.assign(chance=(1.0 / raw["item_id"].astype(str).map(options)).map(repr))
        frame = validate_responses(raw, table.location)
        label = "MMLU-Pro (../shared/data/mmlu_pro)" + (", each question's floor" if args.chance else "")
    else:
        print(f"simulating {args.models:,} x {args.items:,}, {args.missing:.0%} missing ...", flush=True)
        frame = simulate(args.models, args.items, args.missing, chance=args.chance, share=args.share)
        label = f"simulated {args.models:,} x {args.items:,}, {args.missing:.0%} missing"
        if args.chance:
            label += f", floors {args.chance} nominal (guessed at {args.share:.0%} of it)"
    warm = simulate(8, 30, 0.0, seed=1)  # numba's one-off load of the compiled kernels, outside the timing
    measure(warm, fit_rasch(encode_responses(warm), "map"), source="warm-up", by_date=False)
    before = rss_gb()
    fitted, _ = split_uninformative(frame)
    data = encode_responses(fitted)
    base = min(numpy_pass(data) for _ in range(3))
    print(f"{label}: {data.model_idx.size:,} cells; data held: {before:.2f} GB; one numpy pass: {base:.2f} s")
    baseline = args.baseline == "yes" or (args.baseline == "auto" and data.model_idx.size <= 5_000_000)
    plain = frame.drop(columns=["chance"]) if "chance" in frame.columns else frame
    filed = FiledAudit(args.filed_at, plain, warm) if baseline and args.filed_at else None

    def audit_before() -> float:  # the audit as it was before item models: the 1PL without floors, unchecked
        start = time.perf_counter()
        fit0 = fit_rasch(encode_responses(split_uninformative(plain)[0]), "map")
        measure(plain, fit0, source="scale", by_date=False, thresholds=threshold_map(), seed=0)
        return time.perf_counter() - start

    start = time.perf_counter()
    fit = fit_rasch(data, "map", floor=None if data.chance is None else args.share * data.chance)
    # (the MMLU-Pro run's floors are each question's own; its share is not known: the fit alone at args.share)
    fit_s = time.perf_counter() - start  # the fit alone (at the floors the data were drawn with)
    cells = data.model_idx.size
    del data  # as ``audit_benchmark`` lets the fit's arrays go before the audit encodes its own
    times: dict[str, list[float]] = {"filed": [], "before": [], "now": []}
    for _ in range(args.repeats if baseline else 1):  # interleaved: the machine's drift reaches all three alike
        if filed is not None:
            times["filed"].append(filed.run())
        if baseline:
            times["before"].append(audit_before())
        data = encode_responses(fitted)
        start = time.perf_counter()
        fit, model = fit_item_model(data, "map")
        del data
        audit = measure(frame, fit, source="scale", by_date=False, thresholds=threshold_map(), seed=0, model=model)
        times["now"].append(time.perf_counter() - start)
    total = float(np.median(times["now"]))
    rec = audit.figures()
    verdicts = {k: v["verdict"] for k, v in recorded_verdicts(rec, DEFAULT_THRESHOLDS).items()}
    peak = rss_gb()
    print(f"fit alone: {fit_s:.1f} s = {fit_s / base:.0f} numpy passes")
    print(f"whole audit: {total:.1f} s = {total / fit_s:.1f}x the fit alone = {total / base:.0f} numpy passes")
    if baseline:
        runs = ", ".join(f"{t:.1f}" for t in times["now"])
        print(f"with the effective floor and the fit check, {len(times['now'])} runs: {runs} s (median {total:.1f})")
        before_s = float(np.median(times["before"]))
        print(
            f"the audit before item models in this code (1PL, no floor, no fit check): median {before_s:.1f} s "
            f"({', '.join(f'{t:.1f}' for t in times['before'])}); the floored audit: {total / before_s:.2f}x that"
        )
        if times["filed"]:
            filed_s = float(np.median(times["filed"]))
            print(
                f"the audit of the code issue 37 was filed against ({args.filed_at[:7]}, the same responses without "
                f"floors): median {filed_s:.1f} s ({', '.join(f'{t:.1f}' for t in times['filed'])}); the floored "
                f"audit: {total / filed_s:.2f}x that"
            )
    if rec.get("chance_nominal") is not None:
        print(
            f"effective floor: {rec['floor_effective']:.3f} [{rec['floor_effective_lo']:.3f}, "
            f"{rec['floor_effective_hi']:.3f}] (drawn at {args.share * args.chance:.3f}); fit check: "
            f"{rec['fit_verdict']} (p = {rec['fit_p']:.3f}); bounds: {rec['item_model']}"
        )
    print(f"peak RSS: {peak:.2f} GB in all, {peak - before:.2f} GB above the data")
    if rec.get("detection_limit") is not None:
        print(
            f"figures: detection limit {rec['detection_limit']:.3f}, DDM bounds {rec['ddm_bound_lo']:.3f}-"
            f"{rec['ddm_bound_hi']:.3f}, top-5 bound {rec['top5_gap_sum_bound_hi'] or 1.0:.3f}, verdicts {verdicts}; "
            f"{rec['pool']['likelihood_patterns']:,} likelihood patterns"
        )
    if args.dense_check:
        print(dense_agreement(fitted, rec, audit))
    elif cells > 5_000_000:  # too large for a dense array: the dense reference at a size where both fit
        small = simulate(100, 1000, args.missing, seed=2)
        small_fitted, _ = split_uninformative(small)
        small_fit = fit_rasch(encode_responses(small_fitted), "map")
        small_audit = measure(small, small_fit, source="scale", by_date=False, thresholds=threshold_map(), seed=0)
        print(
            "at 100 x 1,000 (the same code, a size where a dense array fits): "
            + dense_agreement(small_fitted, small_audit.figures(), small_audit)
        )


if __name__ == "__main__":
    main()
