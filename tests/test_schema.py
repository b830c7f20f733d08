"""The JSON Schema and the generated Markdown reference of the config."""

import json
from pathlib import Path

from lsmsim.schema import json_schema, reference_markdown

POLICIES = ["leveled", "full_leveling", "tiering", "lazy_leveling", "universal", "moose", "ecotune"]
SECTIONS = ["machine", "device", "lsm", "policy", "workload", "sim"]
DOC = Path(__file__).resolve().parents[1] / "docs" / "config-reference.md"


def test_json_schema_serialises_and_covers_every_section():
    schema = json.loads(json.dumps(json_schema()))
    assert set(SECTIONS) <= set(schema["properties"])
    assert "workload" in schema["required"]
    text = json.dumps(schema)
    assert all(f'"{p}"' in text for p in POLICIES)


def test_reference_has_a_section_per_model_and_variant():
    md = reference_markdown()
    for p in POLICIES:
        assert f"## policy (name: {p})" in md
    assert "## device (model: simple)" in md and "## device (model: ssd)" in md
    for s in SECTIONS:
        assert f"\n## {s}" in md
    assert "| `write_buffer_size` | Bytes (e.g. 64MiB), > 0 | `67108864` (64MiB) |" in md
    assert "| `read_latency` | Duration (e.g. 12us) | `8e-05` (80us) |" in md
    assert "one of: `uniform`, `sequential`" in md  # Literal choices
    assert "[ssd](#device-model-ssd)" in md  # union members link to their sections


def test_reference_is_deterministic():
    assert reference_markdown() == reference_markdown()


def test_docs_file_is_up_to_date():
    assert DOC.read_text() == reference_markdown(), (
        "docs/config-reference.md is stale: regenerate it with "
        "`lsmsim config --reference > docs/config-reference.md` (or `python -m lsmsim.schema > ...`)"
    )
