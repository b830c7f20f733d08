"""The room ext4 leaves on Spooky's 960 GB drive, which experiments/spooky/fig14d.yaml and fig15.yaml take as the
device's capacity: mkfs.ext4's defaults on a sparse file of the drive's size, read back with dumpe2fs."""

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from lsmsim import units

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"
DRIVE = 960_197_124_096  # Samsung MZ1L2960HCJR: 1,875,385,008 sectors of 512 B


@pytest.mark.skipif(not (shutil.which("mkfs.ext4") and shutil.which("dumpe2fs")), reason="needs e2fsprogs")
def test_ext4_room_on_the_960gb_drive(tmp_path):
    img = tmp_path / "drive.img"
    with open(img, "wb") as f:
        f.truncate(DRIVE)  # sparse: only the metadata mkfs writes takes space
    # lazy init skips zeroing the inode tables and the journal; the layout is the default one
    subprocess.run(["mkfs.ext4", "-q", "-F", "-E", "lazy_itable_init=1,lazy_journal_init=1", str(img)], check=True)
    out = subprocess.run(["dumpe2fs", "-h", str(img)], capture_output=True, text=True, check=True).stdout
    field = {k: int(re.search(rf"^{k}:\s+(\d+)", out, re.M).group(1)) for k in ("Free blocks", "Reserved block count")}
    block = int(re.search(r"^Block size:\s+(\d+)", out, re.M).group(1))
    root = field["Free blocks"] * block
    user = (field["Free blocks"] - field["Reserved block count"]) * block
    assert 0.98 * DRIVE < root < DRIVE and user == pytest.approx(0.95 * root, rel=0.01)
    for name in ("fig14d.yaml", "fig15.yaml"):
        paper = yaml.safe_load((EXPERIMENTS / "spooky" / name).read_text())["sweep"]["scales"]["paper"]["set"]
        assert units.parse_size(paper["device.capacity"]) == pytest.approx(user, rel=0.001), name
