"""Layer 7: the HTML report (`allocstress report`): its sections, HTML parts and output folder.
May import every layer below it (figures, comparison, fidelity_study, tabulation, ...), never the
package root's api or CLI."""
