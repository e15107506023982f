"""The README's Python API example runs as written and prints the verdicts and flags it promises."""

from __future__ import annotations

import contextlib
import io
import re

from tests.conftest import ROOT


def test_the_readme_python_api_example_runs_and_prints_verdicts_and_flags():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Python API", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "benchwatch.audit(" in code and "pd.DataFrame(" in code  # a frame built in the block, then audited
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, "README.md:Python API", "exec"), {"__name__": "readme_example"})
    lines = printed.getvalue().splitlines()
    # the items all sit at the easy end: every coverage verdict is "found", and both flags are raised
    assert lines[:3] == [
        "ddm: found (level 0.100)",
        "max_gap: found (level 0.100)",
        "top5_gap_sum: found (level 0.300)",
    ]
    assert lines[3] == "flags: revise fill"
