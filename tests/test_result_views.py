"""Result's exploration views: plot kinds, HTML and text representations."""

import json

import matplotlib

matplotlib.use("Agg")

import pytest  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

import lsmsim  # noqa: E402
from lsmsim.result import Result  # noqa: E402
from tests.conftest import small_config  # noqa: E402

PHASES = [
    {"name": "load", "operations": 30_000, "mix": {"insert": 1.0}},
    {"name": "mixed", "operations": 20_000, "mix": {"update": 0.5, "get": 0.3, "long_scan": 0.2}},
]


@pytest.fixture(scope="module")
def result():
    return lsmsim.run(small_config(phases=PHASES, sim={"sample_interval": 0.25}))


def _has_data(fig: Figure) -> bool:
    return any(ax.lines or ax.patches for ax in fig.axes)


@pytest.mark.parametrize("kind", ["tree", "throughput", "write_amp"])
def test_plot_kinds_return_figures_and_write_png(result, kind, tmp_path):
    fig = result.plot(kind)
    assert isinstance(fig, Figure) and fig.axes and _has_data(fig)
    out = tmp_path / "sub" / f"{kind}.png"
    assert isinstance(result.plot(kind, path=out), Figure)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 1000
    assert not list(out.parent.glob(".*.tmp"))  # atomic_write left no temporary file


def test_plot_throughput_shows_each_operation_type_that_ran(result):
    labels = {l.get_label() for l in result.plot("throughput").axes[0].lines}
    assert {"write", "get", "long_scan"} <= labels and "short_scan" not in labels


def test_plot_write_amp_bars_match_the_summary(result):
    s = result.summary
    heights = [p.get_height() for p in result.plot("write_amp").axes[0].patches]
    assert heights[:3] == pytest.approx([s["write_amp_flush"], s["write_amp_compaction"], s["write_amp"]])
    with_gc = {**s, "gc_write_amp": 1.5, "total_write_amp": 1.5 * s["write_amp"]}
    res = Result(with_gc, result.timeseries, result.compactions, result.latency)
    assert len(res.plot("write_amp").axes[0].patches) == 5


def test_plot_into_given_axes(result):
    fig = Figure()
    ax = fig.subplots()
    assert result.plot("throughput", ax=ax) is fig and ax.lines


def test_unknown_kind_names_the_allowed_ones(result):
    with pytest.raises(ValueError, match="tree.*throughput.*write_amp"):
        result.plot("pie")


def test_plot_tree_still_works(result, tmp_path):
    assert _has_data(result.plot_tree(tmp_path / "tree.png")) and (tmp_path / "tree.png").exists()


def test_html_and_repr_are_compact(result):
    html = result._repr_html_()
    assert "test" in html  # the config's name
    assert f"{result.summary['throughput_ops_per_s']:,.0f} ops/s" in html
    for group in ("throughput", "latency", "amplification", "utilisation"):
        assert group in html
    assert "bytes_L1" not in html  # not a dump of every key; table() has them all
    assert set(result.table()["metric"]) == set(result.summary)
    text = repr(result)
    assert "'test'" in text and "write-amp" in text and text.count("\n") <= 1


def test_atomic_write_gives_an_ordinary_file(tmp_path):
    """The temporary file's private mode (mkstemp's 0600) does not leak into what the user gets."""
    import os

    from lsmsim.atomic import atomic_write

    target = tmp_path / "profile.yaml"
    atomic_write(target, lambda p: open(p, "w").write("x: 1\n"))
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask


def test_tables_built_on_first_read_match_the_summary(result):
    """A run's tables are built from its rows when first read: compactions are numbered 1..n in order of
    completion, their kinds add up to the summary's job counts, and the latency table holds the summary's p99s."""
    c = result.compactions
    assert c["id"].tolist() == list(range(1, len(c) + 1))
    kinds = c["kind"].value_counts()
    assert kinds.get("flush", 0) == result.summary["flushes"] > 0
    assert kinds.get("compaction", 0) == result.summary["compactions"]
    for _, row in result.latency.iterrows():
        assert row["p99_s"] == result.summary[f"latency_{row['op']}_p99_s"]
    assert result.timeseries is result.timeseries  # built once


def test_provenance_names_the_code_the_run_started_with(monkeypatch, tmp_path):
    """The commit is read when the simulation starts (once per process), not when the result is saved: a long
    run saved after a later commit still names the code it ran, also when another process saves it (a sweep's
    parent saves what its workers ran)."""
    from types import SimpleNamespace

    from lsmsim import result as R

    head = {"commit": "aaaa"}
    monkeypatch.setattr(
        R.subprocess,
        "run",
        lambda args, **kw: SimpleNamespace(stdout=head["commit"] if "rev-parse" in args else ""),
    )
    R.code_state.cache_clear()
    try:
        r = lsmsim.run(small_config())
        head["commit"] = "bbbb"  # a commit lands while the run is being saved
        assert R.provenance(r.config)["git_commit"] == "aaaa"
        R.code_state.cache_clear()  # the saving process never ran a simulation: its own state is bbbb
        r.save(tmp_path)
        assert json.loads((tmp_path / "provenance.json").read_text())["git_commit"] == "aaaa"
    finally:
        R.code_state.cache_clear()
