"""The item model behind a record's bounds and its NUTS check, in sentences and a table
(``_item_model.md.j2``, ``_nuts_check.md.j2``).

The pages are rendered from the records in ``reports/`` through the templates of
``bot/benchwatch/site/templates/`` (``benchwatch.site.render``): the page modules prepare the values and
format the cells (every upstream string escaped), the templates lay out the Markdown."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from benchwatch.irt import SPREAD_LARGEST
from benchwatch.record import BenchmarkRecord
from benchwatch.site.cells import bounds_withheld, csv_count
from benchwatch.site.escape import md
from benchwatch.site.numbers import fmt


def _share(x: float | None) -> str:
    return "–" if x is None else f"{x:.2f}"


def item_model_lines(rec: BenchmarkRecord) -> dict:
    """The item model behind a record's bounds, in sentences (values formatted and escaped here; the partial
    ``_item_model.md.j2`` lays them out): the chance floors, the fit check, the path, who answered what, and
    blanks that sit where failures would."""
    out: dict = {}
    if rec.chance_nominal is not None and rec.floor_undeclared is not None:  # a small one, a nuisance
        out["floor"] = (
            "none declared (open-ended), but the weakest models answer the hardest items right more often than no "
            f"floor allows: a floor of {fmt(rec.floor_undeclared)} [{fmt(rec.floor_undeclared_lo)}, "
            f"{fmt(rec.floor_undeclared_hi)}] on every item (95%, profile likelihood over {rec.floor_items} "
            "items), small enough to take as a nuisance: the bounds hold over that interval (computed at its ends, "
            "its estimate and points between)"
        )
    elif rec.chance_nominal is not None:
        lo, hi = rec.floor_effective_lo, rec.floor_effective_hi
        placed = (rec.floor_share_hi or 1.0) - (rec.floor_share_lo or 0.0) < 0.999
        out["floor"] = (
            f"each item's nominal chance floor is one over its number of options ({md(rec.chance_from or '–')};"
            f" {rec.chance_items} items, mean {fmt(rec.chance_nominal)}); the data favour "
            f"{_share(rec.floor_share)} of it, an effective floor of {fmt(rec.floor_effective)} "
            f"[{fmt(lo)}, {fmt(hi)}] (95%, profile likelihood over {rec.floor_items} items)"
            + ("" if placed else ": these models cannot place it, and the bounds hold over the whole interval")
            + "; the bounds hold over that interval (computed at its ends, its estimate and points between)"
        )
    elif rec.fit_verdict is not None:  # a checked per-item record without floors: open-ended
        out["floor"] = (
            "none: the items declare no options (open-ended; a chance column, or chance = ... in benchwatch.toml, "
            "declares them)"
        )
    out.update(_nuisance_lines(rec))
    check = rec.fit_check or {}
    if rec.fit_verdict in ("fits", "misfit"):
        said = "the item model fits" if rec.fit_verdict == "fits" else "the item model does not fit"
        p = "–" if rec.fit_p is None else f"{rec.fit_p:.3f}"
        widened = ""
        if check.get("spread_checked") is not None:
            widened = f" of the item model at a spread of {fmt(check.get('spread_checked'))}"
            if check.get("rho_checked"):
                widened += f" and a correlation of {fmt(check.get('rho_checked'))}"
        out["check"] = (
            f"{said} (p = {p} by a parametric bootstrap of {check.get('replicates', '–')} "
            f"simulated benchmarks{widened}; discriminations z = {fmt(check.get('discrimination_z'))} against "
            f"{fmt(check.get('discrimination_expected'))} expected, the weakest models on the hardest items z = "
            f"{fmt(check.get('floor_z'))})"
        )
    if bounds_withheld(rec):
        out["withheld"] = md(rec.withheld or "the item model does not fit")
    groups = rec.design_groups or []
    if groups:
        parts = "; ".join(f"{g['items']} items answered by {g['models']} models" for g in groups)
        out["design"] = (
            f"the items form {len(groups)} groups by the models that answered them ({parts}): each group has its "
            "own distribution of difficulty in the bounds, so that items given only to some models are not pulled "
            "towards the others"
        )
    blanks = rec.blanks_warning
    if blanks and not bounds_withheld(rec):  # a withheld record's reason says it already
        shown = ", ".join(md(str(m["model"])) for m in blanks.get("models", [])[:5])
        more = blanks.get("flagged", 0) - min(5, len(blanks.get("models", [])))
        out["blanks"] = (
            f"{blanks.get('flagged', 0)} models leave blank the items they would likely fail ({shown}"
            + (f" and {more} more" if more > 0 else "")
            + f"; z = {fmt(blanks.get('z'))} over {blanks.get('tested')} models): if these blanks are failed or "
            "errored samples, record them as 0. As blanks they raise those models' scores and move every figure "
            "here, and nothing can correct that from the data"
        )
    return out


def _nuisance_lines(rec: BenchmarkRecord) -> dict:
    """The spread of discriminations and the samples' correlation, each with its interval, in sentences."""
    out: dict = {}
    if rec.discrimination_spread is not None:
        lo, hi = rec.discrimination_spread_lo, rec.discrimination_spread_hi
        wide = hi is not None and hi >= SPREAD_LARGEST - 1e-9
        out["spread"] = (
            f"the items' discriminations spread with an sd of log discrimination of "
            f"{fmt(rec.discrimination_spread)} [{fmt(lo)}, {fmt(hi)}] (95%, profile likelihood over "
            f"{rec.spread_items} items, every item's discrimination and location integrated out)"
            + (": these models cannot place it, and the bounds are as wide as that leaves them" if wide else "")
            + (
                "; the bounds hold at both ends of that interval, each item's likelihood integrated over its "
                "discrimination"
                if rec.item_model == "2PL"
                else ""
            )
        )
    if rec.sample_correlation is not None:
        out["samples"] = (
            f"a model's repeated samples of one item agree with an intra-cell correlation of "
            f"{fmt(rec.sample_correlation)} [{fmt(rec.sample_correlation_lo)}, "
            f"{fmt(rec.sample_correlation_hi)}] (95%, over {rec.sample_cells} cells of several "
            "samples; 0 would be independent trials): each cell counts as its effective number of trials, and "
            "the bounds hold at both ends of that interval"
        )
    return out


class NutsCheck(BaseModel):
    """The record's ``nuts_check`` (``benchwatch.pipeline.nuts_check``) as the page reads it, by attribute: the
    sampler's diagnostics and convergence, the distinct positions pooled and unpooled, the shifts from the published
    fit and the draws kept. Each figure's values (``ddm``, ``ddm_lo``, ``ddm_plugin``, ...) are keys of the
    record's check beside these, read by the figure's name."""

    model_config = ConfigDict(frozen=True)

    sampler: str | None = None
    chains: int | None = None
    draws: int | None = None
    tune: int | None = None
    seconds: float | None = None
    max_rhat: float | None = None
    min_ess_bulk: float | None = None
    divergences: int | None = None
    converged: bool | None = None
    kept_draws: int | None = None
    distinct_z: int | None = None
    distinct_z_unpooled: int | None = None
    max_position_shift: float | None = None
    max_ability_shift: float | None = None


NUTS_COLUMNS = [("Figure", "l"), ("Published (MAP)", "r"), ("NUTS", "r"), ("NUTS 95% interval", "r")]


NUTS_COLUMNS.append(("NUTS at its positions (plug-in)", "r"))


def nuts_check_lines(rec: BenchmarkRecord) -> dict:
    """``--method nuts``: what the NUTS check says (``benchwatch.pipeline.nuts_check``), in a sentence and a table of
    the figures beside the published ones (``_nuts_check.md.j2``); empty without a check."""
    check = rec.nuts_check
    if not check:
        return {}
    nuts = NutsCheck.model_construct(**check)  # as the record holds it: its values as they are, absent ones None
    said = "converged" if nuts.converged else "**did not converge**"
    counts = (nuts.chains, nuts.draws, nuts.tune, nuts.seconds, nuts.min_ess_bulk, nuts.divergences)
    chains, draws, tune, seconds, min_ess, divergences = (csv_count(v) for v in counts)
    return {
        "said": (
            f"The positions, abilities and figures on this page come from the "
            f"{md(rec.figures_from or 'map')} fit (the path the calibration of these figures checks). "
            f"NUTS ({md(str(nuts.sampler))}, {chains} chains of {draws} draws after "
            f"{tune} tuning steps, {seconds} s) sampled the same 1PL beside it, under its fixed "
            f"N(0, 3²) priors, and {said} (largest R-hat {fmt(nuts.max_rhat)}, smallest bulk ESS "
            f"{min_ess}, {divergences} divergences). Pooled over the items the posterior "
            f"cannot tell apart, its posterior means take {nuts.distinct_z} distinct positions "
            f"({nuts.distinct_z_unpooled} before pooling: its Monte Carlo error alone splits them); no "
            f"item's position moves more than {fmt(nuts.max_position_shift)} on z from the published one, "
            f"no model's ability more than {fmt(nuts.max_ability_shift)} logits. Its figures, from "
            f"{nuts.kept_draws} of its draws:"
        ),
        "columns": NUTS_COLUMNS,
        "rows": [
            [
                name,
                fmt(check.get(f"{key}_published")),
                fmt(check.get(key)),
                f"[{fmt(check.get(f'{key}_lo'))}, {fmt(check.get(f'{key}_hi'))}]",
                fmt(check.get(f"{key}_plugin")),
            ]
            for key, name in (
                ("ddm", "DDM"),
                ("max_gap", "Max Gap"),
                ("top3_gap_sum", "Top-3 gap sum"),
                ("top5_gap_sum", "Top-5 gap sum"),
            )
        ],
    }
