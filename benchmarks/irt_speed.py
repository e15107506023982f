"""Speed, memory and accuracy of the 1PL fitters against girth and an identified plain-PyMC model, in one run.

Sizes (simulated 1PL, abilities and difficulties ~ N(0, 1.5^2), seed fixed): 60 x 500, 100 x 5,000,
500 x 5,000 and 2,000 x 20,000 with 50% of the cells missing; with --mmlu also MMLU-Pro's real
29 x 12,032 matrix (../shared/data/mmlu_pro/), where the truth is unknown and accuracy is agreement
with benchwatch's NUTS fit.

Fair by construction:
- every fit runs in its own process, after the data are built and the method's imports done and one
  warm-up fit on a tiny matrix (so numba's one-off load of its compiled kernels, about 0.15 s per
  process, is not in the timed figure; it is printed on its own, as ``first call``);
- paired repeats: each repeat runs benchwatch and girth back to back, alternating which goes first; the
  figure is the median over repeats, and the ratio is the median of the per-repeat ratios;
- girth (``rasch_mml``, marginal ML, the fastest Rasch fitter on PyPI) is given the data's own ability
  distribution, N(0, 1.5^2), with its quadrature widened to match (by default it assumes N(0, 1));
- the plain-PyMC baseline is identified the same way as benchwatch's NUTS model (difficulties a
  ZeroSumNormal) and is run only at the smallest size, where it converges (R-hat and ESS printed);
- accuracy beside every time: correlation with the true difficulties and RMSE after centring both.
Peak memory is the process's max RSS above what it held once the data were built.

Run: python benchmarks/irt_speed.py [--sizes 60x500,100x5000,500x5000,2000x20000] [--repeats 3]
                                     [--pymc] [--mmlu]   (needs: pip install ".[bench]")
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
MMLU = ROOT.parent / "shared" / "data" / "mmlu_pro" / "mmlu_pro.csv"
sys.path.insert(0, str(ROOT / "bot"))
SD = 1.5
SIZES = {"60x500": (60, 500, 0.0), "100x5000": (100, 5000, 0.0), "500x5000": (500, 5000, 0.0)}
SIZES["2000x20000"] = (2000, 20000, 0.5)


def simulate(n_m: int, n_i: int, missing: float, seed: int = 7):
    """(ResponseArrays, true b) for a simulated 1PL benchmark, built cell by cell (never dense)."""
    from scipy.special import expit

    from benchwatch.irt import ResponseArrays

    rng = np.random.default_rng(seed)
    theta, b = rng.normal(0, SD, n_m), rng.normal(0, SD, n_i)
    keep = rng.random((n_m, n_i), dtype=np.float32) >= missing
    m, i = np.nonzero(keep)
    del keep
    y = (rng.random(m.size, dtype=np.float32) < expit(theta[m] - b[i])).astype(np.float64)
    data = ResponseArrays(
        models=np.array([f"m{j:05d}" for j in range(n_m)], dtype=object),
        items=np.array([f"i{k:05d}" for k in range(n_i)], dtype=object),
        model_idx=m.astype(np.int32),
        item_idx=i.astype(np.int32),
        y=y,
        weight=np.ones(m.size),
    )
    return data, b


def load(case: str):
    if case == "mmlu":
        from benchwatch.irt import encode_responses
        from benchwatch.sources import fetch_csv_file
        from benchwatch.store import validate_responses

        table = fetch_csv_file(MMLU)
        return encode_responses(validate_responses(table.frame, table.location)), None
    return simulate(*SIZES[case])


def fitter(method: str):
    """A function ResponseArrays -> difficulties, imports done."""
    if method == "map":
        from benchwatch.irt import fit_map

        return lambda data: fit_map(data).b
    if method == "girth":
        from girth import rasch_mml
        from girth.utilities.utils import INVALID_RESPONSE
        from scipy import stats

        options = {"distribution": stats.norm(0, SD).pdf, "quadrature_bounds": (-4.5 * SD, 4.5 * SD)}

        def run_girth(data):
            matrix = np.full((data.n_items, data.n_models), INVALID_RESPONSE, dtype=np.int32)
            matrix[data.item_idx, data.model_idx] = np.round(data.y).astype(np.int32)  # girth takes 0/1 only
            return np.asarray(rasch_mml(matrix, discrimination=1.0, options=options)["Difficulty"], float)

        return run_girth
    if method == "nuts":
        from benchwatch.irt import fit_nuts

        return lambda data: fit_nuts(data).b
    if method == "pymc-baseline":
        import pymc as pm

        def run_pymc(data):
            with pm.Model():
                theta = pm.Normal("theta", 0, 3, shape=data.n_models)
                diff = pm.ZeroSumNormal("b", sigma=3, shape=data.n_items)
                pm.Bernoulli("y", logit_p=theta[data.model_idx] - diff[data.item_idx], observed=data.y)
                idata = pm.sample(progressbar=False, random_seed=1, compute_convergence_checks=False)
            import arviz as az

            run_pymc.diag = {
                "max_rhat": float(az.rhat(idata).max().to_array().max()),
                "min_ess": float(az.ess(idata).min().to_array().min()),
            }
            return idata.posterior["b"].values.reshape(-1, data.n_items).mean(axis=0)

        return run_pymc
    raise ValueError(method)


def run_one(case: str, method: str) -> dict:
    """One timed fit in this process (called in a child)."""
    warnings.simplefilter("ignore")
    data, truth = load(case)
    fit = fitter(method)
    out: dict = {"case": case, "method": method}
    if method in ("map", "girth"):
        tiny, _ = simulate(5, 12, 0.0, seed=1)
        start = time.perf_counter()
        fit(tiny)
        out["first_call"] = time.perf_counter() - start
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    b = fit(data)
    out["seconds"] = time.perf_counter() - start
    out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) / 1024
    out.update(getattr(fit, "diag", {}))
    if truth is not None:
        out["corr_truth"] = float(np.corrcoef(b, truth)[0, 1])
        out["rmse"] = float(np.sqrt(np.mean(((b - b.mean()) - (truth - truth.mean())) ** 2)))
    else:
        out["b"] = np.asarray(b).tolist()
    return out


def child(case: str, method: str) -> dict:
    done = subprocess.run(
        [sys.executable, __file__, "--one", case, method], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        return {"case": case, "method": method, "error": (done.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def paired(case: str, repeats: int) -> list[dict]:
    """benchwatch MAP and girth back to back, alternating the order, ``repeats`` times."""
    runs: dict[str, list[dict]] = {"map": [], "girth": []}
    for r in range(repeats):
        for method in ("map", "girth") if r % 2 == 0 else ("girth", "map"):
            runs[method].append(child(case, method))
    rows = []
    pairs = zip(runs["map"], runs["girth"], strict=True)
    ratios = [m["seconds"] / g["seconds"] for m, g in pairs if "error" not in m | g]
    for method, results in runs.items():
        good = [x for x in results if "error" not in x]
        if not good:
            rows.append({"case": case, "method": method, "note": results[0]["error"]})
            continue
        row = {"case": case, "method": method, "repeats": len(good)}
        for key in ("seconds", "peak_mb", "first_call", "corr_truth", "rmse"):
            if key in good[0]:
                row[key] = statistics.median(x[key] for x in good)
        if method == "map" and ratios:
            row["map/girth"] = statistics.median(ratios)
        rows.append(row)
    return rows


def table(rows: list[dict]) -> None:
    import pandas as pd

    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.4g}".format):
        print(pd.DataFrame(rows).to_string(index=False), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=2, metavar=("CASE", "METHOD"), help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default=",".join(SIZES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pymc", action="store_true", help="also benchwatch NUTS and the plain PyMC model at 60x500")
    parser.add_argument("--mmlu", action="store_true", help="also MMLU-Pro's real matrix (agreement with NUTS)")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(*args.one)))
        return
    rows = []
    for case in args.sizes.split(","):
        print(f"=== {case} ({SIZES[case][2]:.0%} missing)", flush=True)
        rows += paired(case, args.repeats)
        table(rows[-2:])
    if args.pymc:
        for method in ("nuts", "pymc-baseline"):
            print(f"=== 60x500 {method}", flush=True)
            rows.append(child("60x500", method))
            table(rows[-1:])
    if args.mmlu and MMLU.exists():
        print("=== MMLU-Pro (29 x 12,032): agreement with benchwatch NUTS", flush=True)
        results = {m: child("mmlu", m) for m in ("nuts", "map", "girth")}
        if "error" not in results["nuts"]:
            ref = np.asarray(results["nuts"]["b"])
            for r in results.values():
                if "b" in r:
                    r["corr_nuts"] = float(np.corrcoef(r.pop("b"), ref)[0, 1])
        rows += list(results.values())
        table(list(results.values()))
    print("\nall cases:")
    table(rows)


if __name__ == "__main__":
    main()
