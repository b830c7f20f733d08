"""Tree state on key samples: memtable, files, runs, levels, merge kernels, filters, cache, costs."""
