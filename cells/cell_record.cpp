// Shared fields of a cell record (see cell_record.hpp).
#include "cells/cell_record.hpp"

#include <sys/prctl.h>

#include <cstdio>

#include "allocators/drop_in/malloc_provider.hpp"
#include "allocators/void_allocator.hpp"
#include "cells/modes/interference.hpp"
#include "cells/record_identity.hpp"
#include "cells/workload_registry.hpp"
#include "platform/memory/thp_mode.hpp"

namespace allocstress {

// The workers' own getrusage over their run() alone (each thread's RUSAGE_THREAD), summed: what
// the workload and its allocator did, without the harness's readings around the phase.
static ResourceUsage workers_usage(const PhaseMeasurement& m) {
  ResourceUsage sum;
  for (const WorkerTiming& w : m.workers) {
    sum.minor_faults += w.usage.minor_faults;
    sum.major_faults += w.usage.major_faults;
  }
  return sum;
}

// Where each worker ran: [PU before its run(), PU after it] (sched_getcpu), null where unknown.
static nlohmann::json observed_pus(const PhaseMeasurement& m) {
  nlohmann::json out = nlohmann::json::array();
  const auto pu = [](int cpu) { return cpu >= 0 ? nlohmann::json(cpu) : nlohmann::json(nullptr); };
  for (const WorkerTiming& w : m.workers) out.push_back({pu(w.cpu_at_start), pu(w.cpu_at_end)});
  return out;
}

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

nlohmann::json memory_overhead(const PhaseMeasurement& m, std::uint64_t peak_live, const AllocatorSpec& allocator) {
  const nlohmann::json ratio = nullable_ratio(double(m.peak_rss) - double(m.rss_before), double(peak_live));
  if (allocator.name == VoidAllocator::name() || !ratio.is_number()) return {{"overhead_ratio", nullptr}};
  if (ratio.get<double>() >= 1.0) return {{"overhead_ratio", ratio}};
  char why[200];
  std::snprintf(why, sizeof why, "RSS grew by %.1f MiB, less than the %.1f MiB live: the blocks were not all resident "
                "(untouched pages, or memory held before the phase), so this is no memory overhead",
                (double(m.peak_rss) - double(m.rss_before)) / 1048576.0, double(peak_live) / 1048576.0);
  return {{"overhead_ratio", nullptr}, {"overhead_ratio_measured", ratio}, {"overhead_ratio_invalid", why}};
}

nlohmann::json per_operation_timing(const PhaseMeasurement& m, std::uint64_t cycles_total, std::uint64_t ops) {
  const double pairs = double(ops) / 2.0;
  const double tsc_hz = measured_tsc_hz(m);
  const double cycles_per_op = ops > 0 ? double(cycles_total) / double(ops) : 0.0;
  const double ns_per_op = tsc_hz > 0 ? cycles_per_op / tsc_hz * 1e9 : 0.0;
  return {// Google-Benchmark-compatible timing fields: one "iteration" = one pair of operations.
          {"iterations", std::uint64_t(pairs)},
          {"real_time", ns_per_op * 2},
          {"cpu_time", pairs > 0 ? double(m.usage.user_time_ns + m.usage.system_time_ns) / pairs : 0.0},
          {"cycles_total", cycles_total},
          {"cycles_per_op", cycles_per_op},
          {"cycles_per_pair", cycles_per_op * 2},
          {"ns_per_op", ns_per_op},
          {"ns_per_pair", ns_per_op * 2},
          {"ops", ops},
          {"pairs", pairs}};
}

nlohmann::json alloc_family_record(const Cell& cell, const AllocatorSpec& allocator, const std::vector<unsigned>& pus,
                                   const PhaseMeasurement& m, const std::vector<AllocTestThreadOutcome>& outcomes) {
  AllocTestThreadOutcome total;
  std::uint64_t cycles_total = 0;
  std::uint64_t combined_hash = 0;
  std::string failure = setup_failure(m);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& o = outcomes[i];
    total.mallocs += o.mallocs;
    total.frees += o.frees;
    total.peak_live_requested_bytes += o.peak_live_requested_bytes;
    total.end_live_requested_bytes += o.end_live_requested_bytes;
    total.read_checksum += o.read_checksum;
    combined_hash = (combined_hash ^ o.op_stream_hash) * 0x100000001b3ULL;  // thread order matters
    cycles_total += m.workers[i].cycles;
    if (o.failed_allocation_bytes != 0 && failure.empty())
      failure = "allocation of " + std::to_string(o.failed_allocation_bytes) + " bytes returned nullptr (worker " +
                std::to_string(i) + ")";
  }
  nlohmann::json rec = base_record(cell, allocator, pus, m, failure);
  rec.update(per_operation_timing(m, cycles_total, total.mallocs + total.frees));
  rec.update({{"mallocs", total.mallocs},
              {"frees", total.frees},
              {"peak_live_requested_bytes", total.peak_live_requested_bytes},
              {"end_live_requested_bytes", total.end_live_requested_bytes},
              {"op_stream_hash", hex64(combined_hash)},
              {"read_checksum", hex64(total.read_checksum)}});
  rec.update(memory_overhead(m, total.peak_live_requested_bytes, allocator));
  return rec;
}

// The THP mode this process ran under: the system's, or "never (prctl)" where this process
// switched THP off for itself (PR_GET_THP_DISABLE), or null when neither can be read.
static nlohmann::json thp_mode_record() {
  if (prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) > 0) return "never (prctl)";
  const std::optional<ThpMode> mode = system_thp_mode();
  return mode ? nlohmann::json(std::string(to_string(*mode))) : nlohmann::json(nullptr);
}

nlohmann::json base_record(const Cell& cell, const AllocatorSpec& allocator, const std::vector<unsigned>& pus,
                           const PhaseMeasurement& m, const std::string& failure) {
  nlohmann::json warnings = nlohmann::json::array();
  for (std::size_t i = 0; i < m.workers.size(); ++i)
    if (!m.workers[i].pin_error.empty()) warnings.push_back("worker " + std::to_string(i) + ": " + m.workers[i].pin_error);
  const std::string peak_source = m.peak_reset_error.empty()
                                      ? "VmHWM reset via /proc/self/clear_refs before the measured phase"
                                      : "VmHWM since process start (reset failed: " + m.peak_reset_error + ")";
  if (!m.peak_reset_error.empty()) warnings.push_back("peak RSS includes pre-measurement memory: " + m.peak_reset_error);
  if (m.wall_ns < 20'000'000) warnings.push_back(kShortPhaseWarning);
  const unsigned threads = cell.threads;
  // The name without the mode's suffix, as a lone `run` always printed it; a matrix's entry
  // takes cell_identity's full name (results/results_file.cpp).
  return {{"name", record_name(RecordKey{cell.workload, allocator.name, threads})},
          {"run_type", "iteration"},
          {"mode", to_string(cell.mode)},
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
          {"observed_pus", observed_pus(m)},
          {"params", record_params(cell)},
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
          {"workers_minor_faults", workers_usage(m).minor_faults},
          {"workers_major_faults", workers_usage(m).major_faults},
          {"voluntary_context_switches", m.usage.voluntary_context_switches},
          {"involuntary_context_switches", m.usage.involuntary_context_switches},
          {"user_time_ns", m.usage.user_time_ns},
          {"system_time_ns", m.usage.system_time_ns},
          {"interference", interference_record(m, pus)},
          {"hardware_counters", hardware_counters_record(m)},
          {"thp_mode", thp_mode_record()},
          {"hugepages", m.hugepages ? to_json(*m.hugepages) : nlohmann::json(nullptr)},
          {"thp_coverage", m.hugepages && m.hugepages->median_coverage ? nlohmann::json(*m.hugepages->median_coverage) : nlohmann::json(nullptr)},
          {"warnings", warnings}};
}

}  // namespace allocstress
