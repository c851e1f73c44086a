// The measured phase of one alloc-test cell and the arithmetic that turns it into a record.
#include "cell_runner.hpp"

#include <barrier>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "../allocators/in_tree_registry.hpp"
#include "malloc_provider.hpp"
#include "process_memory.hpp"
#include "slot_array.hpp"
#include "tsc.hpp"

namespace allocstress {

namespace {

struct WorkerResult {
  AllocTestThreadOutcome outcome;
  std::uint64_t cycles = 0;
  std::string pin_error;
  std::string setup_error;  // non-empty: slots or allocator could not be set up; the worker idled
};

struct PhaseMeasurement {
  std::vector<WorkerResult> workers;
  std::uint64_t wall_ns = 0;
  std::uint64_t counter_ticks = 0;  // main thread's view of the same interval, for calibration
  std::uint64_t rss_before = 0, peak_rss = 0, rss_end = 0, rss_after_free = 0;
  std::string peak_reset_error;
  ResourceUsage usage;
};

std::uint64_t now_ns() {
  return std::uint64_t(std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::steady_clock::now().time_since_epoch()).count());
}

template <Allocator A>
PhaseMeasurement measure_alloc_test(const AllocTestParams& p, const Topology& topology, const std::vector<unsigned>& pus) {
  const unsigned n = p.threads;
  const ParetoSlotPicker picker(p.slots_per_thread());
  const InverseSizeSampler sizes(p.max_size_exp);
  PhaseMeasurement m;
  m.workers.resize(n);
  std::barrier sync(std::ptrdiff_t(n) + 1);
  std::vector<std::thread> workers;
  workers.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    workers.emplace_back([&, i] {
      WorkerResult& r = m.workers[i];
      r.pin_error = topology.pin_current_thread(pus[i]);
      // A worker that cannot set up still walks through every barrier, so nobody deadlocks.
      std::optional<SlotArray> slots;
      std::optional<A> alloc;
      try {
        slots.emplace(p.slots_per_thread());
        alloc.emplace(sizes.max_size());
      } catch (const std::exception& e) {
        r.setup_error = e.what();
      }
      const bool ready = r.setup_error.empty();
      WorkloadRng rng = make_thread_rng(p.seed, i);
      sync.arrive_and_wait();  // 1: ready
      sync.arrive_and_wait();  // 2: go
      const std::uint64_t c0 = cycle_counter_begin();
      if (ready) r.outcome = run_alloc_test_thread(*alloc, slots->span(), picker, sizes, rng, p.iterations_per_thread, p.access);
      r.cycles = cycle_counter_end() - c0;
      sync.arrive_and_wait();  // 3: done
      sync.arrive_and_wait();  // 4: peak read; tear down
      if (ready) release_all_slots(*alloc, slots->span());
      sync.arrive_and_wait();  // 5: all blocks freed, harness memory still in place
      sync.arrive_and_wait();  // 6: RSS after free read
    });
  }
  sync.arrive_and_wait();  // 1
  m.rss_before = current_rss_bytes().value_or(0);
  m.peak_reset_error = reset_peak_rss();
  const ResourceUsage usage0 = process_resource_usage();
  const std::uint64_t wall0 = now_ns();
  const std::uint64_t ticks0 = cycle_counter_begin();
  sync.arrive_and_wait();  // 2
  sync.arrive_and_wait();  // 3
  const std::uint64_t ticks1 = cycle_counter_end();
  const std::uint64_t wall1 = now_ns();
  m.usage = process_resource_usage() - usage0;
  m.peak_rss = peak_rss_bytes().value_or(0);
  m.rss_end = current_rss_bytes().value_or(0);
  sync.arrive_and_wait();  // 4
  sync.arrive_and_wait();  // 5
  m.rss_after_free = current_rss_bytes().value_or(0);  // comparable with rss_before: same harness memory
  sync.arrive_and_wait();  // 6
  for (auto& t : workers) t.join();
  m.wall_ns = wall1 - wall0;
  m.counter_ticks = ticks1 - ticks0;
  return m;
}

std::string hex64(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

nlohmann::json nullable_ratio(double num, double den) {
  return den > 0 ? nlohmann::json(num / den) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json run_cell_here(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                             const std::vector<unsigned>& pus) {
  const AllocTestParams& p = cell.params;
  const PhaseMeasurement m = visit_allocator_type(
      allocator.name, [&]<class A>() { return measure_alloc_test<A>(p, topology, pus); });

  AllocTestThreadOutcome total;
  std::uint64_t cycles_total = 0;
  std::uint64_t combined_hash = 0;
  nlohmann::json pin_errors = nlohmann::json::array();
  std::string failure;
  for (std::size_t i = 0; i < m.workers.size(); ++i) {
    const auto& w = m.workers[i];
    total.mallocs += w.outcome.mallocs;
    total.frees += w.outcome.frees;
    total.peak_live_requested_bytes += w.outcome.peak_live_requested_bytes;
    total.end_live_requested_bytes += w.outcome.end_live_requested_bytes;
    total.read_checksum += w.outcome.read_checksum;
    combined_hash = (combined_hash ^ w.outcome.op_stream_hash) * 0x100000001b3ULL;  // thread order matters
    cycles_total += w.cycles;
    if (!w.pin_error.empty()) pin_errors.push_back("worker " + std::to_string(i) + ": " + w.pin_error);
    if (!w.setup_error.empty() && failure.empty())
      failure = "worker " + std::to_string(i) + " could not set up its slots or allocator: " + w.setup_error;
    if (w.outcome.failed_allocation_bytes != 0 && failure.empty())
      failure = "allocation of " + std::to_string(w.outcome.failed_allocation_bytes) + " bytes returned nullptr (worker " +
                std::to_string(i) + ")";
  }
  const std::uint64_t ops = total.mallocs + total.frees;
  const double pairs = double(ops) / 2.0;
  const double tsc_hz = m.wall_ns > 0 ? double(m.counter_ticks) * 1e9 / double(m.wall_ns) : 0.0;
  const double cycles_per_op = ops > 0 ? double(cycles_total) / double(ops) : 0.0;
  const double ns_per_op = tsc_hz > 0 ? cycles_per_op / tsc_hz * 1e9 : 0.0;

  nlohmann::json warnings = pin_errors;
  const std::string peak_source = m.peak_reset_error.empty()
                                      ? "VmHWM reset via /proc/self/clear_refs before the measured phase"
                                      : "VmHWM since process start (reset failed: " + m.peak_reset_error + ")";
  if (!m.peak_reset_error.empty()) warnings.push_back("peak RSS includes pre-measurement memory: " + m.peak_reset_error);
  if (m.wall_ns < 20'000'000) warnings.push_back("measured phase shorter than 20 ms: TSC calibration and timing are coarse");

  const std::string provider = malloc_provider_path();
  nlohmann::json rec = {
      {"name", cell.workload + "/" + allocator.name + "/threads:" + std::to_string(p.threads)},
      {"run_type", "iteration"},
      {"workload", cell.workload},
      {"allocator", allocator.name},
      {"allocator_kind", allocator.kind == AllocatorKind::in_tree ? "in_tree" : "drop_in"},
      {"allocator_library", allocator.library_path.empty() ? nlohmann::json(nullptr) : nlohmann::json(allocator.library_path)},
      {"allocator_preloaded", !required_preload(allocator).empty()},
      {"malloc_provider", provider},
      {"status", failure.empty() ? "ok" : "failed"},
      {"reason", failure.empty() ? nlohmann::json(nullptr) : nlohmann::json(failure)},
      {"threads", p.threads},
      {"placement", to_string(cell.placement.policy)},
      {"reserve_os_pu", cell.placement.reserve_os_pu},
      {"oversubscribe", cell.placement.oversubscribe},
      {"pus", pus},
      {"params", params_json(p)},
      // Google-Benchmark-compatible timing fields: one "iteration" = one malloc/free pair.
      {"iterations", std::uint64_t(pairs)},
      {"real_time", ns_per_op * 2},
      {"cpu_time", pairs > 0 ? double(m.usage.user_time_ns + m.usage.system_time_ns) / pairs : 0.0},
      {"time_unit", "ns"},
      {"wall_time_ns", m.wall_ns},
      {"cycle_counter", kCycleCounterName},
      {"cycles_total", cycles_total},
      {"cycles_per_op", cycles_per_op},
      {"cycles_per_pair", cycles_per_op * 2},
      {"ns_per_op", ns_per_op},
      {"ns_per_pair", ns_per_op * 2},
      {"tsc_hz", tsc_hz},
      {"mallocs", total.mallocs},
      {"frees", total.frees},
      {"ops", ops},
      {"pairs", pairs},
      {"rss_before_bytes", m.rss_before},
      {"peak_rss_bytes", m.peak_rss},
      {"peak_rss_source", peak_source},
      {"rss_end_bytes", m.rss_end},
      {"rss_after_free_bytes", m.rss_after_free},
      {"peak_live_requested_bytes", total.peak_live_requested_bytes},
      {"end_live_requested_bytes", total.end_live_requested_bytes},
      {"overhead_ratio", nullable_ratio(double(m.peak_rss) - double(m.rss_before), double(total.peak_live_requested_bytes))},
      {"minor_faults", m.usage.minor_faults},
      {"major_faults", m.usage.major_faults},
      {"voluntary_context_switches", m.usage.voluntary_context_switches},
      {"involuntary_context_switches", m.usage.involuntary_context_switches},
      {"user_time_ns", m.usage.user_time_ns},
      {"system_time_ns", m.usage.system_time_ns},
      {"op_stream_hash", hex64(combined_hash)},
      {"read_checksum", hex64(total.read_checksum)},
      {"warnings", warnings}};
  return rec;
}

}  // namespace allocstress
