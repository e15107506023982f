"""The optional generator: ask an OpenAI-compatible chat endpoint for candidate items aimed at each gap.

For each gap of the fill plan, the prompt holds the seed items on either side (their text from the user's
file), the target difficulty (z, and the share of the pool's models expected to solve such an item) and
asks for new items as a JSON list of ``{"text": ..., "answer": ...}``. Requests go through httpx with
retries on 429, 5xx and connection errors (``Retry-After`` honoured); an answer that is not such a list is
reported in one line and skipped. The API key is sent in a header and never written anywhere.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable

import httpx

SYSTEM = (
    "You write new items for an AI benchmark. Each new item must test the same skill as the examples, in the "
    "same format, with one unambiguous correct answer, at the difficulty asked for."
)


def _prompt(entry: dict, texts: dict[str, str], per_gap: int) -> str:
    seeds = [*entry["seeds_below"], *entry["seeds_above"]]
    shown = [f"- (difficulty z = {s['z']:.3f}) {texts[s['item_id']]}" for s in seeds if s["item_id"] in texts]
    share = sum(m["p"] for m in entry["solve"]) / max(len(entry["solve"]), 1)
    return "\n".join(
        [
            "Existing items on either side of a gap in the benchmark's difficulty (z: 0 easiest, 1 hardest):",
            *shown,
            "",
            f"Write {per_gap} new items of difficulty z = {entry['target_z']:.3f}: harder than the first "
            f"{len(entry['seeds_below'])} above and easier than the rest, so that about {share:.0%} of the "
            "evaluated models would solve each.",
            'Answer with only a JSON list: [{"text": "...", "answer": "..."}, ...].',
        ]
    )


def _items(content: str) -> list[dict]:
    """The items of an answer, or ValueError saying what is wrong with it."""
    text = re.sub(r"^```(?:json)?\s*|\s*```$", "", content.strip())
    try:
        data = json.loads(text)
    except ValueError:
        raise ValueError(f"not JSON: {content[:80]!r}") from None
    if not isinstance(data, list) or not data:
        raise ValueError("not a non-empty JSON list")
    for k, item in enumerate(data):
        if not isinstance(item, dict) or not isinstance(item.get("text"), str) or not item["text"].strip():
            raise ValueError(f"item {k} has no text")
    return data


def _post(client: httpx.Client, url: str, body: dict, headers: dict, retries: int, backoff: float, sleep) -> dict:
    last = "no attempt"
    for attempt in range(retries + 1):
        wait = backoff * 2**attempt
        try:
            response = client.post(url, json=body, headers=headers)
            if response.status_code == 429 or response.status_code >= 500:
                last = f"HTTP {response.status_code}"
                after = response.headers.get("Retry-After", "")
                wait = float(after) if after.replace(".", "", 1).isdigit() else wait
            elif response.status_code >= 400:
                raise RuntimeError(f"HTTP {response.status_code} from {url}")
            else:
                return response.json()
        except httpx.TransportError as exc:
            last = f"connection failed ({type(exc).__name__})"
        except ValueError:
            raise RuntimeError(f"the answer from {url} is not JSON") from None
        if attempt < retries:
            sleep(min(wait, 60.0))
    raise RuntimeError(f"{url}: {last} after {retries + 1} attempt(s)")


def generate_candidates(
    plan: list[dict],
    texts: dict[str, str],
    *,
    endpoint: str,
    model: str,
    api_key: str | None = None,
    per_gap: int = 3,
    retries: int = 3,
    backoff: float = 1.0,
    timeout: float = 120.0,
    sleep: Callable[[float], None] = time.sleep,
    log: Callable[[str], None] = print,
) -> list[dict]:
    """Candidate items for each gap of ``plan``, one dict each (gap, target, seeds, text, answer)."""
    url = endpoint.rstrip("/")
    if not url.endswith("/chat/completions"):
        url += "/chat/completions"
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    out = []
    with httpx.Client(timeout=timeout) as client:
        for k, entry in enumerate(plan, 1):
            body = {
                "model": model,
                "messages": [
                    {"role": "system", "content": SYSTEM},
                    {"role": "user", "content": _prompt(entry, texts, per_gap)},
                ],
            }
            answer = _post(client, url, body, headers, retries, backoff, sleep)
            try:
                content = answer["choices"][0]["message"]["content"]
                items = _items(content if isinstance(content, str) else "")
            except (KeyError, IndexError, TypeError, ValueError) as exc:
                log(f"fill generate: gap {k} ({entry['lo']:.3f}-{entry['hi']:.3f}): a malformed answer, skipped: {exc}")
                continue
            seeds = [s["item_id"] for s in (*entry["seeds_below"], *entry["seeds_above"])]
            for j, item in enumerate(items, 1):
                out.append(
                    {
                        "candidate_id": f"gap{k}-{j}",
                        "gap": [entry["lo"], entry["hi"]],
                        "target_z": entry["target_z"],
                        "target_b": entry["target_b"],
                        "seeds": seeds,
                        "text": item["text"],
                        "answer": item.get("answer"),
                    }
                )
    return out
