"""Per-benchmark settings from ``[rules]`` in benchwatch.toml: thresholds, ceiling, target distribution, chance."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field, fields, replace
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from benchwatch.errors import InputError
from benchwatch.metrics import UNIFORM, Target
from benchwatch.rules.flags import DEFAULT_THRESHOLDS, Thresholds

THRESHOLD_KEYS = tuple(f.name for f in fields(Thresholds))


@dataclass(frozen=True)
class RuleBook:
    """Default thresholds plus per-benchmark overrides of thresholds, ceiling and target."""

    default: Thresholds = DEFAULT_THRESHOLDS
    overrides: dict[str, Thresholds] = field(default_factory=dict)
    ceilings: dict[str, float] = field(default_factory=dict)
    targets: dict[str, dict] = field(default_factory=dict)
    pages: dict[str, str] = field(default_factory=dict)  # benchmark name -> the benchmark id whose page shows it
    max_shrink: float = 0.3  # new data that lost a larger share of its rows is held back
    expect_shrink: frozenset[str] = frozenset()  # benchmarks whose shrink is expected (published anyway)
    max_growth: float = 1.0  # an item count that grew by more than this share since the last snapshot: an alert
    names: dict[str, str] = field(default_factory=dict)  # benchmark -> the name its pages show (display_name)
    chances: dict[str, float] = field(default_factory=dict)  # benchmark -> its items' configured chance floor

    def fingerprint(self) -> str:
        """A short hash of every rule that changes a figure or a flag: records made under other rules are not kept
        as they are (a display name changes neither: it is not in the hash). Configured chance floors are in it
        only when some benchmark sets one, so a book without them keeps the hash it had before floors existed."""
        rules = {k: v for k, v in dataclasses.asdict(self).items() if k != "names"}
        if not rules["chances"]:
            del rules["chances"]
        text = json.dumps(rules, sort_keys=True, default=sorted)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def chance_for(self, benchmark: str) -> float | None:
        """The chance floor ``[rules.benchmarks."NAME"] chance`` sets for a benchmark's items, or None."""
        return self.chances.get(benchmark)

    def page_for(self, benchmark: str, hint: str | None = None) -> str:
        """The benchmark id of a published benchmark: configured aliases first, then the source's hint."""
        return self.pages.get(benchmark) or hint or benchmark

    def name_for(self, benchmark: str) -> str | None:
        """The configured display name of a benchmark, or None (the site then makes one)."""
        return self.names.get(benchmark)

    def thresholds_for(self, benchmark: str) -> Thresholds:
        return self.overrides.get(benchmark, self.default)

    def ceiling_for(self, benchmark: str) -> float:
        return self.ceilings.get(benchmark, 1.0)

    def target_spec(self, benchmark: str) -> dict:
        """``{}`` (uniform), ``{"beta": [a, b]}`` or ``{"benchmark": name}`` (that benchmark's z)."""
        return self.targets.get(benchmark, {})


class BenchmarkSettings(BaseModel):
    """One ``[rules.benchmarks."NAME"]`` table of benchwatch.toml, checked: the name its pages show (stripped), the
    chance floor of its items, its ceiling and its target (``{}``: uniform, ``{"beta": [a, b]}`` or
    ``{"benchmark": name}``); None where the table does not set it. Its thresholds are read beside it
    (``_thresholds``)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    display_name: str | None = None
    chance: float | None = None
    ceiling: float | None = None
    target: dict[str, Any] | None = None

    @field_validator("display_name", mode="before")
    @classmethod
    def _name(cls, shown: object) -> str:
        if not isinstance(shown, str) or not shown.strip() or len(shown) > 200:
            raise ValueError("must be a name of 1 to 200 characters")
        return shown.strip()

    @field_validator("chance", mode="before")
    @classmethod
    def _chance(cls, chance: object) -> float:
        if isinstance(chance, bool) or not isinstance(chance, int | float) or not 0 <= chance < 1:
            raise ValueError("must be a number in [0, 1) (one over the number of options)")
        return float(chance)

    @field_validator("ceiling", mode="before")
    @classmethod
    def _ceiling(cls, ceiling: object) -> float:
        if not isinstance(ceiling, int | float) or not 0 < ceiling <= 1:
            raise ValueError("must be a proportion in (0, 1]")
        return float(ceiling)

    @field_validator("target", mode="before")
    @classmethod
    def _target(cls, spec: object) -> object:
        if spec == "uniform":
            return {}
        ok = isinstance(spec, dict) and (
            spec == {}
            or (list(spec) == ["beta"] and len(spec["beta"]) == 2 and all(v > 0 for v in spec["beta"]))
            or (list(spec) == ["benchmark"] and all(isinstance(v, str) for v in spec.values()))
        )
        if not ok:
            raise ValueError('must be "uniform", {beta = [a, b]} or {benchmark = "NAME"}')
        return spec


def _benchmark_settings(table: dict, where: str) -> BenchmarkSettings:
    """A benchmark's table checked; the first setting it gets wrong is an ``InputError`` naming the table, the
    field and the value."""
    try:
        return BenchmarkSettings.model_validate(table if isinstance(table, dict) else {})  # not a table: sets none
    except ValidationError as exc:
        wrong = exc.errors()[0]
        said = str(wrong["ctx"]["error"]) if "ctx" in wrong else wrong["msg"]
        raise InputError(where, said, field=str(wrong["loc"][0]), value=wrong["input"]) from None


def _thresholds(base: Thresholds, table: dict, where: str) -> Thresholds:
    values = {}
    for key in THRESHOLD_KEYS:
        if key in table:
            value = table[key]
            if not isinstance(value, int | float) or value <= 0:
                raise InputError(where, "must be a positive number", field=key, value=value)
            values[key] = float(value)
    return replace(base, **values)


def rules_from_config(rules: dict, source: str = "benchwatch.toml", benchmarks: dict | None = None) -> RuleBook:
    """Read ``[rules]`` and ``[rules.benchmarks."NAME"]`` (keys: the thresholds, ``ceiling``, ``target``,
    ``display_name``, ``chance``: the chance floor of the benchmark's items, for data that carry none).

    ``benchmarks`` is the ``[benchmarks."ID"]`` tables: each ``aliases`` list names the published
    benchmarks (of any source) shown together on the page of benchmark ``ID``.
    """
    pages: dict[str, str] = {}
    for bench_id, table in (benchmarks or {}).items():
        for alias in table.get("aliases", []):
            if pages.get(alias, bench_id) != bench_id:
                where = f'{source} [benchmarks."{bench_id}"]'
                raise InputError(where, f"alias already belongs to {pages[alias]!r}", field="aliases", value=alias)
            pages[alias] = bench_id
        pages[bench_id] = bench_id
    default = _thresholds(DEFAULT_THRESHOLDS, rules, f"{source} [rules]")
    overrides, ceilings, targets, names, chances = {}, {}, {}, {}, {}
    for name, table in rules.get("benchmarks", {}).items():
        where = f'{source} [rules.benchmarks."{name}"]'
        overrides[name] = _thresholds(default, table, where)
        settings = _benchmark_settings(table, where)
        if settings.display_name is not None:
            names[name] = settings.display_name
        if settings.chance is not None:
            chances[name] = settings.chance
        if settings.ceiling is not None:
            ceilings[name] = settings.ceiling
        if settings.target is not None:
            targets[name] = settings.target
    max_shrink = rules.get("max_shrink", 0.3)
    if not isinstance(max_shrink, int | float) or not 0 < max_shrink <= 1:
        raise InputError(f"{source} [rules]", "must be a proportion in (0, 1]", field="max_shrink", value=max_shrink)
    expect = rules.get("expect_shrink", [])
    if not isinstance(expect, list) or not all(isinstance(e, str) for e in expect):
        raise InputError(f"{source} [rules]", "expected a list of benchmark names", field="expect_shrink", value=expect)
    max_growth = rules.get("max_growth", 1.0)
    if not isinstance(max_growth, int | float) or isinstance(max_growth, bool) or not max_growth > 0:
        raise InputError(f"{source} [rules]", "must be a positive share", field="max_growth", value=max_growth)
    return RuleBook(
        default,
        overrides,
        ceilings,
        targets,
        pages,
        float(max_shrink),
        frozenset(expect),
        float(max_growth),
        names,
        chances,
    )


def beta_or_uniform(spec: dict) -> Target:
    """The Target of a spec that needs no other benchmark's data."""
    if "beta" in spec:
        return Target.beta(*spec["beta"])
    return UNIFORM
