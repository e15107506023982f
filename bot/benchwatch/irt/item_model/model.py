"""The item model of one benchmark, as its data support it: floors, spreads, agreeing samples, the check, the path.

Real items do three things a 1PL does not: weak models guess (a chance floor), items discriminate unequally (a
spread of discriminations) and a model's repeated samples of one item agree (correlated trials). Each is a
nuisance estimated from the data with its 95% interval, at any pool size, and every bound is computed over all of
them (``benchwatch.metrics.union_bounds``): wide where a small pool cannot place them ("cannot tell with these
models"), as narrow as a large pool has earned. ``fit_item_model`` runs, in order:

1. the design groups (``benchwatch.irt.item_model.design``): items grouped by the models that answered them;
2. where items have nominal chance floors (their number of options, a ``chance`` column or configuration),
   the effective floor (``benchwatch.irt.item_model.floors``): one share f of the nominal floors with its interval;
3. the 1PL fit at the effective floor: MAP, whose positions and abilities are published; with ``method="nuts"``
   NUTS samples the same posterior beside it, as a check (``ItemModel.nuts``);
4. where cells hold several samples, their intra-cell correlation rho (``benchwatch.irt.item_model.samples``) with its
   interval, and the fit again with each cell counted as its effective trials at rho;
5. the spread s of log discrimination (``benchwatch.irt.item_model.spread``) with its interval, each item's
discrimination
   integrated out;
6. the fit check (``benchwatch.irt.item_model.fit_check``) calibrated on that widened model (its replicates drawn with
the
   fitted s and rho), on the same items as the floor's profile (fewer with very many models: ``check_items``);
7. the path the bounds take: **1PL** where s's interval is [0, 0]; **2PL** (each item's discrimination integrated
   out over s's interval) otherwise; **withheld** only where the widened model is rejected or blanks stand for
   failures (the reason names the departure and its direction). A floor the data show but the benchmark does not
   declare is named (its own estimate, the discriminations integrated out, the nominal floor taken as 1 on every
   item). A small one (its interval ending at or below ``UNDECLARED_NUISANCE``: open-ended answers a weak model
   sometimes hits, 0.01 [0, 0.02] on GSM8K, MATH-500 and CRUXEval) is a nuisance like a declared floor: the fit, the
   spread and the check at it, the bounds over its interval. A larger one withholds the bounds (taken as a nuisance,
   a 0.25 floor's DDM bounds missed the truth in one simulated benchmark of four): declare the options, and the
   floor is estimated and the bounds computed over its interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchwatch.irt.fits.rasch_map import RaschFit
from benchwatch.irt.item_model.design import blanks_where_failures, design_groups, group_summary
from benchwatch.irt.item_model.fit_check import FLOOR_PRESCREEN, FitCheck, check_fit
from benchwatch.irt.item_model.floors import MAX_ITEMS, FloorEstimate, estimate_floor, kept_items, restrict
from benchwatch.irt.item_model.samples import RhoEstimate, effective, estimate_rho, several
from benchwatch.irt.item_model.spread import ZERO, SpreadEstimate, estimate_spread
from benchwatch.irt.responses import ResponseArrays

PATHS = ("1PL", "2PL", "withheld")
UNDECLARED_LARGEST = 0.5  # an undeclared floor is searched in [0, 0.5]
UNDECLARED_NUISANCE = 0.05  # ... and taken as a nuisance where its interval ends at or below this
UNDECLARED_FROM = "not declared: the floor the weakest models show, the nominal floor taken as 1 on every item"
CHECK_CELLS = 150_000  # the fit check's cells at most (its bootstrap refits them 39 times)
MIN_CHECK_ITEMS = 100


@dataclass(frozen=True)
class Corner:
    """One item model the bounds are computed under: an end of each nuisance's interval."""

    share: float | None  # the floor's share of the nominal floors (None: no floor)
    spread: float  # the sd of log discrimination (0: the 1PL)
    rho: float  # the intra-cell correlation of repeated samples (0: independent trials)


@dataclass(frozen=True)
class ItemModel:
    """How one benchmark's items answer, as fitted and checked (see the module)."""

    nominal: np.ndarray | None = None  # per item: its nominal floor (None: open-ended)
    nominal_from: str | None = None  # where the nominal floors came from, in words
    floor: FloorEstimate | None = None  # the effective floor's share of the nominal one
    groups: np.ndarray | None = None  # per item: its design group (None: one group)
    design: list = field(default_factory=list)  # per group: its items and models
    check: FitCheck | None = None
    undeclared: FloorEstimate | None = None  # the floor an open-ended benchmark's weak models show
    spread: SpreadEstimate | None = None  # the spread of the items' log discriminations
    rho: RhoEstimate | None = None  # the intra-cell correlation of repeated samples (None: one sample a cell)
    path: str = "1PL"
    reason: str | None = None  # why the bounds are withheld, in words
    blanks: dict = field(default_factory=dict)  # whether models' blanks sit where their failures would
    nuts: RaschFit | None = None  # ``method="nuts"``: the NUTS fit, run as a check of the MAP fit the figures use

    def floors(self, share: float | None = None) -> np.ndarray | None:
        """Each item's floor at the effective floor's estimate (or at ``share``); None without floors."""
        if self.nominal is None or self.floor is None:
            return None
        return self.floor.floors(self.nominal, share)

    def shares(self) -> tuple[float | None, ...]:
        """The shares of the nominal floor the bounds are computed at (None: no floor)."""
        return (None,) if self.floor is None else self.floor.ends()

    @property
    def spread_hat(self) -> float:
        """The spread the model-based figures are computed at (0: the 1PL)."""
        return 0.0 if self.spread is None or self.path == "1PL" else self.spread.spread

    @property
    def spread_estimate(self) -> float:
        """The spread the data favour (0 where none was estimated), whatever the path."""
        return 0.0 if self.spread is None else self.spread.spread

    @property
    def rho_hat(self) -> float:
        return 0.0 if self.rho is None else self.rho.rho

    def corners(self) -> list[Corner]:
        """Every item model the bounds are computed under: each end of each nuisance's interval, crossed."""
        spreads = (0.0,) if self.spread is None or self.path == "1PL" else self.spread.ends()
        rhos = (0.0,) if self.rho is None else self.rho.ends()
        return [Corner(f, s, r) for f in self.shares() for s in spreads for r in rhos]

    def cells(self, data: ResponseArrays, rho: float | None = None) -> ResponseArrays:
        """The cells as the item model reads them: each counted as its effective trials at ``rho`` (default: its
        estimate; ``benchwatch.irt.item_model.samples.effective``)."""
        return effective(data, self.rho_hat if rho is None else rho)

    def words(self) -> str:
        """The item model in words, for pages and the run's log."""
        base = "1PL"
        if self.path == "2PL" and self.spread is not None:
            s = self.spread
            base = (
                f"2PL (discriminations integrated out): sd of log discrimination {s.spread:.2f} "
                f"[{s.lo:.2f}, {s.hi:.2f}]"
            )
        if self.floor is not None:
            f = self.floor
            base += (
                f" with chance floors: nominal {f.nominal:.3f} ({self.nominal_from or 'as given'}); "
                f"the data favour {f.floor:.3f} [{f.lo * f.nominal:.3f}, {f.hi * f.nominal:.3f}]"
            )
        if self.rho is not None:
            r = self.rho
            base += f"; repeated samples agree: intra-cell correlation {r.rho:.2f} [{r.lo:.2f}, {r.hi:.2f}]"
        return base

    def record(self) -> dict:
        """The record's fields (``benchwatch.history.records.BenchmarkRecord``)."""
        out: dict = {"item_model": self.path, "withheld": self.reason}
        if self.nominal is not None and self.floor is not None:
            f = self.floor
            out.update(
                {
                    "chance_nominal": f.nominal,
                    "chance_from": self.nominal_from,
                    "chance_items": int(np.sum(self.nominal > 0)),
                    "floor_share": f.share,
                    "floor_share_lo": f.lo,
                    "floor_share_hi": f.hi,
                    "floor_effective": f.floor,
                    "floor_effective_lo": f.lo * f.nominal,
                    "floor_effective_hi": f.hi * f.nominal,
                    "floor_items": f.items,
                }
            )
        if self.check is not None:
            out.update(
                {
                    "fit_verdict": self.check.verdict,
                    "fit_statistic": self.check.statistic,
                    "fit_p": self.check.p,
                    "fit_check": self.check.record(),
                }
            )
        if self.undeclared is not None:
            u = self.undeclared
            out["floor_undeclared"] = u.floor
            out["floor_undeclared_lo"] = u.lo
            out["floor_undeclared_hi"] = u.hi
        if self.spread is not None:
            s = self.spread
            out.update(
                {
                    "discrimination_spread": s.spread,
                    "discrimination_spread_lo": s.lo,
                    "discrimination_spread_hi": s.hi,
                    "spread_items": s.items,
                }
            )
        if self.rho is not None:
            r = self.rho
            out.update(
                {
                    "sample_correlation": r.rho,
                    "sample_correlation_lo": r.lo,
                    "sample_correlation_hi": r.hi,
                    "sample_cells": r.cells,
                }
            )
        if self.design:
            out["design_groups"] = self.design
        return out


def withheld_reason(check: FitCheck, undeclared: FloorEstimate | None) -> str:
    """Why the widened item model's misfit withholds the bounds: each departure the check found, in the direction
    its statistic found it."""
    o = check.observed
    kinds = check.misfits
    parts = []
    if "discrimination" in kinds:
        how = "differ more" if check.more_spread else "are more alike"
        parts.append(
            f"the items' discriminations {how} than a lognormal spread of sd {check.spread:.2f} allows (the "
            f"statistic {o.discrimination:.1f} against {check.expected_discrimination:.1f} expected: a few items "
            "unlike the rest, such as miskeyed or broken ones, do this)"
        )
    if "floor above" in kinds:
        floor = (
            f": a floor of about {undeclared.floor:.2f} [{undeclared.lo:.2f}, {undeclared.hi:.2f}]"
            if undeclared is not None
            else ""
        )
        declare = (
            " that the data do not declare (declare each item's number of options: a chance column, or chance = ... "
            "in benchwatch.toml, and the floor is estimated and the bounds computed over it)"
            if undeclared is not None
            else ""
        )
        parts.append(
            f"the weakest models answer the hardest items right more often than the floors allow ({o.weak_observed:.1%}"
            f" against {o.weak_expected:.1%} expected{floor}{declare})"
        )
    if "floor below" in kinds:
        parts.append(
            f"the weakest models answer the hardest items right less often than the floors allow ({o.weak_observed:.1%}"
            f" against {o.weak_expected:.1%} expected: a floor declared too high)"
        )
    return "; ".join(parts) + " (the fit check on the widened item model)"


def check_items(data: ResponseArrays) -> int:
    """How many items the fit check runs on: the floor's profile's ``MAX_ITEMS``, fewer where the models are so
    many that ``CHECK_CELLS`` cells are reached first (1,000 binary models: 150 items, where its power is still
    far beyond what a real departure needs), never fewer than ``MIN_CHECK_ITEMS``."""
    per_item = data.model_idx.size / max(1, data.n_items)
    return int(min(MAX_ITEMS, max(MIN_CHECK_ITEMS, CHECK_CELLS // max(per_item, 1.0))))


def blanks_reason(blanks: dict) -> str:
    """Why blanks that sit where failures would withhold the bounds, in words."""
    n = len(blanks["models"])
    return (
        f"{n} model{'s' if n != 1 else ''} leave blank the items they would likely fail, beyond chance (z = "
        f"{blanks['z']:.1f} over {blanks['tested']} models): if those blanks are failed or errored samples, every "
        "score and figure here is raised by an amount the data cannot tell (the answers that would tell are the "
        "missing ones); record a failed or errored sample as 0, never a blank"
    )


def fit_item_model(
    data: ResponseArrays,
    method: str = "map",
    *,
    init: tuple[np.ndarray, np.ndarray] | None = None,
    sampler: str = "auto",
    nominal_from: str | None = None,
    check: bool = True,
    seed: int = 0,
    progress=lambda _text: None,
) -> tuple[RaschFit, ItemModel]:
    """The benchmark's 1PL fit at its effective floor (its cells at their effective trials), and its item model
    (see the module). ``check`` off skips the nuisances and the fit check (the 1PL path, as before they existed).
    ``method="nuts"``: the fit is still the MAP's (the model-based figures' calibrated path reads it); the NUTS
    fit is the item model's ``nuts``, a check."""
    from benchwatch.irt.fits.fit import fit_rasch

    groups = design_groups(data)
    nominal = data.chance if data.chance is not None and np.any(data.chance > 0) else None
    floor = None
    if nominal is not None:
        progress("the effective chance floor")
        floor = estimate_floor(data, nominal, groups=groups, seed=seed)
    floors = None if floor is None or nominal is None else floor.floors(nominal)
    progress("map fit" if method == "nuts" else f"{method} fit")
    fit = fit_rasch(data, "map" if method == "nuts" else method, init=init, floor=floors)
    rho = None
    if check and several(data):
        progress("how far repeated samples agree")
        rho = estimate_rho(data, fit.theta, fit.b, floors, seed=seed)
        if rho is not None and rho.rho > 0:  # the fit again, each cell its effective trials
            fit = fit_rasch(effective(data, rho.rho), "map", init=(fit.theta, fit.b), floor=floors)
    nuts = None
    if method == "nuts":
        progress("nuts fit (a check of the map fit)")
        cells = effective(data, 0.0 if rho is None else rho.rho)
        nuts = fit_rasch(cells, "nuts", sampler=sampler, seed=seed, floor=floors)
    model = ItemModel(
        nominal=nominal,
        nominal_from=nominal_from,
        floor=floor,
        groups=groups,
        design=group_summary(groups, data),
        rho=rho,
        nuts=nuts,
    )
    if not check:
        return fit, model
    progress("the spread of the discriminations")
    model = ItemModel(**{**model.__dict__, "spread": _spread(data, fit, model, seed)})
    if model.floor is not None and nominal is not None and model.spread_estimate > ZERO:
        progress("the effective chance floor, the discriminations integrated out")
        fit, model = _at_floor(data, fit, model, nominal, model.nominal_from, seed=seed)
    return judge(data, fit, model, seed=seed, progress=progress)


def _spread(data: ResponseArrays, fit: RaschFit, model: ItemModel, seed: int) -> SpreadEstimate:
    return estimate_spread(model.cells(data), fit.theta, floor=model.floors(), groups=model.groups, seed=seed)


def _at_floor(
    data: ResponseArrays,
    fit: RaschFit,
    model: ItemModel,
    nominal: np.ndarray,
    nominal_from: str | None,
    *,
    largest: float = 1.0,
    seed: int = 0,
) -> tuple[RaschFit, ItemModel]:
    """The floor estimated with the items' discriminations integrated out at the model's spread, the fit at it,
    and the spread again at that floor (on the profile's item budget, ``spread.MAX_ITEMS``)."""
    from benchwatch.irt.fits.fit import fit_rasch
    from benchwatch.irt.item_model.spread import MAX_ITEMS as SPREAD_ITEMS

    cells = model.cells(data)
    floor = estimate_floor(
        cells,
        nominal,
        groups=model.groups,
        largest=largest,
        seed=seed,
        spread=model.spread_estimate,
        max_items=SPREAD_ITEMS,
    )
    model = ItemModel(**{**model.__dict__, "nominal": nominal, "nominal_from": nominal_from, "floor": floor})
    fit = fit_rasch(cells, "map", init=(fit.theta, fit.b), floor=model.floors())
    return fit, ItemModel(**{**model.__dict__, "spread": _spread(data, fit, model, seed)})


def _check(data: ResponseArrays, fit: RaschFit, model: ItemModel, seed: int) -> FitCheck:
    """The fit check of ``fit`` on the widened model (its spread and rho), on ``check_items`` of the items."""
    keep = kept_items(data.n_items, check_items(data))
    effective_floor = model.floors()
    sub = restrict(data, keep)
    b = fit.b if keep is None else fit.b[keep]
    sub_floor = None if effective_floor is None else (effective_floor if keep is None else effective_floor[keep])
    # the model the check draws its replicates from: the spread at its interval's upper end, the widest the
    # bounds are computed over (the data are a misfit only where no spread of the interval explains them)
    spread = 0.0 if model.spread is None else model.spread.hi
    return check_fit(sub, fit.theta, b, sub_floor, spread=spread, rho=model.rho_hat, seed=seed)


def judge(
    data: ResponseArrays, fit: RaschFit, model: ItemModel, *, seed: int = 0, progress=lambda _text: None
) -> tuple[RaschFit, ItemModel]:
    """``fit`` and ``model`` with its spread, its fit check (the widened model's, at ``fit``'s abilities and
    difficulties and the model's floors) and the path of the bounds (see the module); where an open-ended
    benchmark shows a small floor (its interval ending at or below ``UNDECLARED_NUISANCE``), the fit and the model at
    that floor. ``data``: the benchmark's cells as recorded (the model counts them at their effective trials
    itself)."""
    effective_floor = model.floors()
    blanks = blanks_where_failures(model.cells(data), fit.theta, fit.b, effective_floor, model.groups)
    model = ItemModel(**{**model.__dict__, "blanks": blanks})
    if model.spread is None:
        progress("the spread of the discriminations")
        model = ItemModel(**{**model.__dict__, "spread": _spread(data, fit, model, seed)})
    progress("fit check")
    result = _check(data, fit, model, seed)
    undeclared = None
    if model.nominal is None and (result.observed.floor > FLOOR_PRESCREEN or "floor above" in result.misfits):
        progress("the undeclared floor")  # an open-ended benchmark's weak models guess: a floor, profiled
        ones = np.ones(data.n_items)
        undeclared = estimate_floor(
            model.cells(data),
            ones,
            groups=model.groups,
            largest=UNDECLARED_LARGEST,
            seed=seed,
            spread=model.spread_estimate,
        )
        at_zero = dict(undeclared.profile).get(0.0, 0.0)
        result = result.with_floor_profile(-2.0 * at_zero)
        if (result.floor_found or "floor above" in result.misfits) and undeclared.hi <= UNDECLARED_NUISANCE:
            progress("the undeclared floor as a nuisance: the fit, the spread and the check at it")
            at = _at_floor(data, fit, model, ones, UNDECLARED_FROM, largest=UNDECLARED_LARGEST, seed=seed)
            undeclared = at[1].floor  # its estimate at the fit and spread it gives: small still, or named only
            if undeclared is not None and undeclared.hi <= UNDECLARED_NUISANCE:
                fit, model = at
                result = _check(data, fit, model, seed)
    spreads = model.spread.ends() if model.spread is not None else (0.0,)
    path = "1PL" if max(spreads) == 0.0 else "2PL"
    model = ItemModel(**{**model.__dict__, "check": result, "undeclared": undeclared, "path": path})
    if blanks.get("warn"):  # failures recorded as blanks: a bias no model corrects, whatever the check says
        return fit, ItemModel(**{**model.__dict__, "path": "withheld", "reason": blanks_reason(blanks)})
    if result.verdict == "fits":
        return fit, model
    return fit, ItemModel(**{**model.__dict__, "path": "withheld", "reason": withheld_reason(result, undeclared)})
