// Writing a matrix's results (see results_output.hpp).
#include "results/results_output.hpp"

#include <iostream>

#include "platform/durable_files.hpp"
#include "platform/json_text.hpp"
#include "results/results_file.hpp"
#include "results/tables/results_table.hpp"

namespace allocstress {

namespace fs = std::filesystem;

fs::path journal_path_for(const fs::path& results_json) { return results_json.string() + ".journal.jsonl"; }

fs::path lock_path_for(const fs::path& results_json) { return results_json.string() + ".lock"; }

fs::path table_path_for(const fs::path& results_json) {
  fs::path p = results_json;
  return p.replace_extension(".md");
}

void write_results(const MatrixPlan& plan, nlohmann::json context, std::vector<nlohmann::json> records, const MatrixOutputs& outputs,
                   nlohmann::json safety) {
  const nlohmann::json results = assemble_results(std::move(context), plan, std::move(records), std::move(safety));
  const std::string table = markdown_table(results);
  write_file_atomically(outputs.results_json, json_text(results, 2) + "\n");
  write_file_atomically(outputs.table_md, table);
  std::cout << "\n" << table << "\nresults: " << outputs.results_json.string() << "\ntable:   " << outputs.table_md.string() << "\n";
}

}  // namespace allocstress
