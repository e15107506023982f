"""Who answered what: the items grouped by the set of models that answered them.

When which cells are missing depends on the items' difficulty (weaker or older models never saw the newest,
hardest items), an item's set of models says something about where it lies. A model of the items' difficulties
that ignores it (one prior, or one mixing distribution, for every item) is then wrong: the items answered by the
strong models only are pulled towards the others, the abilities step compresses the scale, and the bounds of
``benchwatch.metrics.bounds`` put mass where no item of that group can be. Giving each group its own distribution of
difficulty removes the dependence: whatever the design did to a group, its items are described by its own
distribution, and the benchmark's is their mixture with the groups' known sizes.

A group is a set of models that answered at least ``MIN_GROUP_SHARE`` of the items (and ``MIN_GROUP_ITEMS``) by
itself; the items whose set is rarer form one more group together; groups whose items most of the same models
answered (each model answering at least half of each group's items, or under half of each) are one. Missing cells
scattered at random give every item its own set, or a few sets of one design: one group, as before. A complete
benchmark is one group. A design blurred by blanks scattered over all its items (no set of models shared by enough
items) is read as one group, as before: the groups are exact sets, not clusters.
"""

from __future__ import annotations

import numpy as np

from benchwatch.irt.responses import ResponseArrays

MIN_GROUP_ITEMS = 20
MIN_GROUP_SHARE = 0.05
MAX_GROUPS = 4


def observer_keys(data: ResponseArrays) -> np.ndarray:
    """A 64-bit fingerprint of each item's set of answering models (compiled; collisions about 2^-64 a pair)."""
    return model_set_keys(data.item_idx, data.model_idx, data.n_models, data.n_items)


def model_set_keys(item_idx: np.ndarray, model_idx: np.ndarray, n_models: int, n_items: int) -> np.ndarray:
    """``observer_keys`` from the cells' codes alone (the items' sets of models; no trials or answers read)."""
    from benchwatch.irt.fits.cell_kernels import hash_items

    rng = np.random.default_rng(20261203)
    r1 = rng.integers(1, 2**63, size=n_models, dtype=np.uint64) | np.uint64(1)
    r2 = rng.integers(1, 2**63, size=n_models, dtype=np.uint64) | np.uint64(1)
    codes = (np.asarray(item_idx).astype(np.int32, copy=False), np.asarray(model_idx).astype(np.int32, copy=False))
    empty = np.zeros(1)  # (alike: the kernel reads no trials or answers)
    return hash_items(*codes, empty, empty, r1, r2, n_items, True)


def design_groups(data: ResponseArrays) -> np.ndarray | None:
    """Each item's design group (0 the largest), or None when the items form one group (complete data, or missing
    cells scattered so that no set of models is shared by enough items)."""
    if data.model_idx.size == data.n_models * data.n_items:
        return None  # complete: every item answered by every model
    keys = observer_keys(data)
    unique, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    enough = max(MIN_GROUP_ITEMS, MIN_GROUP_SHARE * data.n_items)
    order = np.argsort(-counts, kind="stable")
    kept = [k for k in order if counts[k] >= enough][: MAX_GROUPS - 1]
    label = np.full(unique.size, len(kept), dtype=np.int64)  # the rest: one group
    label[kept] = np.arange(len(kept))
    groups = label[inverse.ravel()]
    rest = int(np.sum(groups == len(kept)))
    if rest and rest < MIN_GROUP_ITEMS and kept:  # too few for a group of their own: they join the largest
        groups[groups == len(kept)] = 0
    # Groups that most of the same models answered are one design (a blank scattered here and there leaves an
    # item outside its group's exact set, not outside its design): merged, so that missing cells at random make
    # no group of their own.
    n = int(groups.max()) + 1
    cells = np.zeros((n, data.n_models))
    np.add.at(cells, (groups[data.item_idx], data.model_idx), 1.0)
    majority = cells / np.bincount(groups, minlength=n)[:, None] >= 0.5
    _, merged = np.unique(majority, axis=0, return_inverse=True)
    groups = merged.ravel()[groups]
    order = np.argsort(-np.bincount(groups), kind="stable")  # 0 the largest
    groups = np.argsort(order)[groups]
    return groups if int(groups.max()) + 1 > 1 else None


def group_summary(groups: np.ndarray | None, data: ResponseArrays) -> list[dict]:
    """Per group: its items and the models that answered its items (the record's words for the design)."""
    if groups is None:
        return []
    out = []
    for g in range(int(groups.max()) + 1):
        items = np.flatnonzero(groups == g)
        cells = np.isin(data.item_idx, items)
        models = np.unique(data.model_idx[cells])
        out.append({"items": int(items.size), "models": int(models.size)})
    return out


BLANK_Z = 3.09  # one-sided 0.1%: a model's blanks sit where its failures would, beyond chance
MIN_BLANKS = 10  # blanks within the model's own range of difficulty, for its test to run


def blanks_where_failures(
    data: ResponseArrays,
    theta: np.ndarray,
    b: np.ndarray,
    floor: np.ndarray | None = None,
    groups: np.ndarray | None = None,
) -> dict:
    """Whether models' blanks sit where their failures would: per model, its fitted chance of a wrong answer on
    its blank cells against its answered ones, over the items whose blanks the design does not explain. A design
    group's items share one set of models (``design_groups``): a model outside the set of a group left its items
    blank by design (weaker models given only the easier items), and those are not counted; blanks scattered
    through items that the model's peers answered are. A two-sample z per model with enough blanks; the
    benchmark's is their sum over the square root of their number (Stouffer). Blanks that stand for failures
    cannot be corrected (the answers that would tell are the missing ones): they are detected and said. Missing at
    random, the blanks sit where the answers do (z about 0)."""
    from benchwatch.irt.answers import right

    out: dict = {"models": [], "z": 0.0, "tested": 0, "warn": False}
    n_m, n_i = data.n_models, data.n_items
    if data.model_idx.size == n_m * n_i or n_m * n_i > 5e7:  # complete; or too large for a mask of every cell
        return out
    c = np.zeros(n_i) if floor is None else np.asarray(floor, float)
    answered = np.zeros((n_m, n_i), bool)
    answered[data.model_idx, data.item_idx] = True
    considered = np.ones((n_m, n_i), bool)
    if groups is not None:
        for g in range(int(groups.max()) + 1):
            items = groups == g
            share = answered[:, items].mean(axis=1)
            outside = share < 0.5  # the group's items were, by design, not given to this model
            considered[np.ix_(outside, items)] = False
    zs = []
    for j in range(n_m):
        seen = answered[j] & considered[j]
        blank = ~answered[j] & considered[j]
        if blank.sum() < MIN_BLANKS or seen.sum() < MIN_BLANKS:
            continue
        fail = 1 - right(theta[j] - b, c)
        fb, fa = fail[blank], fail[seen]
        se = np.sqrt(fb.var(ddof=1) / fb.size + fa.var(ddof=1) / fa.size)
        z = float((fb.mean() - fa.mean()) / max(se, 1e-12))
        zs.append(z)
        if z > BLANK_Z:
            out["models"].append(
                {
                    "model": str(data.models[j]),
                    "blanks": int(blank.sum()),
                    "fail_blank": float(fb.mean()),
                    "fail_answered": float(fa.mean()),
                    "z": z,
                }
            )
    if zs:
        out["z"] = float(np.sum(zs) / np.sqrt(len(zs)))
        out["tested"] = len(zs)
        out["warn"] = out["z"] > BLANK_Z
    out["models"].sort(key=lambda r: -r["z"])
    return out
