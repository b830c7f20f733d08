"""The fast tier's choice of tests (tests/tiers.py)."""

from tests.tiers import read_durations, select_fast, write_durations


def test_fast_tier_keeps_the_cheapest_within_budget_every_file_and_new_tests():
    ids = ["a.py::t1", "a.py::t2", "b.py::t1", "b.py::t2", "c.py::slow", "c.py::new"]
    rec = {"a.py::t1": 1.0, "a.py::t2": 5.0, "b.py::t1": 2.0, "b.py::t2": 30.0, "c.py::slow": 50.0}
    keep = select_fast(ids, rec, budget=10.0)
    assert keep == {"a.py::t1", "a.py::t2", "b.py::t1", "c.py::new"}  # 8 s of 10; c.py runs its new test
    keep = select_fast(ids[:5], rec, budget=10.0)
    assert "c.py::slow" in keep and "b.py::t2" not in keep  # c.py's cheapest test, though over budget


def test_durations_round_trip_with_the_host(tmp_path):
    p = tmp_path / "d.json"
    assert read_durations(p) == {}
    write_durations({"x.py::t": 1.23456}, "abc", p)
    assert read_durations(p) == {"x.py::t": 1.235}
    assert '"host"' in p.read_text() and '"commit": "abc"' in p.read_text()
