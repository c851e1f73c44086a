// Plan files (see plan_file.hpp).
#include "plan/plan_file.hpp"

#include <fstream>
#include <stdexcept>

#include "plan/cell_check.hpp"
#include "plan/cell_encoding.hpp"
#include "platform/machine_context.hpp"

namespace allocstress {

nlohmann::json plan_file_json(const MatrixPlan& plan, const nlohmann::json& context, const std::string& executable,
                              const std::string& command_line) {
  nlohmann::json cells = nlohmann::json::array();
  const std::vector<MatrixCell> list = plan.cells();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const MatrixCell& c = list[i];
    nlohmann::json entry = cell_to_json(c.cell);
    entry.update({{"index", i}, {"key", c.key}, {"repetition", c.repetition}, {"command", cell_command(executable, c.cell)}});
    cells.push_back(std::move(entry));
  }
  return {{"format", kPlanFileFormat}, {"version", kPlanFileVersion}, {"created", iso_utc_now()}, {"command_line", command_line},
          {"executable", executable},  {"context", context},          {"plan", plan.to_json()},  {"cells", cells}};
}

namespace {

std::string shown_key(const nlohmann::json& key) { return key.is_string() ? key.get<std::string>() : key.dump(); }

}  // namespace

PlanFile read_plan_file(const std::filesystem::path& path, PlanCellChecks checks) {
  const std::string name = path.string();
  std::ifstream in(path);
  if (!in) throw std::runtime_error(name + ": cannot open the plan file");
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw std::runtime_error(name + ": not a plan file (not a JSON object)");
  if (j.value("format", "") != kPlanFileFormat)
    throw std::runtime_error(name + ": not a plan file (format is not \"" + kPlanFileFormat + "\"; write one with `allocstress matrix ... --plan-only -o FILE`)");
  if (j.value("version", 0) != kPlanFileVersion)
    throw std::runtime_error(name + ": plan file version " + j.value("version", nlohmann::json()).dump() + " (accepted: " +
                             std::to_string(kPlanFileVersion) + ")");
  PlanFile f;
  try {
    f.plan = MatrixPlan::from_json(j.at("plan"));
    f.context = j.at("context");
    f.executable = j.at("executable").get<std::string>();
    f.command_line = j.value("command_line", std::string());
    f.created = j.value("created", std::string());
  } catch (const std::exception& e) {
    throw std::runtime_error(name + ": " + e.what());
  }
  const nlohmann::json& listed = j.value("cells", nlohmann::json::array());
  // Every repetition plans the same cells, at least one: a plan of more repetitions than cells
  // listed cannot match, and expanding it first could take all memory ("repetitions": 4e9).
  const std::size_t listed_count = listed.is_array() ? listed.size() : 0;
  if (f.plan.repetitions > listed_count)
    throw std::runtime_error(name + ": its cell list does not match its plan (" + std::to_string(listed_count) + " cells listed, " +
                             std::to_string(f.plan.repetitions) + " repetitions planned): written by another version of allocstress?");
  f.cells = f.plan.cells();
  if (!listed.is_array() || listed.size() != f.cells.size())
    throw std::runtime_error(name + ": its cell list does not match its plan (" + std::to_string(listed.is_array() ? listed.size() : 0) +
                             " cells listed, " + std::to_string(f.cells.size()) + " planned): written by another version of allocstress?");
  // Every listed cell, before any runs: checked as `run --cell` checks a cell (cell_check.hpp), its
  // command included, then the same cell as the plan's (what runs is the plan's).
  CellChecker checker(checks == PlanCellChecks::as_run_here);
  for (std::size_t i = 0; i < f.cells.size(); ++i) {
    const std::string where = name + ": cell " + std::to_string(i) + " (" + cell_label(listed[i]) + ")";
    const CheckedCell c = checker.check(listed[i], where);
    const auto key = listed[i].find("key");
    if (key == listed[i].end() || *key != f.cells[i].key)
      throw std::runtime_error(name + ": cell " + std::to_string(i) + " is listed as " + (key == listed[i].end() ? "?" : shown_key(*key)) +
                               " but the plan makes it " + f.cells[i].key + ": written by another version of allocstress?");
    if (const std::string d = cell_difference(c.cell, f.cells[i].cell, "the plan"); !d.empty())
      throw std::runtime_error(where + ": " + d + " (a plan file runs its \"plan\": plan the matrix again to change a cell)");
  }
  return f;
}

}  // namespace allocstress
