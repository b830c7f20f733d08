"""Workloads: key distributions, write streams, db_bench presets."""
