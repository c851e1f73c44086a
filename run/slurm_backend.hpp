// The Slurm backend of the matrix: one `sbatch --array` job whose task i runs cell i of the plan
// (`allocstress run-cell DIR i`, in a fresh process as the local backend does, pinned inside the
// task), with --exclusive so that no two measurements share a node.  Each task writes its own
// record into a results directory on a filesystem every node sees:
//
//   DIR/plan.json              the plan file (plan_file.hpp)
//   DIR/job.sh                 the batch script of the latest submission
//   DIR/submissions.jsonl      one line per submission: {"job_id", "tasks": [cell indexes], "date"}
//   DIR/cells/<i>.json         cell i's record (ok, or failed with the reason), written atomically
//   DIR/contexts/<host>.json   the machine context of every node that ran a cell
//   DIR/logs/<job>_<task>.out  what the task printed (sbatch --output)
//
// A cell that fails still has a record (a failed result); a task Slurm killed, timed out or lost
// has none, so `status` reports it with Slurm's state and reason and a re-submission (`matrix
// --backend slurm --results-dir DIR --resume`) runs exactly the cells without a record that are
// neither pending nor running.  `merge` builds one results file once every cell has a record.
// Accounting (sacct) is not needed: live tasks come from squeue, recently ended ones from
// scontrol (while Slurm still remembers them, MinJobAge).
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace allocstress {

struct SlurmOptions {
  std::string partition;   // "" = the cluster's default
  std::string time_limit;  // sbatch --time per task; "" = the partition's default
  std::filesystem::path results_dir;
  bool allow_local_results_dir = false;  // accept a node-local (tmpfs) directory: single-node clusters
};

// The files of a results directory (see the file comment).
struct SlurmResultsDir {
  std::filesystem::path root;
  std::filesystem::path plan() const { return root / "plan.json"; }
  std::filesystem::path job_script() const { return root / "job.sh"; }
  std::filesystem::path submissions() const { return root / "submissions.jsonl"; }
  std::filesystem::path cell(std::size_t index) const { return root / "cells" / (std::to_string(index) + ".json"); }
  std::filesystem::path context(const std::string& host) const { return root / "contexts" / (host + ".json"); }
  std::filesystem::path logs() const { return root / "logs"; }
};

// The absolute path of `program` on PATH, or "" when it is not there.
std::string find_on_path(const std::string& program);

// Everything that can be checked before a submission, in this order: sbatch, squeue and scontrol
// on PATH; the controller answers `scontrol ping`; the results directory can be created, is
// writable, and is not on a node-local tmpfs (unless allowed).  Throws UsageError naming what is
// wrong and what is accepted.
void check_slurm_submission(const SlurmOptions& options);

// One array job over `cells`: writes DIR/job.sh, runs sbatch, appends to DIR/submissions.jsonl
// and returns the job id.  Throws std::runtime_error with sbatch's own message.
std::string submit_cells(const SlurmResultsDir& dir, const SlurmOptions& options, const std::vector<std::size_t>& cells,
                         const std::string& executable);

// What Slurm says of a task of the latest submission of a cell.
struct SlurmTaskState {
  std::string job_id;  // "<array job>_<task>"
  std::string state;   // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, TIMEOUT, ... or UNKNOWN (forgotten)
  std::string reason;  // squeue's/scontrol's reason, exit code, or where the log is
};

// For every cell ever submitted: its latest task's state (squeue, then scontrol for ended tasks).
std::map<std::size_t, SlurmTaskState> slurm_task_states(const SlurmResultsDir& dir);

// Cells in 0..count-1 without a record whose latest task is neither pending nor running.
std::vector<std::size_t> cells_to_submit(const SlurmResultsDir& dir, std::size_t count,
                                         const std::map<std::size_t, SlurmTaskState>& states);

}  // namespace allocstress
