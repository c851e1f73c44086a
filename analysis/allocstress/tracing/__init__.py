"""Layer 3: allocation traces (the trace reader's arrays, block lifetimes, histograms), heap maps
and the replay records' allocstats series.  May import results, stats and _core."""
