"""Named numerical tolerances: what counts as equal, whole, done or zero in floating point.

The simulator integrates rates over time in closed form, so clocks, progress and operation counts carry
rounding error; these names say which slack each comparison allows, instead of bare literals. Changing one
changes results: each value is the one the code used when it was introduced.
"""

#: seconds: instants closer than this are the same (phase ends, max_time, sample times, open-loop gaps)
TIME_EPS = 1e-12
#: relative: a value within this fraction of a bound is at the bound (rate caps, held flows, ties)
REL_EPS = 1e-9
#: absolute slack against accumulated rounding before a ceil/floor or a >= on a sum (memtable fill
#: counts, sample times accumulated by += interval, ratios rounded to whole levels or blocks)
ROUND_EPS = 1e-9
#: operations: fluid operation counts within this of a whole number are whole (writes, phase ends, backlog)
COUNT_EPS = 1e-6
#: job progress within this of 1 is done
PROGRESS_EPS = 1e-12
#: a probability (the fractional part of a mean read count) below this is zero
PROB_EPS = 1e-12
#: seconds per operation below which a closed-loop thread's extra wait is no wait (float noise of 1/rate)
WAIT_EPS = 1e-15
#: cores: CPU demands that moved less than this between two rounds of the sharing solver are its fixed point
SHARE_EPS = 1e-12
