// The generators of program_inputs.hpp by name, as programs files name them.
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

const std::vector<InputGenerator>& input_generators() {
  static const std::vector<InputGenerator> table = {
      {"python-churn", "churn.py", python_churn_script, "a Python object-churn script (60000 steps at 100%)"},
      {"c-source", "big.c", generated_c_source, "a C translation unit of many functions (40 at 100%)"},
      {"sql-script", "script.sql", generated_sql_script, "an SQL script: inserts, an index, grouped and joined queries (60000 rows at 100%)"},
      {"lua-churn", "churn.lua", lua_churn_script, "a Lua table-churn script (80000 steps at 100%)"},
      {"postscript", "document.ps", generated_postscript, "a PostScript document of paths, clipping and text (12 pages at 100%)"},
      {"compressible-data", "data.txt", compressible_data, "text-like bytes with incompressible spans (4 MiB at 100%)"},
  };
  return table;
}

const InputGenerator* find_input_generator(std::string_view name) {
  for (const InputGenerator& g : input_generators())
    if (g.name == name) return &g;
  return nullptr;
}

std::string input_generator_names() {
  std::string out;
  for (const InputGenerator& g : input_generators()) out += (out.empty() ? "" : ", ") + std::string(g.name);
  return out;
}

}  // namespace allocstress
