"""Speed and accuracy of the 1PL fitters against girth and a plain PyMC model, measured in one run.

Cases: (a) simulated 60 x 500, abilities and difficulties ~ N(0, 1.5^2); (b) MMLU-Pro, 29 x 12,032 with
gaps (../shared/data/mmlu_pro/mmlu_pro.csv); (c) simulated 2,000 x 20,000 with 50% of cells missing.
Every measurement runs in its own process so that its peak memory (max RSS above the process's
footprint after loading the data) is its own. Ratios are against baselines timed in the same run:
``girth.rasch_mml`` (marginal ML, the fastest Rasch fitter on PyPI) and a plain PyMC long-format
Bernoulli model (theta, b ~ N(0, 3^2)) sampled with ``pm.sample()`` defaults.

Run: python benchmarks/irt_speed.py [--cases a,b,c] [--reduced-draws 150]
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

ROOT = Path(__file__).resolve().parents[1]
MMLU = ROOT.parent / "shared" / "data" / "mmlu_pro" / "mmlu_pro.csv"
sys.path.insert(0, str(ROOT))


def load_case(case: str):
    """(ResponseArrays, true b in the arrays' item order or None)."""
    from bot.irt import encode_responses
    from bot.sources import fetch_csv_file
    from bot.store import validate_responses

    if case == "b":
        table = fetch_csv_file(MMLU)
        return encode_responses(validate_responses(table.frame, table.location)), None
    n_m, n_i, missing = (60, 500, 0.0) if case == "a" else (2000, 20000, 0.5)
    rng = np.random.default_rng(7)
    theta, b = rng.normal(0, 1.5, n_m), rng.normal(0, 1.5, n_i)
    y = (rng.random((n_m, n_i)) < expit(theta[:, None] - b[None, :])).astype(float)
    m, i = np.nonzero(rng.random((n_m, n_i)) >= missing)
    from bot.irt import ResponseArrays

    data = ResponseArrays(
        models=np.array([f"m{j:05d}" for j in range(n_m)], dtype=object),
        items=np.array([f"i{k:05d}" for k in range(n_i)], dtype=object),
        model_idx=m.astype(np.int32),
        item_idx=i.astype(np.int32),
        y=y[m, i],
        weight=np.ones(m.size),
    )
    return data, b


def run_one(case: str, method: str, draws: int | None) -> dict:
    """One timed fit; returns its figures (called in a child process)."""
    warnings.simplefilter("ignore")
    data, truth = load_case(case)
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    out: dict = {"case": case, "method": method}
    start = time.perf_counter()
    if method == "map":
        from bot.irt import fit_map

        fit = fit_map(data)
        b, out["converged"] = fit.b, fit.converged
    elif method == "nuts":
        from bot.irt import fit_nuts

        kw = {} if draws is None else {"draws": draws, "tune": draws}
        fit = fit_nuts(data, **kw)
        b, out["converged"] = fit.b, fit.converged
        out["max_rhat"], out["min_ess"] = fit.diagnostics["max_rhat"], fit.diagnostics["min_ess_bulk"]
    elif method == "girth":
        from girth import rasch_mml
        from girth.utilities.utils import INVALID_RESPONSE

        matrix = np.full((data.n_items, data.n_models), INVALID_RESPONSE, dtype=int)
        matrix[data.item_idx, data.model_idx] = np.round(data.y).astype(int)  # girth takes 0/1 only
        b = np.asarray(rasch_mml(matrix)["Difficulty"], float)
    elif method == "pymc-baseline":
        import arviz as az
        import pymc as pm

        with pm.Model():
            theta = pm.Normal("theta", 0, 3, shape=data.n_models)
            diff = pm.Normal("b", 0, 3, shape=data.n_items)
            pm.Bernoulli("y", logit_p=theta[data.model_idx] - diff[data.item_idx], observed=data.y)
            kw = {} if draws is None else {"draws": draws, "tune": draws}
            idata = pm.sample(progressbar=False, compute_convergence_checks=False, **kw)
        b = idata.posterior["b"].values.reshape(-1, data.n_items).mean(axis=0)
        out["max_rhat"] = float(az.rhat(idata).max().to_array().max())
        out["min_ess"] = float(az.ess(idata).min().to_array().min())
    else:
        raise ValueError(method)
    out["seconds"] = time.perf_counter() - start
    out["peak_mb"] = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base_rss) / 1024
    out["b"] = np.asarray(b).tolist()
    if truth is not None:
        out["corr_truth"] = float(np.corrcoef(b, truth)[0, 1])
    return out


def child(case: str, method: str, draws: int | None) -> dict:
    args = [sys.executable, __file__, "--one", case, method] + ([] if draws is None else ["--draws", str(draws)])
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        return {"case": case, "method": method, "error": done.stderr.strip().splitlines()[-1:]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def report(results: list[dict]) -> None:
    by = {r["method"]: r for r in results if "error" not in r}
    nuts_b = np.asarray(by["nuts"]["b"]) if "nuts" in by else None
    rows = []
    for r in results:
        if "error" in r:
            rows.append({"method": r["method"], "note": f"failed: {r['error']}"})
            continue
        row = {k: r.get(k) for k in ("method", "seconds", "peak_mb", "corr_truth", "max_rhat", "min_ess", "converged")}
        if nuts_b is not None and r["method"] != "nuts":
            row["corr_nuts"] = float(np.corrcoef(r["b"], nuts_b)[0, 1])
        for base in ("pymc-baseline", "girth"):
            if base in by and r["method"] != base:
                row[f"x_faster_than_{base}"] = by[base]["seconds"] / r["seconds"]
        rows.append(row)
    with pd.option_context("display.width", 200, "display.max_columns", 20, "display.float_format", "{:.4g}".format):
        print(pd.DataFrame(rows).to_string(index=False))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one", nargs=2, metavar=("CASE", "METHOD"), help=argparse.SUPPRESS)
    parser.add_argument("--draws", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--cases", default="a,b,c")
    parser.add_argument("--reduced-draws", type=int, default=150, help="draws (and tune) for (b)'s NUTS runs")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(*args.one, args.draws)))
        return
    for case in args.cases.split(","):
        if case == "b" and not MMLU.exists():
            print(f"\n(b) skipped: {MMLU} is not here")
            continue
        print(f"\n=== case ({case})", flush=True)
        if case == "a":
            plan = [("map", None), ("girth", None), ("nuts", None), ("pymc-baseline", None)]
        elif case == "b":
            d = args.reduced_draws
            print(f"the PyMC baseline would take well over 15 minutes here: it and nuts get {d} draws + {d} tune")
            plan = [("map", None), ("girth", None), ("nuts", d), ("pymc-baseline", d)]
        else:
            print("map and girth only: NUTS and the PyMC baseline are skipped at this size")
            plan = [("map", None), ("girth", None)]
        results = []
        for method, draws in plan:
            results.append(child(case, method, draws))
            r = results[-1]
            print(f"  {method}: {r.get('seconds', float('nan')):.2f}s {r.get('error', '')}", flush=True)
        report(results)


if __name__ == "__main__":
    main()
