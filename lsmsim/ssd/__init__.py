"""SSD model: timing, FTL with erase-unit GC, fio calibration, presets."""
