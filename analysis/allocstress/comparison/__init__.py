"""Layer 6: comparing two runs (`allocstress compare`): per-cell decisions, the counts tier, void's
shift, the context differences, the misuse battery's detections, the console text and the Google
Benchmark view.  May import tabulation and the layers below it; not figures, fidelity_study or
reporting."""
