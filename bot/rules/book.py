"""Per-benchmark settings from ``[rules]`` in benchwatch.toml: thresholds, ceiling, target distribution."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from bot.errors import InputError
from bot.metrics import UNIFORM, Target
from bot.rules.flags import DEFAULT_THRESHOLDS, Thresholds

THRESHOLD_KEYS = tuple(f.name for f in fields(Thresholds))


@dataclass(frozen=True)
class RuleBook:
    """Default thresholds plus per-benchmark overrides of thresholds, ceiling and target."""

    default: Thresholds = DEFAULT_THRESHOLDS
    overrides: dict[str, Thresholds] = field(default_factory=dict)
    ceilings: dict[str, float] = field(default_factory=dict)
    targets: dict[str, dict] = field(default_factory=dict)

    def thresholds_for(self, benchmark: str) -> Thresholds:
        return self.overrides.get(benchmark, self.default)

    def ceiling_for(self, benchmark: str) -> float:
        return self.ceilings.get(benchmark, 1.0)

    def target_spec(self, benchmark: str) -> dict:
        """``{}`` (uniform), ``{"beta": [a, b]}`` or ``{"benchmark": name}`` (that benchmark's z)."""
        return self.targets.get(benchmark, {})


def _thresholds(base: Thresholds, table: dict, where: str) -> Thresholds:
    values = {}
    for key in THRESHOLD_KEYS:
        if key in table:
            value = table[key]
            if not isinstance(value, int | float) or value <= 0:
                raise InputError(where, "must be a positive number", field=key, value=value)
            values[key] = float(value)
    return replace(base, **values)


def rules_from_config(rules: dict, source: str = "benchwatch.toml") -> RuleBook:
    """Read ``[rules]`` and ``[rules.benchmarks."NAME"]`` (keys: the thresholds, ``ceiling``, ``target``)."""
    default = _thresholds(DEFAULT_THRESHOLDS, rules, f"{source} [rules]")
    overrides, ceilings, targets = {}, {}, {}
    for name, table in rules.get("benchmarks", {}).items():
        where = f'{source} [rules.benchmarks."{name}"]'
        overrides[name] = _thresholds(default, table, where)
        if "ceiling" in table:
            ceiling = table["ceiling"]
            if not isinstance(ceiling, int | float) or not 0 < ceiling <= 1:
                raise InputError(where, "must be a proportion in (0, 1]", field="ceiling", value=ceiling)
            ceilings[name] = float(ceiling)
        if "target" in table:
            spec = table["target"]
            if spec == "uniform":
                spec = {}
            ok = isinstance(spec, dict) and (
                spec == {}
                or (list(spec) == ["beta"] and len(spec["beta"]) == 2 and all(v > 0 for v in spec["beta"]))
                or (list(spec) == ["benchmark"] and isinstance(spec["benchmark"], str))
            )
            if not ok:
                raise InputError(
                    where, 'must be "uniform", {beta = [a, b]} or {benchmark = "NAME"}', field="target", value=spec
                )
            targets[name] = spec
    return RuleBook(default, overrides, ceilings, targets)


def beta_or_uniform(spec: dict) -> Target:
    """The Target of a spec that needs no other benchmark's data."""
    if "beta" in spec:
        return Target.beta(*spec["beta"])
    return UNIFORM
