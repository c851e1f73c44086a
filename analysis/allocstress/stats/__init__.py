"""Layer 1 of the analysis package: the statistics (medians and their intervals, ratios, tests,
geometric means).  Imports nothing of the package; every other layer may import it."""
