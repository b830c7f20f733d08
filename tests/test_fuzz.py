"""Bad input, generated (lsmsim/testing_fuzz.py): every config either runs or fails with a ConfigError that names
its YAML path; none raises anything else or runs past its alarm. Through the CLI: exit 2, one message, no
traceback."""

import collections
import functools
import subprocess
import sys

import pytest
import yaml

from lsmsim.testing_fuzz import cases, classify, known_cases

N = 600


def test_issue_18_cases_are_clear_or_run():
    bad = [(c.changes, *classify(c)) for c in known_cases()]
    assert [b for b in bad if b[1] not in ("clear", "ok")] == []
    assert sum(b[1] == "clear" for b in bad) >= len(bad) - 2  # all but the two degenerate-but-runnable ones


def test_generated_bad_configs_are_clear_or_run():
    counts, bad = collections.Counter(), []
    for c in cases(N, seed=18):
        kind, detail = classify(c, timeout_s=20)
        counts[kind] += 1
        if kind not in ("clear", "ok"):
            bad.append((c.config["policy"]["name"], c.changes, kind, detail[:300]))
    assert bad == []
    assert counts["clear"] > N // 2 and counts["ok"] > 0  # the generator reaches both outcomes


@functools.cache
def _clear_cases():
    return [c for c in cases(400, seed=19) if classify(c, timeout_s=20)[0] == "clear"]


@pytest.mark.parametrize("i", range(6))
def test_cli_exits_2_without_traceback(tmp_path, i):
    case = _clear_cases()[i * 13]
    f = tmp_path / "bad.yaml"
    f.write_text(yaml.safe_dump(case.config))
    r = subprocess.run([sys.executable, "-m", "lsmsim.cli", "run", str(f)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, (case.changes, r.stderr)
    assert "Traceback" not in r.stderr and r.stderr.startswith(f"lsmsim: {f}"), r.stderr
