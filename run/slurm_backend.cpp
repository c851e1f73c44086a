// Slurm submission, state queries and results-directory bookkeeping (see slurm_backend.hpp).
#include "run/slurm_backend.hpp"
#include "run/child_command.hpp"

#include <sys/statfs.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "platform/process/child_process.hpp"
#include "platform/errors.hpp"
#include "platform/machine_context.hpp"
#include "results/results_journal.hpp"
#include "platform/durable_files.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

constexpr long kTmpfsMagic = 0x01021994;  // TMPFS_MAGIC (linux/magic.h)
constexpr double kQueryTimeout = 30;       // seconds for squeue/scontrol/sbatch

std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && (t.back() == '\n' || t.back() == ' ')) t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

// Runs a Slurm client program found on PATH.
ChildOutcome slurm_command(const std::string& program, std::vector<std::string> args) {
  const std::string path = find_on_path(program);
  if (path.empty()) throw std::runtime_error(program + " is not on PATH");
  args.insert(args.begin(), path);
  return run_child(args, {}, kQueryTimeout);
}

// "KEY=VALUE" fields of `scontrol -o show job` output.
std::string field(const std::string& line, const std::string& key) {
  const std::string needle = " " + key + "=";
  const auto at = (" " + line).find(needle);
  if (at == std::string::npos) return "";
  const auto begin = at + needle.size() - 1;
  const auto end = line.find(' ', begin);
  return line.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The task ids of an ArrayTaskId field: "7", or a never-split record's "0-5", "0,2,4-7" or "0-9%2".
std::vector<std::size_t> array_task_ids(std::string text) {
  text = text.substr(0, text.find('%'));
  std::vector<std::size_t> ids;
  std::stringstream items(text);
  for (std::string item; std::getline(items, item, ',');) {
    const auto dash = item.find('-');
    const std::string first = item.substr(0, dash), last = dash == std::string::npos ? first : item.substr(dash + 1);
    if (first.empty() || last.empty() || first.find_first_not_of("0123456789") != std::string::npos ||
        last.find_first_not_of("0123456789") != std::string::npos || first.size() > 9 || last.size() > 9)
      continue;
    for (std::size_t i = std::stoul(first); i <= std::stoul(last); ++i) ids.push_back(i);
  }
  return ids;
}

// cell index -> job id of its latest submission.
std::map<std::size_t, std::string> latest_submissions(const SlurmResultsDir& dir) {
  std::map<std::size_t, std::string> out;
  std::ifstream in(dir.submissions());
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("job_id") || !j.contains("tasks")) continue;
    for (const auto& t : j.at("tasks")) out[t.get<std::size_t>()] = j.at("job_id").get<std::string>();
  }
  return out;
}

}  // namespace

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path != nullptr ? path : "");
  std::string d;
  while (std::getline(dirs, d, ':')) {
    if (d.empty()) continue;
    const fs::path candidate = fs::path(d) / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate.string();
  }
  return "";
}

void check_slurm_submission(const SlurmOptions& o) {
  for (const char* program : {"sbatch", "squeue", "scontrol"})
    if (find_on_path(program).empty())
      throw UsageError(std::string("Slurm is not available here: ") + program +
                       " is not on PATH (the slurm backend needs the Slurm client commands; run on a login node, or use --backend local)");
  // A SLURM_CONF naming a missing file makes every client retry for a minute: say so at once.
  if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && *conf != '\0' && !fs::exists(conf))
    throw UsageError(std::string("SLURM_CONF names ") + conf + ", which does not exist (accepted: unset, or the cluster's slurm.conf)");
  const ChildOutcome ping = slurm_command("scontrol", {"ping"});
  const std::string said = last_line(ping.out + ping.err);
  if (!ping.succeeded() || said.find("UP") == std::string::npos)
    throw UsageError("the Slurm controller is unreachable: `scontrol ping` said: " + (said.empty() ? describe_failure(ping, kQueryTimeout) : said));
  if (o.results_dir.empty()) throw UsageError("--backend slurm needs --results-dir DIR (a directory every node can write)");
  // The filesystem it is (or will be) on: that of its nearest existing ancestor, checked before creating anything.
  std::error_code ec;
  fs::path existing = fs::absolute(o.results_dir, ec);
  while (!existing.empty() && !fs::exists(existing, ec) && existing != existing.parent_path()) existing = existing.parent_path();
  struct statfs fs_info {};
  if (!o.allow_local_results_dir && ::statfs(existing.c_str(), &fs_info) == 0 && long(fs_info.f_type) == kTmpfsMagic)
    throw UsageError("results directory " + o.results_dir.string() +
                     " is on a node-local tmpfs, which compute nodes cannot see (accepted: a shared filesystem such as NFS, Lustre or GPFS; "
                     "--allow-local-results-dir for a single-node cluster)");
  fs::create_directories(o.results_dir, ec);
  if (ec || !fs::is_directory(o.results_dir))
    throw UsageError("results directory " + o.results_dir.string() + " cannot be created: " + (ec ? ec.message() : "not a directory"));
  if (::access(o.results_dir.c_str(), W_OK) != 0) throw UsageError("results directory " + o.results_dir.string() + " is not writable");
}

std::string submit_cells(const SlurmResultsDir& dir, const SlurmOptions& o, const std::vector<std::size_t>& cells, const std::string& executable) {
  std::string array;
  for (std::size_t i : cells) array += (array.empty() ? "" : ",") + std::to_string(i);
  fs::create_directories(dir.root / "cells");
  fs::create_directories(dir.root / "contexts");
  fs::create_directories(dir.logs());
  std::ostringstream script;
  script << "#!/bin/sh\n"
         << "# allocstress: one matrix cell per array task (allocstress slurm run-cell DIR TASK); written by `allocstress slurm submit`.\n"
         << "#SBATCH --job-name=allocstress\n"
         << "#SBATCH --array=" << array << "\n"
         << "#SBATCH --exclusive\n"
         << "#SBATCH --nodes=1\n"
         << "#SBATCH --ntasks=1\n"
         << "#SBATCH --output=" << (dir.logs() / "%A_%a.out").string() << "\n";
  if (!o.partition.empty()) script << "#SBATCH --partition=" << o.partition << "\n";
  if (!o.time_limit.empty()) script << "#SBATCH --time=" << o.time_limit << "\n";
  script << "exec " << shell_command_line(slurm_run_cell_command(executable, fs::absolute(dir.root).string())) << " \"$SLURM_ARRAY_TASK_ID\"\n";
  write_file_atomically(dir.job_script(), script.str());
  const ChildOutcome o_sbatch = slurm_command("sbatch", {"--parsable", "--chdir", fs::absolute(dir.root).string(), dir.job_script().string()});
  if (!o_sbatch.succeeded())
    throw std::runtime_error("sbatch refused the job: " + last_line(o_sbatch.err.empty() ? o_sbatch.out : o_sbatch.err));
  std::string job_id = last_line(o_sbatch.out);
  job_id = job_id.substr(0, job_id.find(';'));  // --parsable: "jobid[;cluster]"
  std::ofstream log(dir.submissions(), std::ios::app);
  log << nlohmann::json{{"job_id", job_id}, {"tasks", cells}, {"date", iso_utc_now()}}.dump() << "\n";
  if (!log) throw std::runtime_error("cannot append to " + dir.submissions().string());
  return job_id;
}

std::map<std::size_t, SlurmTaskState> slurm_task_states(const SlurmResultsDir& dir) {
  const std::map<std::size_t, std::string> latest = latest_submissions(dir);
  std::map<std::string, std::vector<std::size_t>> by_job;
  for (const auto& [cell, job] : latest) by_job[job].push_back(cell);
  std::map<std::size_t, SlurmTaskState> out;
  for (const auto& [job, cells] : by_job) {
    std::map<std::size_t, SlurmTaskState> live;  // from squeue: one line per task (-r)
    const ChildOutcome q = slurm_command("squeue", {"-h", "-r", "-j", job, "-o", "%K %T %r"});
    std::istringstream lines(q.out);
    for (std::string line; std::getline(lines, line);) {
      std::istringstream w(line);
      std::string task, state, reason;
      if (!(w >> task >> state)) continue;
      std::getline(w >> std::ws, reason);
      if (task.find_first_not_of("0123456789") == std::string::npos) live[std::stoul(task)] = {job + "_" + task, state, reason};
    }
    std::map<std::size_t, std::string> ended;  // task -> its `scontrol -o show job` record (one call per job)
    if (live.size() < cells.size()) {
      const ChildOutcome s = slurm_command("scontrol", {"-o", "show", "job", job});
      std::istringstream records(s.succeeded() ? s.out : "");
      for (std::string line; std::getline(records, line);)
        for (std::size_t task : array_task_ids(field(line, "ArrayTaskId")))
          ended.emplace(task, line);  // its own record, or the range record of tasks never split (e.g. cancelled while pending)
    }
    for (std::size_t cell : cells) {
      const std::string task = job + "_" + std::to_string(cell);
      const std::string log = (dir.logs() / (task + ".out")).string();
      if (const auto it = live.find(cell); it != live.end())
        out[cell] = it->second;
      else if (const auto e = ended.find(cell); e != ended.end())
        out[cell] = {task, field(e->second, "JobState"), "reason " + field(e->second, "Reason") + ", exit code " + field(e->second, "ExitCode") + "; log: " + log};
      else
        out[cell] = {task, "UNKNOWN", "Slurm no longer knows this task (ended over MinJobAge ago, or never ran); log: " + log};
    }
  }
  return out;
}

std::vector<std::size_t> cells_to_submit(const SlurmResultsDir& dir, std::size_t count, const std::map<std::size_t, SlurmTaskState>& states) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < count; ++i) {
    if (fs::exists(dir.cell(i))) continue;
    const auto it = states.find(i);
    if (it != states.end() && (it->second.state == "PENDING" || it->second.state == "RUNNING" || it->second.state == "CONFIGURING" ||
                               it->second.state == "COMPLETING" || it->second.state == "REQUEUED"))
      continue;
    out.push_back(i);
  }
  return out;
}

}  // namespace allocstress
