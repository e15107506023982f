"""The glossary: the statistical terms the pages use, explained where they appear (Markdown abbreviations:
a dotted underline, the explanation on hover) and listed on the methodology page."""

from __future__ import annotations

from pathlib import Path

GLOSSARY: dict[str, str] = {
    "DDM": "Difficulty distribution mismatch: the 1-Wasserstein distance between the items' difficulties and the "
    "target distribution on the 0-1 difficulty axis (0: a perfect match)",
    "W1": "1-Wasserstein distance: the area between two cumulative distribution functions",
    "IRT": "Item response theory: models of how a model's ability and an item's difficulty give the chance of a "
    "correct answer",
    "1PL": "One-parameter logistic (Rasch) model: P(correct) = sigmoid(ability - difficulty)",
    "MAP": "Maximum a posteriori: the most probable parameters under the model and its priors",
    "marginal MAP": "The abilities that maximise the posterior with every item's difficulty integrated out, "
    "not fitted: free of the stretch of the scale a joint fit has with few models",
    "EM": "Expectation-maximisation: an iteration that alternates averaging over the unknown difficulties "
    "and updating the abilities and the difficulties' prior",
    "NUTS": "The No-U-Turn Sampler: the Markov chain Monte Carlo method PyMC uses",
    "R-hat": "A convergence check of Markov chains: 1 when the chains agree",
    "NPMLE": "Nonparametric maximum likelihood: the best-fitting distribution of difficulties among all "
    "distributions, not one family",
    "Schur complement": "Solving a block linear system by eliminating one block first: here the many "
    "difficulties, leaving a small system in the abilities",
    "Kantorovich–Rubinstein": "The duality that makes the 1-Wasserstein distance the largest difference "
    "of the mean of a 1-Lipschitz function under the two distributions",
    "McNemar": "McNemar's exact test: two models compared on the items where exactly one of them was right",
    "Holm": "Holm's step-down correction: keeps the chance of any false 'significantly different' across all "
    "pairs at 5%",
    "Wilson": "The Wilson score interval for a proportion: correct near 0 and 1, where the normal one is not",
    "Fisher information": "How much one answer says about a difficulty: the inverse of its best possible variance",
}


def abbreviations() -> str:
    """The glossary as Markdown abbreviation definitions (the ``abbr`` extension), sorted."""
    lines = [f"*[{term}]: {text.replace(chr(10), ' ')}" for term, text in sorted(GLOSSARY.items())]
    return "\n\n" + "\n".join(lines) + "\n"


def glossary_section() -> str:
    """The glossary as a section of the methodology page."""
    rows = [f"| {term} | {text} |" for term, text in sorted(GLOSSARY.items(), key=lambda t: t[0].lower())]
    return "\n\n## Glossary\n\n| term | meaning |\n|---|---|\n" + "\n".join(rows) + "\n"


def append_glossary(docs: Path) -> None:
    """Every page of ``docs`` explains the glossary's terms where they appear; the methodology page lists them."""
    for page in sorted(docs.rglob("*.md")):
        with page.open("a", encoding="utf-8") as out:
            if page.name == "methodology.md" and page.parent == docs:
                out.write(glossary_section())
            out.write(abbreviations())
