// libFuzzer target for the plan file (plan/plan_file.hpp: `matrix --plan-only -o FILE` writes it,
// `matrix --plan FILE` and the Slurm backend read it).
//
// Contract: read_plan_file(path) on any bytes either returns a plan, or throws std::runtime_error
// (the project's UsageError is one too).  What it returns holds what the backends rely on: the
// cell list is the plan's own expansion (MatrixPlan::cells(), in order), and every cell encodes
// (cell_to_json, the JSON a backend hands to `run --cell`).  Any other exception, a crash, a
// sanitizer report, a leak, a timeout or an allocation beyond libFuzzer's limit is a finding.
#include "plan/cell_encoding.hpp"
#include "plan/plan_file.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace allocstress;
  fuzz::fresh_process_state();
  const std::filesystem::path path = fuzz::input_file(data, size, "plan.json");
  PlanFile file;
  if (!fuzz::within_contract<std::runtime_error>("read_plan_file", [&] { file = read_plan_file(path); })) return 0;
  const std::vector<MatrixCell> expanded = file.plan.cells();
  fuzz::require(expanded.size() == file.cells.size(), "the plan file's cells are not its plan's expansion");
  for (std::size_t i = 0; i < expanded.size(); ++i) {
    fuzz::require(expanded[i].key == file.cells[i].key, "cell " + std::to_string(i) + " is not the plan's cell " + std::to_string(i));
    cell_to_json(file.cells[i].cell);
  }
  return 0;
}
