// The two backends a planned matrix runs on (`matrix`, `replay`): locally, one cell after the
// other with a journal (matrix_runner.hpp), or as one Slurm array job (slurm_backend.hpp).  Both
// take a plan that `MatrixCommand::execute` made from options or read from a plan file.
#include <unistd.h>

#include <ctime>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/python_commands.hpp"
#include "platform/machine_context.hpp"
#include "run/local_backend.hpp"
#include "plan/plan_file.hpp"
#include "run/slurm_backend.hpp"
#include "platform/json_text.hpp"
#include "platform/durable_files.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

// out/<workloads>-<preset>-<time>.json: where a local run writes without --out.
fs::path default_output(const std::vector<std::string>& workloads, const std::string& preset) {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&t));
  std::string names;
  for (const auto& w : workloads) names += (names.empty() ? "" : "+") + w;
  return fs::path("out") / (names + "-" + preset + "-" + stamp + ".json");
}

}  // namespace

int MatrixCommand::run_locally(const MatrixPlan& plan, const nlohmann::json& context, const std::string& exe) const {
  const fs::path results = out.empty() ? default_output(plan.workloads, plan.preset) : fs::path(out);
  if (results.extension() != ".json")
    throw UsageError("--out " + results.string() + " must end in .json (the table is written beside it as .md)");
  if (fs::exists(results) && !force)
    throw UsageError("results file " + results.string() + " already exists (pass --force to overwrite, or choose another --out)");
  if (fs::exists(journal_path_for(results)))
    throw UsageError("an interrupted run left " + journal_path_for(results).string() +
                     " (continue it with --resume --out " + results.string() + ", or delete it)");
  std::error_code ec;
  if (results.has_parent_path()) fs::create_directories(results.parent_path(), ec);
  if (ec) throw UsageError("cannot create output folder " + results.parent_path().string() + ": " + ec.message());
  if (access(results.has_parent_path() ? results.parent_path().c_str() : ".", W_OK) != 0)
    throw UsageError("output folder of " + results.string() + " is not writable");

  // The environment check: everything that makes figures less trustworthy, before any cell runs.
  for (const auto& w : context.at("warnings")) std::cerr << "warning: " << w.get<std::string>() << "\n";
  ResultsJournal journal = ResultsJournal::create(journal_path_for(results), {{"plan", plan.to_json()}, {"context", context}});
  const std::size_t cells = plan.cells().size();
  std::cerr << "matrix: " << plan.workloads.size() << " workload(s) x " << plan.allocators.size() << " allocators x "
            << plan.thread_counts.size() << " thread counts x " << plan.repetitions << " repetitions"
            << (plan.skipped.empty() ? "" : " minus skipped pairs") << (plan.cache_sim ? " plus cache simulations" : "")
            << (plan.profile ? " plus profile cells" : "") << " = "
            << cells << " cells";
  for (const auto& e : plan.excluded) std::cerr << "\n  " << e.status << ": " << e.spec.name << " (" << e.reason << ")";
  for (const auto& sk : plan.skipped) std::cerr << "\n  skipped: " << sk.allocator << " x " << sk.workload << " (" << sk.reason << ")";
  std::cerr << "\n";
  return report_after_matrix(results, run_matrix(plan, journal, {results, table_path_for(results)}, exe));
}

int MatrixCommand::submit_to_slurm(MatrixPlan plan, const nlohmann::json& context, const std::string& exe, const std::string& command_line) const {
  const SlurmOptions options{partition, time_limit, results_dir, allow_local_results_dir};
  check_slurm_submission(options);  // before anything is written or submitted
  const SlurmResultsDir dir{results_dir};
  std::size_t cells = 0;
  if (fs::exists(dir.plan())) {
    if (!resume)
      throw UsageError("results directory " + results_dir + " already holds a plan: pass --resume to submit its cells without a record, or choose another --results-dir");
    try {
      cells = read_plan_file(dir.plan()).cells.size();
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  } else {
    if (resume) throw UsageError("nothing to resume: " + dir.plan().string() + " does not exist");
    if (plan.workloads.front() == kReplayWorkload && fs::exists(plan.replay.program)) {  // every node reads the program from here
      const fs::path program = dir.root / "replay-program.bin";
      fs::copy_file(plan.replay.program, program, fs::copy_options::overwrite_existing);
      plan.replay.program = fs::absolute(program).string();
    }
    write_file_atomically(dir.plan(), json_text(plan_file_json(plan, context, exe, command_line), 2) + "\n");
    cells = plan.cells().size();
  }
  const std::vector<std::size_t> todo = cells_to_submit(dir, cells, slurm_task_states(dir));
  if (todo.empty()) {
    std::cout << "nothing to submit: every cell of " << results_dir << " has a record or a pending/running task (allocstress status " << results_dir << ")\n";
    return 0;
  }
  std::string job;
  try {
    job = submit_cells(dir, options, todo, exe);
  } catch (const std::runtime_error& e) {
    std::cerr << "allocstress: error: " << e.what() << " (the plan is kept in " << dir.plan().string()
              << ": fix the cause and re-submit with --resume)\n";
    return 1;
  }
  std::cout << "submitted job " << job << ": " << todo.size() << " of " << cells << " cells, one array task each (--exclusive)\n"
            << "follow:  allocstress status " << results_dir << "\n"
            << "then:    allocstress merge " << results_dir << " -o results.json\n";
  return 0;
}

}  // namespace allocstress
