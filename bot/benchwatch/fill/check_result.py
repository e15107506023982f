"""What a ``fill check`` finds (``benchwatch.fill.check.check_candidates``), typed: where each candidate lands, and
the benchmark's bounds and figures before and after adding them all. ``benchwatch fill check --json`` prints it
and a proposed revision (``benchwatch.fill.proposal``) keeps its parts, so it is a pydantic model: its fields are
declared in the order the JSON gives them, and a reader of a misspelt field is caught by the type checker."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer

Figures = dict[str, dict[str, Any]]  # figure -> its lo, value and hi


class CheckResult(BaseModel):
    """The candidates checked against one benchmark: ``stretches`` (its fill plan), ``candidates`` (each one's b, z
    and their intervals, where it lands and why), ``accepted`` (those inside a stretch), ``expected_inside`` (per
    stretch), the models left out, the figures as ``published`` and why its bounds are ``withheld`` (None: they are
    not); its bounds and verdicts before (as published) and after (``None``: none), the model-based figures
    ``before`` and ``after`` and where the after comes from (``after_from``), the audit's computation repeated
    without the candidates (``recomputed``) and whether it gives the published verdicts (``reproduced``)."""

    model_config = ConfigDict(frozen=True, strict=True, extra="forbid")

    benchmark: str
    pool: int
    stretches: list[dict[str, Any]]
    candidates: list[dict[str, Any]]
    accepted: list[str]
    expected_inside: list[float]
    left_out_models: list[str]
    published: dict[str, Any]
    withheld: str | None
    bounds_before: dict[str, Any] | None
    after: Figures
    after_from: str
    bounds_after: dict[str, Any] | None
    recomputed: dict[str, Any] | None
    reproduced: bool | None
    before: Figures

    @model_serializer(mode="wrap")
    def _in_order(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The fields in their declared order, but ``after_from`` last where the audit's computation was not
        repeated (``recomputed`` None: the figures after come from joint draws, found last)."""
        out = handler(self)
        if self.recomputed is None and "after_from" in out:
            out["after_from"] = out.pop("after_from")
        return out
