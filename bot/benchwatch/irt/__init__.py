"""Stage 3: item difficulties from a 1PL (Rasch) fit, and their place on the z axis."""

from typing import TYPE_CHECKING

from benchwatch.lazy import exports

__all__ = exports(
    __name__,
    {
        ".choices": ("DEFAULT_SCALE", "METHODS", "SAMPLERS", "SCALES"),
        ".fits.calibrate": ("calibrate_items", "calibrate_models"),
        ".fits.fit": ("fit_rasch",),
        ".item_model.design": ("blanks_where_failures", "design_groups"),
        ".item_model.fit_check": ("FitCheck", "check_fit"),
        ".item_model.floors": ("FloorEstimate", "estimate_floor"),
        ".item_model.model": ("PATHS", "Corner", "ItemModel", "fit_item_model", "judge"),
        ".item_model.samples": ("RhoEstimate", "beta_binomial_logpmf", "effective", "estimate_rho"),
        ".item_model.spread": ("SPREAD_LARGEST", "SpreadEstimate", "estimate_spread", "spread_rows"),
        ".ahead": ("compile_ahead",),
        ".kernels": ("compiled_kernels", "item_model_kernels"),
        ".fits.cells": ("CellPatterns", "cell_loglik", "cell_patterns", "cells_by_item"),
        ".item_model.counts": ("count_loglik", "count_rows"),
        ".difficulty.item_posterior": (
            "GRID_SIZE",
            "ItemPosterior",
            "grid_posterior",
            "item_posterior",
            "item_posterior_dense",
            "loglik_posterior",
        ),
        ".fits.marginal": ("marginal_abilities", "marginal_abilities_patterns"),
        ".fits.marginal_cells": ("marginal_abilities_cells",),
        ".difficulty.npmle": ("MixingFit", "empty_reaches", "linear_range", "mixture_loglik", "solve_mixing"),
        ".fits.rasch_map": ("RaschFit", "fit_map", "neg_log_posterior"),
        ".fits.rasch_nuts": ("exchangeable_items", "fit_nuts", "nutpie_available", "pooled_positions"),
        ".responses": ("ResponseArrays", "arrays_from_dense", "encode_responses"),
        ".difficulty.scale": ("UncertainAbilities", "difficulty_b", "difficulty_z", "uncertain_abilities"),
    },
)

if TYPE_CHECKING:  # the names as mypy sees them; at run time each is imported on first use
    from benchwatch.irt.ahead import compile_ahead as compile_ahead
    from benchwatch.irt.choices import DEFAULT_SCALE as DEFAULT_SCALE
    from benchwatch.irt.choices import METHODS as METHODS
    from benchwatch.irt.choices import SAMPLERS as SAMPLERS
    from benchwatch.irt.choices import SCALES as SCALES
    from benchwatch.irt.difficulty.item_posterior import GRID_SIZE as GRID_SIZE
    from benchwatch.irt.difficulty.item_posterior import ItemPosterior as ItemPosterior
    from benchwatch.irt.difficulty.item_posterior import grid_posterior as grid_posterior
    from benchwatch.irt.difficulty.item_posterior import item_posterior as item_posterior
    from benchwatch.irt.difficulty.item_posterior import item_posterior_dense as item_posterior_dense
    from benchwatch.irt.difficulty.item_posterior import loglik_posterior as loglik_posterior
    from benchwatch.irt.difficulty.npmle import MixingFit as MixingFit
    from benchwatch.irt.difficulty.npmle import empty_reaches as empty_reaches
    from benchwatch.irt.difficulty.npmle import linear_range as linear_range
    from benchwatch.irt.difficulty.npmle import mixture_loglik as mixture_loglik
    from benchwatch.irt.difficulty.npmle import solve_mixing as solve_mixing
    from benchwatch.irt.difficulty.scale import UncertainAbilities as UncertainAbilities
    from benchwatch.irt.difficulty.scale import difficulty_b as difficulty_b
    from benchwatch.irt.difficulty.scale import difficulty_z as difficulty_z
    from benchwatch.irt.difficulty.scale import uncertain_abilities as uncertain_abilities
    from benchwatch.irt.fits.calibrate import calibrate_items as calibrate_items
    from benchwatch.irt.fits.calibrate import calibrate_models as calibrate_models
    from benchwatch.irt.fits.cells import CellPatterns as CellPatterns
    from benchwatch.irt.fits.cells import cell_loglik as cell_loglik
    from benchwatch.irt.fits.cells import cell_patterns as cell_patterns
    from benchwatch.irt.fits.cells import cells_by_item as cells_by_item
    from benchwatch.irt.fits.fit import fit_rasch as fit_rasch
    from benchwatch.irt.fits.marginal import marginal_abilities as marginal_abilities
    from benchwatch.irt.fits.marginal import marginal_abilities_patterns as marginal_abilities_patterns
    from benchwatch.irt.fits.marginal_cells import marginal_abilities_cells as marginal_abilities_cells
    from benchwatch.irt.fits.rasch_map import RaschFit as RaschFit
    from benchwatch.irt.fits.rasch_map import fit_map as fit_map
    from benchwatch.irt.fits.rasch_map import neg_log_posterior as neg_log_posterior
    from benchwatch.irt.fits.rasch_nuts import exchangeable_items as exchangeable_items
    from benchwatch.irt.fits.rasch_nuts import fit_nuts as fit_nuts
    from benchwatch.irt.fits.rasch_nuts import nutpie_available as nutpie_available
    from benchwatch.irt.fits.rasch_nuts import pooled_positions as pooled_positions
    from benchwatch.irt.item_model.counts import count_loglik as count_loglik
    from benchwatch.irt.item_model.counts import count_rows as count_rows
    from benchwatch.irt.item_model.design import blanks_where_failures as blanks_where_failures
    from benchwatch.irt.item_model.design import design_groups as design_groups
    from benchwatch.irt.item_model.fit_check import FitCheck as FitCheck
    from benchwatch.irt.item_model.fit_check import check_fit as check_fit
    from benchwatch.irt.item_model.floors import FloorEstimate as FloorEstimate
    from benchwatch.irt.item_model.floors import estimate_floor as estimate_floor
    from benchwatch.irt.item_model.model import PATHS as PATHS
    from benchwatch.irt.item_model.model import Corner as Corner
    from benchwatch.irt.item_model.model import ItemModel as ItemModel
    from benchwatch.irt.item_model.model import fit_item_model as fit_item_model
    from benchwatch.irt.item_model.model import judge as judge
    from benchwatch.irt.item_model.samples import RhoEstimate as RhoEstimate
    from benchwatch.irt.item_model.samples import beta_binomial_logpmf as beta_binomial_logpmf
    from benchwatch.irt.item_model.samples import effective as effective
    from benchwatch.irt.item_model.samples import estimate_rho as estimate_rho
    from benchwatch.irt.item_model.spread import SPREAD_LARGEST as SPREAD_LARGEST
    from benchwatch.irt.item_model.spread import SpreadEstimate as SpreadEstimate
    from benchwatch.irt.item_model.spread import estimate_spread as estimate_spread
    from benchwatch.irt.item_model.spread import spread_rows as spread_rows
    from benchwatch.irt.kernels import compiled_kernels as compiled_kernels
    from benchwatch.irt.kernels import item_model_kernels as item_model_kernels
    from benchwatch.irt.responses import ResponseArrays as ResponseArrays
    from benchwatch.irt.responses import arrays_from_dense as arrays_from_dense
    from benchwatch.irt.responses import encode_responses as encode_responses
