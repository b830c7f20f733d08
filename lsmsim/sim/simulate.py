"""`simulate(cfg)`: one validated config in, its `Result` out. What `lsmsim.run` and the sweep
workers call, so that sweeps run configs without importing the API above them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import Config
    from ..result import Result


def simulate(cfg: Config, progress=None) -> Result:
    """Run the simulation of `cfg`. `progress`, if given, is told the phase names
    (`set_description(text)`) and sees the simulation after every step (`update_to(sim)`)."""
    from ..result import code_state
    from .kernel import Simulation  # on call: importing lsmsim.sim (e.g. sim.sharing) stays light

    code_state()  # the commit this process runs, before a long run outlives it
    return Simulation(cfg, progress=progress).run()
