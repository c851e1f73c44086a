// The backends a planned matrix runs on (`matrix`, `replay`, `slurm submit`, `fit --evaluate`):
// locally, one cell after the other with a journal (run/local_backend.hpp), or as one Slurm array
// job (run/slurm_backend.hpp).  Both take a plan that the planner made or a plan file holds.
#include <unistd.h>

#include <ctime>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/commands/python_commands.hpp"
#include "plan/plan_file.hpp"
#include "plan/planner.hpp"
#include "platform/process/child_process.hpp"
#include "platform/durable_files.hpp"
#include "platform/json_text.hpp"
#include "platform/machine_context.hpp"
#include "platform/process/process_lock.hpp"
#include "run/local_backend.hpp"
#include "run/slurm_backend.hpp"

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

// The newest journal under out/, for `--resume` without `--out`.
fs::path newest_journal() {
  fs::path best;
  fs::file_time_type best_time{};
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("out", ec)) {
    const std::string n = e.path().filename().string();
    if (n.size() > 14 && n.ends_with(".journal.jsonl") && (best.empty() || e.last_write_time() > best_time)) {
      best = e.path();
      best_time = e.last_write_time();
    }
  }
  if (best.empty()) throw UsageError("nothing to resume: no *.journal.jsonl under out/ (pass --out FILE of the interrupted run)");
  const std::string s = best.string();
  return s.substr(0, s.size() - std::string(".journal.jsonl").size());
}

bool has_inputs(const MatrixPlan& plan) {
  for (const auto& w : plan.workloads)
    if (workload_entry(w).prepare != nullptr) return true;
  return false;
}

// The lock of a run on `results`, held for the run's life, the report included: a second run on
// the same results file (a new one, or --resume) is refused while the first goes on.  nullopt
// when the folder does not exist or is not writable yet (the checks after this one say so).
std::optional<ProcessLock> lock_results(const fs::path& results) {
  const fs::path folder = results.has_parent_path() ? results.parent_path() : ".";
  if (!fs::is_directory(folder) || access(folder.c_str(), W_OK) != 0) return std::nullopt;
  pid_t holder = 0;
  std::optional<ProcessLock> lock;
  try {
    lock = ProcessLock::try_acquire(lock_path_for(results), holder);
  } catch (const std::runtime_error& e) {
    throw UsageError(e.what());
  }
  if (!lock)
    throw UsageError("another allocstress (pid " + (holder > 0 ? std::to_string(holder) : std::string("unknown")) + ") is running on " +
                     results.string() + ": wait for it to end, or choose another --out");
  return lock;
}

}  // namespace

int run_matrix_locally(const MatrixPlan& plan, const nlohmann::json& context, const std::string& exe, const fs::path& results, bool force,
                       bool report) {
  if (results.extension() != ".json")
    throw UsageError("--out " + results.string() + " must end in .json (the table is written beside it as .md)");
  std::optional<ProcessLock> lock = lock_results(results);  // before the journal: a running matrix has one too
  if (fs::exists(results) && !force)
    throw UsageError("results file " + results.string() + " already exists (pass --force to overwrite, or choose another --out)");
  if (fs::exists(journal_path_for(results)))
    throw UsageError("an interrupted run left " + journal_path_for(results).string() + " (continue it with --resume --out " +
                     results.string() + ", or delete it)");
  std::error_code ec;
  if (results.has_parent_path()) fs::create_directories(results.parent_path(), ec);
  if (ec) throw UsageError("cannot create output folder " + results.parent_path().string() + ": " + ec.message());
  if (access(results.has_parent_path() ? results.parent_path().c_str() : ".", W_OK) != 0)
    throw UsageError("output folder of " + results.string() + " is not writable");
  if (!lock) lock = lock_results(results);  // the folder is new

  // The environment check: everything that makes figures less trustworthy, before any cell runs.
  for (const auto& w : context.at("warnings")) std::cerr << "warning: " << w.get<std::string>() << "\n";
  ResultsJournal journal = ResultsJournal::create(journal_path_for(results), {{"plan", plan.to_json()}, {"context", context}});
  std::cerr << "matrix: " << plan.workloads.size() << " workload(s) x " << plan.allocators.size() << " allocators x "
            << plan.thread_counts.size() << " thread counts x " << plan.repetitions << " repetitions"
            << (plan.skipped.empty() ? "" : " minus skipped pairs") << (plan.cache_sim ? " plus cache simulations" : "")
            << (plan.profile ? " plus profile cells" : "") << (plan.counts ? " plus the counts tier" : "") << " = " << plan.cells().size()
            << " cells";
  for (const auto& e : plan.excluded) std::cerr << "\n  " << e.status << ": " << e.spec.name << " (" << e.reason << ")";
  for (const auto& a : plan.allocators)
    if (!a.nonconforming.empty())
      std::cerr << "\n  non-conforming: " << a.name << " (" << a.nonconforming << "; measured, flagged in every record, left out of the rankings)";
  for (const auto& sk : plan.skipped) std::cerr << "\n  skipped: " << sk.allocator << " x " << sk.workload << " (" << sk.reason << ")";
  std::cerr << "\n";
  const int rc = run_matrix(plan, journal, {results, table_path_for(results)}, exe);
  return report ? report_after_matrix(results, rc) : rc;
}

int MatrixCommand::run_locally(MatrixPlan plan, const nlohmann::json& context, const std::string& exe) const {
  TemporaryFolder inputs;  // a plan from a file: its inputs were prepared elsewhere, or are gone
  if (!plan_file.empty() && has_inputs(plan)) {
    inputs.dir = make_temporary_folder("allocstress-inputs-");
    prepare_plan_inputs(plan, inputs.dir);
  }
  return run_matrix_locally(plan, context, exe, out.empty() ? default_output(plan.workloads, plan.preset) : fs::path(out), force);
}

int MatrixCommand::resume_locally(const std::string& exe, const std::string& command_line) const {
  const fs::path results = out.empty() ? newest_journal() : fs::path(out);
  const std::optional<ProcessLock> lock = lock_results(results);  // not while another allocstress runs on it
  ResultsJournal journal = [&] {
    try {
      return ResultsJournal::open_existing(journal_path_for(results));
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  }();
  MatrixPlan plan = [&] {
    try {
      return MatrixPlan::from_json(journal.header().value("plan", nlohmann::json()));
    } catch (const std::runtime_error& e) {
      throw UsageError("journal " + journal_path_for(results).string() + ": " + e.what());
    }
  }();
  TemporaryFolder inputs;  // the interrupted run's inputs were temporary: prepare them again
  if (has_inputs(plan)) {
    inputs.dir = make_temporary_folder("allocstress-inputs-");
    prepare_plan_inputs(plan, inputs.dir);
  }
  const nlohmann::json resumed = {{"resumed", {{"date", iso_utc_now()}, {"command_line", command_line}}}};
  return report_after_matrix(results, run_matrix(plan, journal, {results, table_path_for(results)}, exe, resumed));
}

void MatrixCommand::check_slurm_target() const {
  check_slurm_submission({partition, time_limit, results_dir, allow_local_results_dir});
  const SlurmResultsDir dir{results_dir};
  if (fs::exists(dir.plan()) && !resume)
    throw UsageError("results directory " + results_dir +
                     " already holds a plan: pass --resume to submit its cells without a record, or choose another --results-dir");
  if (!fs::exists(dir.plan()) && resume) throw UsageError("nothing to resume: " + dir.plan().string() + " does not exist");
}

int MatrixCommand::submit_to_slurm(MatrixPlan plan, const nlohmann::json& context, const std::string& exe, const std::string& command_line) const {
  // A plan file made for the local backend may carry what only the local runner does.
  if (!plan.memory_limit.empty()) throw UsageError("the plan has --memory-limit, which applies to --backend local only (a Slurm task runs in the cluster's own cgroup)");
  if (!plan.thp_mode.empty()) throw UsageError("the plan has --thp, which applies to --backend local only (the nodes' THP mode is the cluster's)");
  check_slurm_target();  // before anything is written or submitted
  const SlurmOptions options{partition, time_limit, results_dir, allow_local_results_dir};
  const SlurmResultsDir dir{results_dir};
  std::size_t cells = 0;
  if (resume) {
    try {
      cells = read_plan_file(dir.plan()).cells.size();
    } catch (const std::runtime_error& e) {
      throw UsageError(e.what());
    }
  } else {
    if (!plan_file.empty() && has_inputs(plan)) {  // every node reads the inputs from the results directory
      fs::create_directories(dir.root / "inputs");
      prepare_plan_inputs(plan, dir.root / "inputs");
    }
    write_file_atomically(dir.plan(), json_text(plan_file_json(plan, context, exe, command_line), 2) + "\n");
    cells = plan.cells().size();
  }
  const std::vector<std::size_t> todo = cells_to_submit(dir, cells, slurm_task_states(dir));
  if (todo.empty()) {
    std::cout << "nothing to submit: every cell of " << results_dir << " has a record or a pending/running task (allocstress slurm status "
              << results_dir << ")\n";
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
            << "follow:  allocstress slurm status " << results_dir << "\n"
            << "then:    allocstress slurm merge " << results_dir << " -o results.json\n";
  return 0;
}

}  // namespace allocstress
