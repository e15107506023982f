"""The item model of one benchmark, as its data support it: floors, design groups, the fit check, the path.

``fit_item_model`` runs, in order:

1. the design groups (``benchwatch.irt.design``): items grouped by the models that answered them;
2. where items have nominal chance floors (their number of options, a ``chance`` column or configuration),
   the effective floor (``benchwatch.irt.floors``): one share f of the nominal floors with its interval;
3. the 1PL fit at the effective floor: MAP, whose positions, abilities and figures are published; with
   ``method="nuts"`` NUTS samples the same posterior beside it, as a check (``ItemModel.nuts``: its
   diagnostics and what its draws change are recorded, ``benchwatch.pipeline.nuts_check``);
4. the fit check (``benchwatch.irt.fit_check``), on the same items as the floor's profile (fewer with very many
   models: ``check_items``);
5. the path the bounds take: **1PL** where the model fits (with the floors over their interval); **2PL** where
   the items' discriminations differ and the pool can place them (``twopl.MIN_MODELS`` models or more: each
   item's likelihood integrated over its discrimination); **withheld** otherwise (the bounds the misfit would
   bias are not published, and the reason says why). A floor the data show but the benchmark does not declare
   is named (its own estimate, the nominal floor taken as 1 on every item) and withholds the bounds: declare
   the options (a ``chance`` column or ``chance = ...``) and the floor is estimated and used.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from benchwatch.irt.design import blanks_where_failures, design_groups, group_summary
from benchwatch.irt.fit_check import FLOOR_PRESCREEN, FitCheck, check_fit
from benchwatch.irt.floors import MAX_ITEMS, FloorEstimate, estimate_floor, kept_items, restrict
from benchwatch.irt.rasch_map import RaschFit
from benchwatch.irt.responses import ResponseArrays
from benchwatch.irt.twopl import MIN_MODELS as TWO_PL_MODELS
from benchwatch.irt.twopl import TwoPLFit, fit_2pl

PATHS = ("1PL", "2PL", "withheld")
UNDECLARED_LARGEST = 0.5  # an undeclared floor is searched in [0, 0.5]
CHECK_CELLS = 150_000  # the fit check's cells at most (its bootstrap refits them 39 times)
MIN_CHECK_ITEMS = 100


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
    twopl: TwoPLFit | None = None
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

    def words(self) -> str:
        """The item model in words, for pages and the run's log."""
        base = {"1PL": "1PL", "2PL": "2PL (discriminations integrated out)", "withheld": "1PL"}[self.path]
        if self.floor is not None:
            f = self.floor
            base += (
                f" with chance floors: nominal {f.nominal:.3f} ({self.nominal_from or 'as given'}); "
                f"the data favour {f.floor:.3f} [{f.lo * f.nominal:.3f}, {f.hi * f.nominal:.3f}]"
            )
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
        if self.twopl is not None:
            out["discrimination_spread"] = self.twopl.spread
        if self.design:
            out["design_groups"] = self.design
        return out


def withheld_reason(check: FitCheck, undeclared: FloorEstimate | None, n_models: int, samples: bool = False) -> str:
    """Why a misfit withholds the bounds, in words."""
    o = check.observed
    kinds = check.misfits
    if "floor above" in kinds and undeclared is not None:
        return (
            f"the weakest models answer the hardest items right {o.weak_observed:.1%} of the time where the 1PL "
            f"expects {o.weak_expected:.1%}: a chance floor of about {undeclared.floor:.2f} "
            f"[{undeclared.lo:.2f}, {undeclared.hi:.2f}] that the data do not declare (declare each item's "
            "number of options: a chance column, or chance = ... in benchwatch.toml)"
        )
    if "floor above" in kinds or kinds == ("floor below",):
        way = "more" if o.floor > 0 else "less"
        return (
            f"the weakest models answer the hardest items right {way} often than the chance floors allow "
            f"({o.weak_observed:.1%} against {o.weak_expected:.1%} expected)"
        )
    repeated = (
        ", or a model's repeated samples of one item agree with each other more than independent trials would"
        if samples
        else ""
    )
    return (
        "the items' discriminations differ more than a 1PL allows (their spread, sd of log a, about "
        f"{o.spread:.2f}{repeated}); a 2PL needs {TWO_PL_MODELS} models or more to place them: cannot tell with "
        f"these {n_models} models"
    )


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
    """The benchmark's 1PL fit at its effective floor, and its item model (see the module). ``check`` off skips
    the fit check (the 1PL path, as before checks existed). ``method="nuts"``: the fit is still the MAP's (the
    model-based figures' calibrated path reads it); the NUTS fit is the item model's ``nuts``, a check."""
    from benchwatch.irt.fit import fit_rasch

    groups = design_groups(data)
    nominal = data.chance if data.chance is not None and np.any(data.chance > 0) else None
    floor = None
    if nominal is not None:
        progress("the effective chance floor")
        floor = estimate_floor(data, nominal, groups=groups, seed=seed)
    floors = None if floor is None or nominal is None else floor.floors(nominal)
    progress("map fit" if method == "nuts" else f"{method} fit")
    fit = fit_rasch(data, "map" if method == "nuts" else method, init=init, floor=floors)
    nuts = None
    if method == "nuts":
        progress("nuts fit (a check of the map fit)")
        nuts = fit_rasch(data, "nuts", sampler=sampler, seed=seed, floor=floors)
    model = ItemModel(
        nominal=nominal,
        nominal_from=nominal_from,
        floor=floor,
        groups=groups,
        design=group_summary(groups, data),
        nuts=nuts,
    )
    if not check:
        return fit, model
    return fit, judge(data, fit, model, seed=seed, progress=progress)


def judge(
    data: ResponseArrays, fit: RaschFit, model: ItemModel, *, seed: int = 0, progress=lambda _text: None
) -> ItemModel:
    """``model`` with the fit check of ``fit`` (at the model's floors) and the path of the bounds it leads to
    (see the module): the 1PL where the model fits, the 2PL or withheld where it does not."""
    progress("fit check")
    effective = model.floors()
    blanks = blanks_where_failures(data, fit.theta, fit.b, effective, model.groups)
    model = ItemModel(**{**model.__dict__, "blanks": blanks})
    keep = kept_items(data.n_items, check_items(data))
    sub = restrict(data, keep)
    b = fit.b if keep is None else fit.b[keep]
    sub_floor = None if effective is None else (effective if keep is None else effective[keep])
    result = check_fit(sub, fit.theta, b, sub_floor, seed=seed)
    undeclared = None
    if model.nominal is None and result.observed.floor > FLOOR_PRESCREEN:  # an undeclared floor, profiled
        progress("the undeclared floor")
        ones = np.ones(data.n_items)
        undeclared = estimate_floor(data, ones, groups=model.groups, largest=UNDECLARED_LARGEST, seed=seed)
        at_zero = dict(undeclared.profile).get(0.0, 0.0)
        result = result.with_floor_profile(-2.0 * at_zero)
    model = ItemModel(**{**model.__dict__, "check": result})
    if blanks.get("warn"):  # failures recorded as blanks: a bias no model corrects, whatever the check says
        return ItemModel(**{**model.__dict__, "path": "withheld", "reason": blanks_reason(blanks)})
    if result.verdict == "fits":
        return model
    kinds = result.misfits
    if "floor above" in kinds and model.nominal is None and undeclared is None:
        progress("the undeclared floor")
        ones = np.ones(data.n_items)
        undeclared = estimate_floor(data, ones, groups=model.groups, largest=UNDECLARED_LARGEST, seed=seed)
    # Weak models answering hard items right more often than the floors allow is a floor to declare (it also
    # inflates the discrimination statistic); unequal discriminations alone (a 1PL's curve too steep or too flat,
    # which also moves the weakest models' rate on the hardest items below the 1PL's) take the 2PL where it can.
    if "floor above" not in kinds and "discrimination" in kinds and data.n_models >= TWO_PL_MODELS:
        progress("2PL fit")
        two = fit_2pl(data, effective, theta=fit.theta, b=fit.b)
        return ItemModel(**{**model.__dict__, "twopl": two, "path": "2PL"})
    reason = withheld_reason(result, undeclared, data.n_models, samples=bool(np.any(data.weight > 1)))
    return ItemModel(**{**model.__dict__, "undeclared": undeclared, "path": "withheld", "reason": reason})
