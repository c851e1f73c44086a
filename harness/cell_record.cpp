// Shared fields of a cell record (see cell_record.hpp).
#include "cell_record.hpp"

#include <cstdio>

#include "malloc_provider.hpp"

namespace allocstress {

std::string setup_failure(const PhaseMeasurement& m) {
  for (std::size_t i = 0; i < m.workers.size(); ++i)
    if (!m.workers[i].setup_error.empty())
      return "worker " + std::to_string(i) + " could not set up: " + m.workers[i].setup_error;
  return "";
}

double measured_tsc_hz(const PhaseMeasurement& m) {
  return m.wall_ns > 0 ? double(m.counter_ticks) * 1e9 / double(m.wall_ns) : 0.0;
}

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

nlohmann::json nullable_ratio(double num, double den) {
  return den > 0 ? nlohmann::json(num / den) : nlohmann::json(nullptr);
}

nlohmann::json base_record(const CellSpec& cell, const AllocatorSpec& allocator, const std::vector<unsigned>& pus,
                           const PhaseMeasurement& m, const std::string& failure) {
  nlohmann::json warnings = nlohmann::json::array();
  for (std::size_t i = 0; i < m.workers.size(); ++i)
    if (!m.workers[i].pin_error.empty()) warnings.push_back("worker " + std::to_string(i) + ": " + m.workers[i].pin_error);
  const std::string peak_source = m.peak_reset_error.empty()
                                      ? "VmHWM reset via /proc/self/clear_refs before the measured phase"
                                      : "VmHWM since process start (reset failed: " + m.peak_reset_error + ")";
  if (!m.peak_reset_error.empty()) warnings.push_back("peak RSS includes pre-measurement memory: " + m.peak_reset_error);
  if (m.wall_ns < 20'000'000) warnings.push_back("measured phase shorter than 20 ms: TSC calibration and timing are coarse");
  const unsigned threads = cell.params.threads;
  return {{"name", cell.workload + "/" + allocator.name + "/threads:" + std::to_string(threads)},
          {"run_type", "iteration"},
          {"mode", cell.mode()},
          {"workload", cell.workload},
          {"allocator", allocator.name},
          {"allocator_kind", allocator.kind == AllocatorKind::in_tree ? "in_tree" : "drop_in"},
          {"allocator_library", allocator.library_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(allocator.library_path)},
          {"allocator_preloaded", !required_preload(allocator).empty()},
          {"malloc_provider", malloc_provider_path()},
          {"status", failure.empty() ? "ok" : "failed"},
          {"reason", failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(failure)},
          {"threads", threads},
          {"placement", to_string(cell.placement.policy)},
          {"reserve_os_pu", cell.placement.reserve_os_pu},
          {"oversubscribe", cell.placement.oversubscribe},
          {"pus", pus},
          {"params", cell_params_json(cell)},
          {"time_unit", "ns"},
          {"wall_time_ns", m.wall_ns},
          {"cycle_counter", kCycleCounterName},
          {"tsc_hz", measured_tsc_hz(m)},
          {"rss_before_bytes", m.rss_before},
          {"peak_rss_bytes", m.peak_rss},
          {"peak_rss_source", peak_source},
          {"rss_end_bytes", m.rss_end},
          {"rss_after_free_bytes", m.rss_after_free},
          {"minor_faults", m.usage.minor_faults},
          {"major_faults", m.usage.major_faults},
          {"voluntary_context_switches", m.usage.voluntary_context_switches},
          {"involuntary_context_switches", m.usage.involuntary_context_switches},
          {"user_time_ns", m.usage.user_time_ns},
          {"system_time_ns", m.usage.system_time_ns},
          {"warnings", warnings}};
}

}  // namespace allocstress
