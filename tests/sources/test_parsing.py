"""The adapters' parsing helpers: a shortcut taken for speed reads exactly what the long way reads."""

from __future__ import annotations

import csv
import io
import json

import pytest

from benchwatch.errors import InputError
from benchwatch.sources.http import Download
from benchwatch.sources.parsing import read_json, whole_csv


def _verdict(body: bytes) -> str:
    try:
        whole_csv(body, "src", "u")
    except InputError as exc:
        return str(exc)
    return "ok"


@pytest.mark.parametrize(
    "body",
    [
        "a,b,c\n1,2,3\n4,5,6\n",
        "a,b,c\n1,2,3\n4,5",
        "a,b,c\r\n1,2,3\r\n4,5\r\n",
        "a,b,c\n\n1,2,3\n\n",
        "a,b,c\n1,2\x853\n",  # a character that str.splitlines would take for a line end, and a CSV reader not
        "a,b,c\n",
        "a,b,c\n4",
    ],
)
def test_whole_csv_without_quotes_decides_as_the_csv_reader_would(body):
    """With no quoted field a line is a row: the header's and the last row's fields counted from the lines give
    the verdict (and the row number) that the CSV reader's rows give."""
    rows = [r for r in csv.reader(io.StringIO(body)) if r]
    expect = "ok" if len(rows) < 2 or len(rows[-1]) >= len(rows[0]) else f"line {len(rows)}:"
    got = _verdict(body.encode())
    assert (got == "ok") == (expect == "ok"), (got, expect)
    if expect != "ok":
        assert expect in got and f"{len(rows[-1])} of the header's {len(rows[0])} fields" in got
        quoted = _verdict(body.replace("a,", '"a",', 1).encode())  # the long way: the reader's rows
        assert quoted == got


def _download(tmp_path, text: str) -> Download:
    path = tmp_path / "body.json"
    path.write_text(text)
    return Download("http://x/doc.json", path, "fetched", "", path.stat().st_size, "", "", 0.0)


def test_read_json_refuses_a_key_given_twice_and_keeps_a_lone_surrogate_escaped_either_way(tmp_path):
    """The members read at once unless a key repeats: a key twice with two values is refused, twice with one value
    read once; a lone surrogate (only a \\u escape can carry one) kept as its escape."""
    with pytest.raises(InputError, match="the key 'a' appears twice"):
        read_json(_download(tmp_path, '{"a": 1, "b": 2, "a": 3}'), "src")
    assert read_json(_download(tmp_path, '{"a": 1, "a": 1, "b": [{"c": 2}]}'), "src") == {"a": 1, "b": [{"c": 2}]}
    lone = read_json(_download(tmp_path, '{"m": "x\\ud800y", "n": "\\u00e9"}'), "src")
    assert lone == {"m": "x\\ud800y", "n": "é"}
    json.dumps(lone).encode("utf-8")  # every string as UTF-8 holds it


@pytest.mark.parametrize("as_bytes", [False, True])
def test_a_text_without_a_surrogate_escape_is_read_without_the_hook_to_the_same_objects(as_bytes):
    """``surrogate_hook``: the escaping hook where a text escapes a surrogate (lone, in either case of its hex, or
    one of a pair), none where it escapes none; either way the objects are those the escaping hook reads."""
    from benchwatch.sources.parsing import escape_surrogates, surrogate_hook

    plain = '{"m": "caf\\u00e9 \u00e9 ok", "n": [1, {"k": "\\u0041"}]}'
    pair = '{"m": "\\ud83d\\ude00"}'
    for text, lone in ((plain, False), (pair, True), ('{"m": "x\\ud800y"}', True), ('{"m": "x\\uDBFFy"}', True)):
        body = text.encode() if as_bytes else text
        hook = surrogate_hook(body)
        assert (hook is escape_surrogates) == lone
        assert json.loads(body, object_pairs_hook=hook) == json.loads(body, object_pairs_hook=escape_surrogates)
