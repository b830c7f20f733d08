"""Reading a config: YAML files, `--set` overrides, device presets, and validation errors that name the
YAML path (`ConfigError`). The models themselves are `config.py`'s."""

from __future__ import annotations

import copy
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from .config import Config
from .devices.registry import names as device_names
from .errors import ConfigError
from .policies.registry import policies

# ---------------------------------------------------------------- reading and overriding
MAX_CONFIG_BYTES = 16 * 2**20  # a config is a page of YAML; beyond this it is a wrong file, not a config


def read_config_text(path: str | Path, kind: str = "YAML") -> str:
    """The text of a small config file (a YAML config, a RocksDB OPTIONS file), or a ConfigError naming it."""
    p = Path(path)
    if "\0" in str(p):  # the OS would cut the path there
        raise ConfigError(repr(str(p)), [("(file)", "a path cannot hold a NUL byte")])
    try:
        if not p.is_file():  # a FIFO or a device would block the read or never end it
            what = "cannot read: No such file or directory" if not p.exists() else "is not a regular file"
            raise ConfigError(str(p), [("(file)", what)])
        if p.stat().st_size > MAX_CONFIG_BYTES:
            raise ConfigError(str(p), [("(file)", f"is larger than {MAX_CONFIG_BYTES >> 20} MiB: not a config")])
        return p.read_text()
    except OSError as e:
        raise ConfigError(str(p), [("(file)", f"cannot read: {e.strerror}")]) from None
    except UnicodeDecodeError:
        raise ConfigError(str(p), [("(file)", f"is not a text (UTF-8) {kind} file")]) from None


def read_yaml(path: str | Path) -> dict:
    p = Path(path)
    text = read_config_text(p)
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "(file)"
        raise ConfigError(str(p), [(where, f"not valid YAML: {getattr(e, 'problem', e)}")]) from None
    except RecursionError:
        raise ConfigError(str(p), [("(file)", "nested too deeply to be a config")]) from None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ConfigError(
            str(p), [("(top level)", "must be a mapping of sections (machine, device, lsm, policy, workload, sim)")]
        )
    return data


def _parse_scalar(text: str, path: str) -> Any:
    """The value of `--set path=text`, parsed as YAML."""
    try:
        return yaml.safe_load(text) if text != "" else ""
    except yaml.YAMLError as e:
        raise ConfigError("--set", [(path, f"not valid YAML: {getattr(e, 'problem', None) or e}")]) from None
    except RecursionError:
        raise ConfigError("--set", [(path, "nested too deeply")]) from None


def apply_override(data: dict, assignment: str) -> None:
    """Apply `a.b.c=value` (value parsed as YAML) to a nested dict in place."""
    if "=" not in assignment:
        raise ConfigError("--set", [(assignment, "expected PATH=VALUE, e.g. lsm.write_buffer_size=64MiB")])
    path, value = assignment.split("=", 1)
    keys = path.strip().split(".")
    node = data
    for i, k in enumerate(keys[:-1]):
        if isinstance(node, list):
            try:
                node = node[int(k)]
                continue
            except (ValueError, IndexError):
                raise ConfigError("--set", [(".".join(keys[: i + 1]), "is not a list index here")]) from None
        node = node.setdefault(k, {})
        if not isinstance(node, (dict, list)):
            raise ConfigError("--set", [(".".join(keys[: i + 1]), "is a value, not a section")])
    last = keys[-1]
    if isinstance(node, list):
        try:
            node[int(last)] = _parse_scalar(value, path)
        except (ValueError, IndexError):
            raise ConfigError("--set", [(path, "is not a list index here")]) from None
    else:
        v = _parse_scalar(value, path)
        if keys == ["policy", "name"] and isinstance(node, dict) and node.get("name") not in (None, v):
            node.clear()  # another policy: the old one's options are not this one's (give them after this --set)
        node[last] = v


# ---------------------------------------------------------------- presets
def _deep_merge(base: dict, over: dict) -> dict:
    out = dict(base)
    for k, v in over.items():
        out[k] = _deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


HOST = "host"  # machine.preset: the preset calibrated on this host
DEFAULT = "default"  # machine.preset: the built-in costs (config.py's defaults), whatever the host
_told: set[str] = set()  # notices already printed by this process


def _notice(text: str) -> None:
    """Print a notice once per process (a sweep's points, a figure's runs: one line, not one per config)."""
    if text not in _told:
        _told.add(text)
        print(f"lsmsim: {text}", file=sys.stderr)


def machine_preset(asked: str | None, source: str) -> str | None:
    """The machine preset a config runs on: the one it names; else (`host`, or none named) the preset
    calibrated on this host (`preset_files.host_preset`, a CPU model and core count); else none (the built-in
    costs). $LSMSIM_MACHINE_PRESET stands for a config that names none (`default`: the built-in costs; the
    test suite sets it so that its figures do not depend on the host it runs on)."""
    from .preset_files import host_facts, host_preset, host_preset_name

    if asked is None:
        asked = os.environ.get("LSMSIM_MACHINE_PRESET") or HOST
    if asked == DEFAULT:
        return None
    if asked != HOST:
        return asked
    facts = host_facts()
    name = host_preset(facts)
    host = f"{facts['cpu']} x {facts['cores']}"
    if name is None:
        _notice(
            f"no machine preset for this host ({host}): the CPU costs are the built-in ones, measured on another "
            f"host; `lsmsim calibrate` measures this one in about 4 minutes (writes {host_preset_name(facts)})"
        )
        return None
    from .preset_files import load_preset

    date = (load_preset("machines", name).get("host") or {}).get("date")
    when = f" on {date}" if date else ""  # a VM's speed moves from day to day: `calibrate --check` says if it holds
    _notice(f"machine preset {name} (calibrated on this host{when}, {host}; holds today? `lsmsim calibrate --check`)")
    return name


def expand_presets(data: dict, source: str) -> dict:
    """Fill `device` from `device.preset` and `machine` from `machine.preset` (lsmsim/presets/): the
    preset's fields, then the config's own on top. A config without `machine.preset` runs on this host's
    calibrated preset when there is one (`machine_preset`); the resolved config names it."""
    from .preset_files import load_preset, preset_names

    machine = data.get("machine")
    if machine is None or isinstance(machine, dict):
        machine = dict(machine or {})
        chosen = machine_preset(None if machine.get("preset") is None else str(machine["preset"]), source)
        machine["preset"] = DEFAULT if chosen is None else chosen  # the resolved config names what it ran on
        data = {**data, "machine": machine}
    for section, kind in (("device", "devices"), ("machine", "machines")):
        sec = data.get(section)
        if not (isinstance(sec, dict) and sec.get("preset") is not None) or (section, sec["preset"]) == (
            "machine",
            DEFAULT,
        ):
            continue
        try:
            base = load_preset(kind, str(sec["preset"]))
        except KeyError:
            more = f", {HOST} (this host's), {DEFAULT} (the built-in costs)" if section == "machine" else ""
            raise ConfigError(
                source,
                [
                    (
                        f"{section}.preset",
                        f"unknown preset {sec['preset']!r}; available: {', '.join(preset_names(kind))}{more}",
                    )
                ],
            ) from None
        data = {**data, section: _deep_merge(base, sec)}
    return data


# ---------------------------------------------------------------- errors naming YAML paths
def _loc(loc: tuple) -> str:
    parts = []
    for p in loc:
        if isinstance(p, int):
            parts.append(f"[{p}]")
        else:
            parts.append(("." if parts else "") + str(p))
    return "".join(parts) or "(top level)"


def _fields_of(loc: list, data: Any) -> list[str] | None:
    """The field names a section at `loc` (a path of names) allows, where lsmsim's models tell: a top-level section,
    one of its sub-sections, or the policy and device chosen (their options)."""
    from pydantic import BaseModel

    if loc[:1] == ["policy"] and len(loc) == 1:
        cls = policies().get(str((data.get("policy") or {}).get("name")))
        return list(cls.Options.model_fields) if cls else None
    import typing

    model: Any = Config
    for k in loc:
        f = getattr(model, "model_fields", {}).get(k)
        ann = getattr(f, "annotation", None)
        if typing.get_origin(ann) is list:  # workload.phases[i]: the list's element
            ann = typing.get_args(ann)[0]
        if not (isinstance(ann, type) and issubclass(ann, BaseModel)):
            return None
        model = ann
    return list(model.model_fields)


def _unknown(loc: list, data: Any) -> str:
    """An unknown field's message: the policies that have it, or the closest names of its section."""
    import difflib

    name, section = str(loc[-1]), [str(x) for x in loc[:-1]]
    if section == ["policy"]:
        chosen = str((data.get("policy") or {}).get("name"))
        owners = [n for n, cls in policies().items() if name in cls.Options.model_fields]
        cls = policies().get(chosen)
        if owners and cls:
            opts = ", ".join(f for f in cls.Options.model_fields if f != "name")
            return (
                f"not an option of policy {chosen!r} but of {', '.join(owners)}; {chosen}'s options: {opts} "
                f'(`--set "policy={{name: {chosen}}}"` starts the section afresh)'
            )
    allowed = _fields_of(section, data) if isinstance(data, dict) else None
    close = difflib.get_close_matches(name, allowed or [], n=3, cutoff=0.75)
    hint = f"did you mean {' or '.join(close)}? " if close else ""
    return f"unknown field ({hint}check the spelling; `lsmsim config` prints the reference)"


def _message(err: Mapping[str, Any], data: Any = None) -> str:
    msg = err["msg"].removeprefix("Value error, ")
    if err["type"] == "extra_forbidden":
        loc = [x for x in err["loc"] if isinstance(x, str)]
        if loc and loc[0] == "policy" and len(loc) >= 2 and loc[1] in policies():
            del loc[1]
        if loc and loc[0] == "device" and len(loc) >= 2 and loc[1] in device_names():
            del loc[1]
        return _unknown(loc, data or {})
    if err["type"] == "literal_error":
        return msg.replace("Input should be", "must be")
    if err["type"] == "union_tag_invalid":
        return msg.replace("Input tag", "name").replace(
            "does not match any of the expected tags", "is unknown; allowed"
        )
    if err["type"] == "union_tag_not_found":
        return f"needs 'name' (policy: {', '.join(policies())}) or 'model' (device: {', '.join(device_names())})"
    return msg


def _validation_errors(e: ValidationError, data: Any = None) -> list[tuple[str, str]]:
    out = []
    for err in e.errors():
        loc = list(err["loc"])
        # a discriminated union puts the tag into the path: policy.leveled.x -> policy.x
        if len(loc) >= 2 and loc[0] == "policy" and isinstance(loc[1], str) and loc[1] in policies():
            del loc[1]
        if len(loc) >= 2 and loc[0] == "device" and loc[1] in device_names():
            del loc[1]
        msg = _message(err, data)
        if msg.startswith("@"):  # a model validator naming its sub-field: "@movement: ..."
            sub, _, msg = msg[1:].partition(": ")
            loc += [int(p) if p.isdigit() else p for p in sub.split(".")]
        out.append((_loc(tuple(loc)), msg))
    return out


# ---------------------------------------------------------------- validating
def validate(data: dict, source: str = "<config>") -> Config:
    data = expand_presets(data, source)
    try:
        return Config.model_validate(data)
    except ValidationError as e:
        raise ConfigError(source, _validation_errors(e, data)) from None
    except RecursionError:
        raise ConfigError(source, [("(top level)", "nested too deeply to be a config")]) from None


def load_config(path_or_data: str | Path | dict | Config, overrides: Sequence[str] = ()) -> Config:
    """Read, override and validate a config. Errors are `ConfigError` naming the YAML path."""
    if isinstance(path_or_data, Config):
        if not overrides:
            return path_or_data
        data, source = path_or_data.model_dump(mode="json"), "<config>"
    elif isinstance(path_or_data, dict):
        data, source = copy.deepcopy(path_or_data), "<config>"  # overrides must not leak into the caller's dict
    else:
        data, source = read_yaml(path_or_data), str(path_or_data)
    for o in overrides:
        apply_override(data, o)
    return validate(data, source)
