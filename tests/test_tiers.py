"""The fast tier's choice of tests (tests/tiers.py)."""

from tests.tiers import heaviest_files_first, read_record, select_fast, split_setup, write_record


def test_fast_tier_keeps_the_cheapest_within_budget_every_file_and_new_tests():
    ids = ["a.py::t1", "a.py::t2", "b.py::t1", "b.py::t2", "c.py::slow", "c.py::new"]
    rec = {"a.py::t1": 1.0, "a.py::t2": 5.0, "b.py::t1": 2.0, "b.py::t2": 30.0, "c.py::slow": 50.0}
    keep = select_fast(ids, rec, budget=10.0)
    assert keep == {"a.py::t1", "a.py::t2", "b.py::t1", "c.py::new"}  # 8 s of 10; c.py runs its new test
    keep = select_fast(ids[:5], rec, budget=10.0)
    assert "c.py::slow" in keep and "b.py::t2" not in keep  # c.py's cheapest test, though over budget


def test_a_shared_fixture_is_paid_once_whichever_test_sets_it_up():
    """A module fixture is set up by the first of its tests that runs: the record prices it apart, so a cheap test
    that reads it is not cheap when the fixture has not been paid for."""
    times = {
        "g.py::first": {"setup": 0.02, "call": 0.1},  # sets the session fixture up, cheaply
        "f.py::draw": {"setup": 150.0, "call": 0.5},
        "f.py::table": {"setup": 0.0, "call": 0.1},
        "f.py::files": {"setup": 0.0, "call": 0.2},
        "g.py::unit": {"setup": 0.01, "call": 0.3},
    }
    uses = {
        "g.py::first": ["tmp"],
        "f.py::draw": ["f.py::figs", "tmp"],
        "f.py::table": ["f.py::figs"],
        "f.py::files": [],
        "g.py::unit": [],
    }
    durations, fixtures = split_setup(times, uses)
    assert fixtures == {"tmp": 0.02, "f.py::figs": 150.0}  # each priced by the test that set it up
    assert durations["f.py::table"] == 0.1 and durations["g.py::unit"] == 0.31
    keep = select_fast(list(times), durations, budget=10.0, uses=uses, fixtures=fixtures)
    assert keep == {"g.py::first", "f.py::files", "g.py::unit"}
    keep = select_fast(list(times), durations, budget=200.0, uses=uses, fixtures=fixtures)
    assert keep == set(times)  # 150 s for the fixture once, not three times


def test_record_round_trip_with_the_host(tmp_path):
    p = tmp_path / "d.json"
    assert read_record(p) == ({}, {}, {})
    times = {"x.py::t": {"setup": 2.0, "call": 1.23456}, "x.py::u": {"call": 0.5}}
    write_record(times, {"x.py::t": ["x.py::fx"]}, "abc", p)
    durations, uses, fixtures = read_record(p)
    assert durations == {"x.py::t": 1.235, "x.py::u": 0.5} and uses == {"x.py::t": ["x.py::fx"]}
    assert fixtures == {"x.py::fx": 2.0}
    assert '"host"' in p.read_text() and '"commit": "abc"' in p.read_text()
    write_record({"x.py::u": {"call": 0.7}}, {}, "def", p)  # a run of one test updates it and keeps the others
    assert read_record(p)[0] == {"x.py::t": 1.235, "x.py::u": 0.7}


def test_the_dearest_files_are_handed_out_first_with_their_tests_together():
    """A figure file of cheap tests behind one long shared fixture goes before a file of many dearer tests; an
    unknown file costs nothing; a file's tests keep their order."""
    ids = ["a.py::t1", "a.py::t2", "figs.py::one", "figs.py::two", "new.py::t", "b.py::t"]
    rec = {"a.py::t1": 5.0, "a.py::t2": 6.0, "figs.py::one": 0.1, "figs.py::two": 0.1, "b.py::t": 8.0}
    uses = {"figs.py::one": ["figs.py::quick"], "figs.py::two": ["figs.py::quick"]}
    order = heaviest_files_first(ids, rec, uses, {"figs.py::quick": 100.0})
    assert order == ["figs.py::one", "figs.py::two", "a.py::t1", "a.py::t2", "b.py::t", "new.py::t"]
    assert heaviest_files_first(ids, rec) == [
        "a.py::t1",
        "a.py::t2",
        "b.py::t",
        "figs.py::one",
        "figs.py::two",
        "new.py::t",
    ]  # the fixture unpriced: figs.py costs 0.2 s
