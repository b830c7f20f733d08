import pytest

from lsmsim import units
from lsmsim.errors import ConfigError
from lsmsim.loading import load_config
from tests.conftest import small_config


@pytest.mark.parametrize(
    "text,expected", [("64MiB", 64 * 2**20), ("1.5GB", 1_500_000_000), ("4096", 4096), ("16B", 16), ("2KiB", 2048)]
)
def test_sizes(text, expected):
    assert units.parse_size(text) == expected


def test_rates_durations_counts():
    assert units.parse_bandwidth("100MB/s") == 100e6
    assert units.parse_duration("12us") == pytest.approx(12e-6)
    assert units.parse_duration("2min") == 120
    assert units.parse_count("2M") == 2_000_000
    assert units.parse_op_rate("50K/s") == 50_000
    with pytest.raises(units.UnitError, match="size unit"):
        units.parse_size("3 parsecs")
    with pytest.raises(units.UnitError, match="/s"):
        units.parse_bandwidth("100MB")


def test_config_units_and_defaults():
    cfg = load_config(small_config())
    assert cfg.lsm.write_buffer_size == 256 * 1024
    assert cfg.policy.name == "leveled" and cfg.policy.level0_file_num_compaction_trigger == 4
    assert cfg.device.read_bandwidth == 3e9


def test_override_sets_nested_field():
    cfg = load_config(
        small_config(),
        ["lsm.write_buffer_size=1MiB", "policy.max_bytes_for_level_multiplier=5", "workload.phases.0.operations=10"],
    )
    assert cfg.lsm.write_buffer_size == 2**20
    assert cfg.policy.max_bytes_for_level_multiplier == 5
    assert cfg.workload.phases[0].operations == 10


@pytest.mark.parametrize(
    "override,path,words",
    [
        ("lsm.write_buffer_size=lots", "lsm.write_buffer_size", "size"),
        ("policy.name=bogus", "policy", "leveled"),
        ("policy.size_ratio=5", "policy.size_ratio", "not an option of policy 'leveled' but of"),
        ("lsm.write_bufer_size=1MiB", "lsm.write_bufer_size", "did you mean write_buffer_size?"),
        ("workload.phases.0.mixx=1", "workload.phases[0].mixx", "did you mean mix?"),
        ("lsm.zzz=1", "lsm.zzz", "unknown field (check the spelling"),
        ("machine.cores=0", "machine.cores", "greater than or equal to 1"),
        ("workload.phases.0.mix.insert=0", "workload.phases[0]", "positive fraction"),
        ("lsm.level0_stop_writes_trigger=2", "lsm", "level0_stop_writes_trigger"),
    ],
)
def test_errors_name_the_yaml_path(override, path, words):
    with pytest.raises(ConfigError) as e:
        load_config(small_config(), [override])
    paths = [p for p, _ in e.value.errors]
    assert path in paths, paths
    assert any(words in m for _, m in e.value.errors), e.value.errors


def test_setting_another_policy_starts_its_section_afresh():
    """The issue-37 finding: `--set policy.name=tiering` on a leveled config failed on leveled's options."""
    cfg = load_config(small_config(), ["policy.max_bytes_for_level_multiplier=5", "policy.name=tiering"])
    assert cfg.policy.name == "tiering" and cfg.policy.size_ratio == 10  # tiering's defaults
    cfg = load_config(small_config(), ["policy.name=tiering", "policy.size_ratio=4"])  # options after the name stay
    assert cfg.policy.size_ratio == 4
    same = load_config(small_config(), ["policy.max_bytes_for_level_multiplier=5", "policy.name=leveled"])
    assert same.policy.max_bytes_for_level_multiplier == 5  # the same policy keeps its options


def test_missing_and_bad_files(tmp_path):
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "nope.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("lsm: [1, 2\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="expected PATH=VALUE"):
        load_config(small_config(), ["no_equals_sign"])


def test_cpu_defaults_are_the_calibrated_machine_preset():
    """machine.cpu's defaults say they are the epyc-2vcpu-24g preset (the EPYC host's calibration): keep it so."""
    from lsmsim.config import CpuCostConfig
    from lsmsim.preset_files import load_preset

    preset = CpuCostConfig.model_validate(load_preset("machines", "epyc-2vcpu-24g")["cpu"])
    assert preset == CpuCostConfig()


def test_presets_are_parsed_once_per_version_and_handed_out_as_copies(tmp_path, monkeypatch):
    """preset_files parses a preset file once per version (mtime, size) in a process: every caller gets its own
    copy, and an edited file (a refit preset, a new calibration) is read again."""
    import os

    from lsmsim import preset_files as pf

    (tmp_path / "machines").mkdir()
    f = tmp_path / "machines" / "m.yaml"
    f.write_text("host: {cpu: X, cores: 3}\ncpu: {merge_per_entry: 1us}\n")
    monkeypatch.setattr(pf, "PRESET_ROOT", tmp_path)
    a = pf.load_preset("machines", "m")
    a["cpu"]["merge_per_entry"] = "changed"
    assert pf.load_preset("machines", "m")["cpu"]["merge_per_entry"] == "1us"
    assert pf.host_preset({"cpu": "X", "cores": 3}) == "m"
    f.write_text("host: {cpu: Y, cores: 3}\ncpu: {merge_per_entry: 2us}\n")
    st = f.stat()
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # a later version even on a coarse clock
    assert pf.load_preset("machines", "m")["cpu"]["merge_per_entry"] == "2us"
    assert pf.host_preset({"cpu": "X", "cores": 3}) is None and pf.host_preset({"cpu": "Y", "cores": 3}) == "m"


def test_machine_preset_and_the_old_lsm_cpu_section():
    cfg = load_config({"machine": {"preset": "epyc-2vcpu-24g", "cores": 3}, "workload": {"preset": "fillrandom"}})
    assert cfg.machine.cores == 3 and cfg.machine.memory > 20 * 2**30  # the config's own fields win
    old = load_config({"lsm": {"cpu": {"memtable_insert": "9us"}}, "workload": {"preset": "fillrandom"}})
    assert old.machine.cpu.memtable_insert == pytest.approx(9e-6)  # lsm.cpu (before issue 13) moves to machine.cpu
    with pytest.raises(ConfigError, match="machine.preset.*available: .*epyc-2vcpu-24g"):
        load_config({"machine": {"preset": "nope"}, "workload": {"preset": "fillrandom"}})


def test_cpu_speed_divides_every_cpu_time_once():
    """machine.cpu_speed (a paper's machine from one measured ratio): the preset's and the config's own cpu
    times run that much faster, write_wait (a ratio, not a time) stays, and a dumped config reloads to the
    same costs rather than dividing again."""
    base = load_config(
        {"machine": {"preset": "default", "cpu": {"get_found": "4us"}}, "workload": {"preset": "fillrandom"}}
    )
    fast = load_config(
        {
            "machine": {"preset": "default", "cpu_speed": 2.5, "cpu": {"get_found": "4us"}},
            "workload": {"preset": "fillrandom"},
        }
    )
    b, f = base.machine.cpu.model_dump(), fast.machine.cpu.model_dump()
    assert fast.machine.cpu_speed == 1.0 and f["get_found"] == pytest.approx(1.6e-6)
    for k, v in b.items():
        if k == "write_wait" or v is None:
            assert f[k] == v, k
        else:
            assert f[k] == pytest.approx(v / 2.5), k
    again = load_config(fast.model_dump(mode="json"))
    assert again.machine.cpu == fast.machine.cpu
    quoted = load_config(  # a quoted number, which pydantic would take as the field's value, divides as well
        {
            "machine": {"preset": "default", "cpu_speed": "2.5", "cpu": {"get_found": "4us"}},
            "workload": {"preset": "fillrandom"},
        }
    )
    assert quoted.machine.cpu == fast.machine.cpu
    with pytest.raises(ConfigError) as e:
        load_config(small_config(), ["machine.cpu_speed=0"])
    assert "machine.cpu_speed" in [p for p, _ in e.value.errors]


def test_io_priority_tiers_share_a_rank():
    """machine.io_priority: a list in the list is one tier whose classes share the device max-min fairly
    (tests/test_sharing.py's same-rank flows); every class exactly once."""
    cfg = load_config(small_config(), ["machine.io_priority=[flush, compaction_l0, [compaction, foreground]]"])
    assert cfg.machine.io_rank() == {"flush": 0, "compaction_l0": 1, "compaction": 2, "foreground": 2}
    assert load_config(small_config()).machine.io_rank() == {
        "flush": 0,
        "compaction_l0": 1,
        "compaction": 2,
        "foreground": 3,
    }
    for bad in (
        "[flush, compaction_l0, [compaction]]",
        "[flush, [], compaction_l0, compaction, foreground]",
        "[[flush, flush], compaction_l0, compaction, foreground]",
    ):
        with pytest.raises(ConfigError) as e:
            load_config(small_config(), [f"machine.io_priority={bad}"])
        assert any("once" in m for _, m in e.value.errors), bad


def test_a_memtable_that_holds_no_entry_is_refused():
    """Issue 37, finding 2: a 16-byte memtable ran silently for more than 10 minutes."""
    with pytest.raises(ConfigError) as e:
        load_config(small_config(), ["lsm.write_buffer_size=16"])
    assert e.value.errors[0][0] == "lsm.write_buffer_size" and "cannot hold one entry" in e.value.errors[0][1]


def test_degenerate_runs_say_so_in_their_summary():
    """Issue 37, findings 2 and 4: a buffer below RocksDB's 64 KiB, a mix not summing to 1, a run whose data stayed
    in the memtable (write-amp 0.45, no compaction) each leave a warning; a sound run leaves none."""
    import lsmsim

    cfg = small_config()
    cfg["workload"]["phases"][0]["operations"] = 2000
    s = lsmsim.run(cfg, ["workload.num=2000", "lsm.write_buffer_size=1MiB"]).summary
    assert "never left the memtables" in s["warnings"]
    s = lsmsim.run(
        cfg, ["workload.num=2000", "lsm.write_buffer_size=32KiB", "workload.phases.0.mix.insert=1.3"]
    ).summary
    assert "below RocksDB's minimum of 64 KiB" in s["warnings"] and "sums to 1.3" in s["warnings"]
    assert lsmsim.run(small_config()).summary["warnings"] == ""
