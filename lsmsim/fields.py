"""The building blocks of every config model: the `Section` base and the unit-typed fields.

A leaf module (it imports only `units`), so that the models of policies can sit beside the policies
and `config.py` can build its policy union from the registry without an import cycle.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from . import units


def _unit(parser, what: str):
    def convert(v):
        try:
            if isinstance(v, str):
                return parser(v)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                units.check_range(v, v, what)  # a plain number: its type is pydantic's to check
        except units.UnitError as e:
            raise ValueError(str(e)) from None
        return v

    return BeforeValidator(convert)


Bytes = Annotated[int, _unit(units.parse_size, "size"), Field(ge=0)]
Bandwidth = Annotated[float, _unit(units.parse_bandwidth, "bandwidth"), Field(gt=0)]
Duration = Annotated[float, _unit(units.parse_duration, "duration"), Field(ge=0)]
Count = Annotated[int, _unit(units.parse_count, "count"), Field(ge=0)]
OpRate = Annotated[float, _unit(units.parse_op_rate, "rate"), Field(ge=0)]


class Section(BaseModel):
    """A YAML section: unknown keys are errors, assignments are validated."""

    # allow_inf_nan=False: inf and NaN pass no float field (the simulator cannot run them)
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    @field_validator("*", mode="after")
    @classmethod
    def _in_range(cls, v):
        """No integer beyond +-2^62 (units.LIMIT): numpy's int64 and ctypes' 64-bit fields would wrap it."""
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > units.LIMIT:
            raise ValueError(f"{v} is out of range: at most {units.LIMIT:.3g}")
        return v


__all__ = ["Bandwidth", "Bytes", "Count", "Duration", "OpRate", "Section"]
