// The Markdown summary of a results document, one table per workload: allocator x threads with
// the allocator's own cost (alloc-test: net of the void baseline; structures: build and search
// cycles, raw), its spread, placement, memory overhead and speed relative to the system allocator;
// then the Gleipnir-style simulated-cache table when the run had --cache-sim; failed and skipped
// cells are listed at the end with their reasons.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace allocstress {

// pre: `results` was produced by assemble_results().
std::string markdown_table(const nlohmann::json& results);

// The verdict alone (results/verdict.cpp): the "### Verdict" section the table opens with (""
// when the results hold no ranking), and the reproduction section that follows it.  The HTML
// report shows it first.
std::string verdict_markdown(const nlohmann::json& results);

// The counts tier's tables alone (results/tables/mode_tables.cpp), as markdown_table() has them; "" when
// the results hold no counts cell.  The HTML report shows them after the workloads' tables.
std::string counts_markdown(const nlohmann::json& results);
// The memory tables alone (results/tables/memory_tables.cpp: the limited cells' outcomes, the ageing penalty,
// the THP modes, the soak cells), as markdown_table() has them; "" when the results hold none.
std::string memory_markdown(const nlohmann::json& results);
// The misuse battery alone (results/tables/safety_tables.cpp): a title, each allocator's score, the
// cases x allocators table with its legend, conformance and properties; "" without a `safety`
// section.  What `allocstress misuse` prints and writes beside its results file.
std::string safety_markdown(const nlohmann::json& results);

// The rows of the workloads' tables as data, one source for the Markdown above and Python
// (_core.summary_rows): per (workload, allocator, threads), in the order the cells first appear,
// the figures the table shows beside the headline metric (table_parts.hpp TableRow, table_row_json);
// a row of a workload net of void also has `columns`, the report's comparison-table row
// (summary_columns), read from entries chosen per cell: the recorded ones where their median
// entry summarised the cell's ok, undisturbed timing records, completed by entries recomputed
// from the records (aggregate_entries), which replace them elsewhere.
nlohmann::json summary_rows(const nlohmann::json& results);

}  // namespace allocstress
