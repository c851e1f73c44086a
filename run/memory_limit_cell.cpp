// Limited cells: a cell process in a memory cgroup of its own (see memory_limit_cell.hpp).
#include "run/memory_limit_cell.hpp"

#include <algorithm>

#include "plan/memory_limit_spec.hpp"
#include "platform/memory/memory_cgroup.hpp"
#include "results/results_file.hpp"
#include "run/local_backend.hpp"

namespace allocstress {

namespace {

const AllocatorSpec& allocator_of(const MatrixPlan& plan, const std::string& name) {
  for (const auto& a : plan.allocators)
    if (a.name == name) return a;
  throw std::logic_error("limited cell names an allocator outside its plan: " + name);
}

// The median peak RSS of the cell's ok unlimited timing records in the journal, or 0 if none.
std::uint64_t unlimited_peak(const ResultsJournal& journal, const Cell& c) {
  std::vector<std::uint64_t> peaks;
  for (const auto& [key, r] : journal.records())
    if (r.value("mode", "") == "timing" && r.value("status", "") == "ok" && r.value("workload", "") == c.workload &&
        r.value("allocator", "") == c.allocator && r.value("threads", 0u) == c.threads && r.value("peak_rss_bytes", nlohmann::json()).is_number())
      peaks.push_back(r.at("peak_rss_bytes").get<std::uint64_t>());
  if (peaks.empty()) return 0;
  std::sort(peaks.begin(), peaks.end());
  return peaks[(peaks.size() - 1) / 2];
}

nlohmann::json optional_count(const std::optional<std::uint64_t>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

}  // namespace

nlohmann::json run_limited_cell(const MatrixPlan& plan, const MatrixCell& cell, const std::string& executable,
                                const std::filesystem::path& temp_folder, ChildOutcome& outcome, const ResultsJournal& journal) {
  const MemoryLimitSpec spec = parse_memory_limit_spec(plan.memory_limit);
  nlohmann::json limit = {{"spec", spec.text}, {"outcome", "failed"}};
  auto failed = [&](const std::string& why) {
    nlohmann::json rec = unmeasured_cell(cell, allocator_of(plan, cell.cell.allocator), plan.repetitions, "failed", why);
    rec["mode"] = to_string(CellMode::limited);
    rec["memory_limit"] = limit;
    outcome = ChildOutcome{};
    outcome.end = ChildOutcome::End::exited;
    return rec;
  };
  const std::uint64_t peak = unlimited_peak(journal, cell.cell);
  if ((spec.max.needs_peak() || spec.high.needs_peak()) && peak == 0)
    return failed("no ok unlimited timing run of this cell in the matrix to scale " + spec.text + " by");
  const MemoryLimit bytes{spec.max.set() ? spec.max.resolve(peak) : 0, spec.high.set() ? spec.high.resolve(peak) : 0};
  limit["max_bytes"] = bytes.max_bytes > 0 ? nlohmann::json(bytes.max_bytes) : nlohmann::json(nullptr);
  limit["high_bytes"] = bytes.high_bytes > 0 ? nlohmann::json(bytes.high_bytes) : nlohmann::json(nullptr);
  limit["unlimited_peak_rss_bytes"] = peak > 0 ? nlohmann::json(peak) : nlohmann::json(nullptr);
  const MemoryCgroupSupport support = find_memory_cgroup_support();
  limit["controller"] = support.available ? support.controller : "none";
  if (!support.available) return failed("no memory cgroup: " + support.why_not);
  MemoryCgroup group;
  try {
    group = MemoryCgroup::create(support, bytes);
  } catch (const std::runtime_error& e) {
    return failed(std::string("cannot make the cell's memory cgroup: ") + e.what());
  }
  nlohmann::json rec = run_one_cell(plan, cell, executable, temp_folder, outcome, group.attach_fd());
  const MemoryCgroupReading kernel = group.read();
  try {
    group.remove();
  } catch (const std::runtime_error& e) {
    rec["warnings"].push_back(std::string("the cell's memory cgroup could not be removed (the next run removes it): ") + e.what());
  }
  limit["oom_kills"] = optional_count(kernel.oom_kills);
  limit["limit_hits"] = optional_count(kernel.limit_hits);
  limit["high_events"] = optional_count(kernel.high_events);
  limit["cgroup_peak_bytes"] = optional_count(kernel.peak_bytes);
  limit["wall_s"] = outcome.elapsed_s;
  const bool pressure = kernel.limit_hits.value_or(0) > 0 || kernel.high_events.value_or(0) > 0;
  if (kernel.oom_kills.value_or(0) > 0 && !outcome.succeeded()) {
    limit["outcome"] = "oom-killed";
    rec["status"] = "oom-killed";
    rec["reason"] = "the kernel's OOM killer ended the cell at its memory limit (" + describe_failure(outcome, plan.cell_timeout_s) + ")";
  } else if (rec.value("status", "") == "ok") {
    limit["outcome"] = pressure ? "throttled" : "completed";
  }
  rec["memory_limit"] = limit;
  return rec;
}

std::vector<std::string> remove_stale_limit_cgroups() {
  const MemoryCgroupSupport support = find_memory_cgroup_support();
  return support.available ? remove_stale_memory_cgroups(support) : std::vector<std::string>{};
}

}  // namespace allocstress
