// Runs one cell in this process: dispatches on the workload, and measures alloc-test.
#include "cell_runner.hpp"

#include <optional>

#include "../allocators/in_tree_registry.hpp"
#include "cell_record.hpp"
#include "slot_array.hpp"
#include "structure_cell.hpp"

namespace allocstress {

namespace {

// One alloc-test worker thread (contract: measured_phase.hpp).
template <Allocator A>
class AllocTestWorker {
 public:
  AllocTestWorker(std::size_t index, const AllocTestParams& p, const ParetoSlotPicker& picker, const InverseSizeSampler& sizes)
      : p_(p), picker_(picker), sizes_(sizes), rng_(make_thread_rng(p.seed, unsigned(index))) {}

  std::string setup() {
    slots_.emplace(p_.slots_per_thread());
    alloc_.emplace(sizes_.max_size());
    return "";
  }
  void run() { outcome = run_alloc_test_thread(*alloc_, slots_->span(), picker_, sizes_, rng_, p_.iterations_per_thread, p_.access); }
  void inspect() {}
  void release() { release_all_slots(*alloc_, slots_->span()); }

  AllocTestThreadOutcome outcome;

 private:
  const AllocTestParams& p_;
  const ParetoSlotPicker& picker_;
  const InverseSizeSampler& sizes_;
  WorkloadRng rng_;
  std::optional<SlotArray> slots_;
  std::optional<A> alloc_;
};

nlohmann::json run_alloc_test_cell(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                                   const std::vector<unsigned>& pus) {
  const AllocTestParams& p = cell.params;
  const ParetoSlotPicker picker(p.slots_per_thread());
  const InverseSizeSampler sizes(p.max_size_exp);
  std::vector<AllocTestThreadOutcome> outcomes(pus.size());
  const PhaseMeasurement m = visit_allocator_type(allocator.name, [&]<class A>() {
    return run_measured_phase<AllocTestWorker<A>>(
        topology, pus, [&](std::size_t i, AllocTestWorker<A>& w) { outcomes[i] = w.outcome; }, p, picker, sizes);
  });

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
  const std::uint64_t ops = total.mallocs + total.frees;
  const double pairs = double(ops) / 2.0;
  const double tsc_hz = measured_tsc_hz(m);
  const double cycles_per_op = ops > 0 ? double(cycles_total) / double(ops) : 0.0;
  const double ns_per_op = tsc_hz > 0 ? cycles_per_op / tsc_hz * 1e9 : 0.0;

  nlohmann::json rec = base_record(cell, allocator, pus, m, failure);
  rec.update({// Google-Benchmark-compatible timing fields: one "iteration" = one malloc/free pair.
              {"iterations", std::uint64_t(pairs)},
              {"real_time", ns_per_op * 2},
              {"cpu_time", pairs > 0 ? double(m.usage.user_time_ns + m.usage.system_time_ns) / pairs : 0.0},
              {"cycles_total", cycles_total},
              {"cycles_per_op", cycles_per_op},
              {"cycles_per_pair", cycles_per_op * 2},
              {"ns_per_op", ns_per_op},
              {"ns_per_pair", ns_per_op * 2},
              {"mallocs", total.mallocs},
              {"frees", total.frees},
              {"ops", ops},
              {"pairs", pairs},
              {"peak_live_requested_bytes", total.peak_live_requested_bytes},
              {"end_live_requested_bytes", total.end_live_requested_bytes},
              {"overhead_ratio", nullable_ratio(double(m.peak_rss) - double(m.rss_before), double(total.peak_live_requested_bytes))},
              {"op_stream_hash", hex64(combined_hash)},
              {"read_checksum", hex64(total.read_checksum)}});
  return rec;
}

}  // namespace

nlohmann::json run_cell_here(const CellSpec& cell, const AllocatorSpec& allocator, const Topology& topology,
                             const std::vector<unsigned>& pus) {
  if (is_structure_workload(cell.workload)) return run_structure_cell(cell, allocator, topology, pus);
  return run_alloc_test_cell(cell, allocator, topology, pus);
}

}  // namespace allocstress
