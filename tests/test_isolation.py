"""A run's outcome does not depend on what ran before it in the same process (sweep workers and notebooks reuse
processes): in a fresh interpreter, config B first, then A, then B again; both Bs give the same summary."""

import json
import subprocess
import sys

import pytest

from lsmsim.testing_fuzz import base_config

SCRIPT = """
import json, math, sys
import lsmsim
out = []
for c in json.loads(sys.argv[1]):
    s = lsmsim.run(c).summary
    out.append({k: v for k, v in s.items() if isinstance(v, (int, float)) and math.isfinite(v)})
print(json.dumps(out))
"""


def _run(*configs) -> list[dict]:
    r = subprocess.run(
        [sys.executable, "-c", SCRIPT, json.dumps(list(configs))], capture_output=True, text=True, timeout=600
    )
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


PAIRS = [
    # issue 18: EcoTune's DP with R = 4 and C = 0, then with a huge first-round MLC time, raised IndexError
    ({"name": "ecotune", "R": 4, "C": 0}, {"name": "ecotune", "R": 4, "T_c": 1e9}),
    ({"name": "arce"}, {"name": "universal"}),
]


@pytest.mark.parametrize("a, b", PAIRS, ids=["ecotune-ecotune", "arce-universal"])
def test_b_after_a_equals_b_alone(a, b):
    alone, _, after = _run(base_config(b), base_config(a), base_config(b))
    assert alone == after
    assert alone["user_bytes"] > 0
