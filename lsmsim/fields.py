"""The building blocks of every config model: the `Section` base and the unit-typed fields.

A leaf module (it imports only `units`), so that the models of policies can sit beside the policies
and `config.py` can build its policy union from the registry without an import cycle.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from . import units


def _unit(parser):
    def convert(v):
        if isinstance(v, str):
            try:
                return parser(v)
            except units.UnitError as e:
                raise ValueError(str(e)) from None
        return v

    return BeforeValidator(convert)


Bytes = Annotated[int, _unit(units.parse_size), Field(ge=0)]
Bandwidth = Annotated[float, _unit(units.parse_bandwidth), Field(gt=0)]
Duration = Annotated[float, _unit(units.parse_duration), Field(ge=0)]
Count = Annotated[int, _unit(units.parse_count), Field(ge=0)]
OpRate = Annotated[float, _unit(units.parse_op_rate), Field(ge=0)]


class Section(BaseModel):
    """A YAML section: unknown keys are errors, assignments are validated."""

    # allow_inf_nan=False: inf and NaN pass no float field (the simulator cannot run them)
    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)


__all__ = ["Bandwidth", "Bytes", "Count", "Duration", "OpRate", "Section"]
