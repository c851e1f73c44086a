// Interference and hardware counters of a measured phase (see interference.hpp).
#include "cells/modes/interference.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

namespace allocstress {

namespace {

// Σ over workers of a counter in their timing_events() readings; null with the first worker's
// n/a reason when any worker lacks it.
nlohmann::json summed_counter(const PhaseMeasurement& m, const char* name) {
  std::uint64_t sum = 0;
  for (const auto& w : m.workers) {
    if (!w.counters.is_object() || !w.counters.contains(name)) return {{"value", nullptr}, {"provenance", "n/a(not counted in this mode)"}};
    const nlohmann::json& figure = w.counters.at(name);
    if (!figure.at("value").is_number()) return figure;
    sum += figure.at("value").get<std::uint64_t>();
  }
  return {{"value", sum}, {"provenance", "exact"}};
}

}  // namespace

nlohmann::json interference_record(const PhaseMeasurement& m, const std::vector<unsigned>& pus) {
  nlohmann::json why = nlohmann::json::array();
  // Workers pinned to a PU that another worker of the cell shares (more threads than PUs): their
  // time off the CPU is mostly their siblings' turn, which the rule cannot tell from a stranger's.
  std::size_t sharing = 0;
  auto shares_its_pu = [&](std::size_t i) {
    return i < pus.size() && std::count(pus.begin(), pus.begin() + std::ptrdiff_t(std::min(pus.size(), m.workers.size())), pus[i]) > 1;
  };
  nlohmann::json preemptions = nlohmann::json::array(), waits = nlohmann::json::array(), off_cpu = nlohmann::json::array();
  for (std::size_t i = 0; i < m.workers.size(); ++i) {
    const WorkerTiming& w = m.workers[i];
    preemptions.push_back(w.usage.involuntary_context_switches);
    waits.push_back(w.usage.voluntary_context_switches);
    // Time the worker was runnable but another task held its CPU: the wall time of its run() minus
    // the thread's own CPU time over it (the scheduler's runtime, ns; rusage's is tick-sampled).
    const double on_cpu = double(w.cpu_ns);
    const double off = w.run_ns > 0 ? std::max(0.0, 1.0 - on_cpu / double(w.run_ns)) : 0.0;
    off_cpu.push_back(off);
    // A worker that waited of its own accord (a barrier, a pause, a blocking system call) was off
    // its CPU for that reason too: the rule judges only workers that never waited.
    if (shares_its_pu(i)) {
      ++sharing;
    } else if (off > kMaxOffCpuFraction && w.usage.voluntary_context_switches == 0) {
      char line[160];
      std::snprintf(line, sizeof line, "worker %zu was off its CPU for %.0f%% of its timed work (%llu preemptions)", i, 100 * off,
                    static_cast<unsigned long long>(w.usage.involuntary_context_switches));
      why.push_back(line);
    }
  }
  if (m.steal_ns && double(*m.steal_ns) > kMaxStealFraction * double(m.wall_ns) * double(m.workers.size())) {
    char line[160];
    std::snprintf(line, sizeof line, "the hypervisor stole %.1f ms of the workers' CPUs in a %.1f ms phase", double(*m.steal_ns) / 1e6,
                  double(m.wall_ns) / 1e6);
    why.push_back(line);
  }
  const nlohmann::json migrations = summed_counter(m, "cpu_migrations");
  if (migrations.at("value").is_number() && migrations.at("value").get<std::uint64_t>() > 0)
    why.push_back("pinned workers migrated " + std::to_string(migrations.at("value").get<std::uint64_t>()) + " times");
  nlohmann::json not_judged = nullptr;
  if (sharing > 0)
    not_judged = "the off-CPU rule for " + std::to_string(sharing) + " of " + std::to_string(m.workers.size()) +
                 " workers: they share their PU with another worker of this cell (more threads than PUs), so their time off "
                 "it is mostly their siblings' turn; steal time and migrations are still judged";
  if (counting_measured_phase()) {  // the clocks are virtual and callgrind serialises: no time to judge
    why.clear();
    not_judged = "a counts cell: under callgrind the clocks are virtual and the counts do not depend on other tasks";
  }
  return {{"steal_ns", m.steal_ns ? nlohmann::json(*m.steal_ns) : nlohmann::json(nullptr)},
          {"worker_involuntary_context_switches", preemptions},
          {"worker_voluntary_context_switches", waits},
          {"worker_off_cpu_fraction", off_cpu},
          {"cpu_migrations", migrations},
          {"disturbed", !why.empty()},
          {"disturbed_by", why},
          {"not_judged", not_judged}};
}

nlohmann::json hardware_counters_record(const PhaseMeasurement& m) {
  return {{"cycles", summed_counter(m, "cycles")}, {"instructions", summed_counter(m, "instructions")},
          {"cache_misses", summed_counter(m, "cache_misses")}};
}

}  // namespace allocstress
