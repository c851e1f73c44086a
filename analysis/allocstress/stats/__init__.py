"""Layer 1 of the analysis package: the statistics (medians and their intervals, ratios, tests,
geometric means).  Imports only the extension `_core`, whose C++ defines the rules this layer
wraps (platform/statistics.hpp); every other layer may import it."""
