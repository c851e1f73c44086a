// false-sharing-active / false-sharing-passive cells: the kernels of workloads/false_sharing/false_sharing.hpp in
// the measured phase, and their record.
//
// Record: base_record + per_operation_timing over the allocator's mallocs and frees (raw cycles
// per pair: no void baseline exists for these kernels, the void allocator is refused) +
//   workload_metrics  shared_lines_mean / _max   lines holding live objects of >= 2 threads after
//                                                a round's allocations, mean and max over rounds
//                     shared_object_share        objects on such a line / objects, over all rounds
//                     write_cycles_per_write     the allocator's objects: median over rounds of
//                                                the round's write cycles / writes (all threads)
//                     private_write_cycles_per_write  the same on the private baseline objects
//                     slowdown                   median over rounds of the round's ratio of the
//                                                two (write phases microseconds apart)
//                     alloc_cycles_per_pair      = cycles_per_pair (a mean over every pair)
//   false_sharing     kind, line size and its source, what the baseline and the instances are.
// Write phases last microseconds: a round in which the scheduler preempted a thread costs
// milliseconds, and on a loaded machine a few of them dominate a mean; the medians ignore them.
// The measured phase's wall time and process readings cover the baseline and the barrier waits
// too.
#include "cells/workload_registry.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <optional>
#include <sstream>

#include "platform/profilers/cache_geometry.hpp"
#include "allocators/in_tree_registry.hpp"
#include "workloads/false_sharing/false_sharing.hpp"
#include "cells/cell_record.hpp"
#include "cells/params_json.hpp"

namespace allocstress {

namespace {

// One worker thread (contract: measured_phase.hpp).  Its allocator instance lives as long as the
// worker, past every thread's run (the passive hand-off uses it from thread 0).  A worker runs
// the kernel only when every worker set up: the kernel's barrier waits for all of them.
template <Allocator A>
class FalseSharingWorker {
 public:
  FalseSharingWorker(std::size_t index, FalseSharingRun<A>* run, std::atomic<unsigned>* ready, unsigned threads,
                     std::size_t object_size)
      : index_(unsigned(index)), run_(run), ready_(ready), threads_(threads), object_size_(object_size) {}

  std::string setup() {
    alloc_.emplace(object_size_);
    ready_->fetch_add(1);
    return "";
  }
  void run() {
    if (ready_->load() == threads_) tally = run_->run_thread(index_, *alloc_);
  }
  void inspect() {}
  void release() {}  // the kernel frees every object it allocates

  FalseSharingTally tally;

 private:
  unsigned index_;
  FalseSharingRun<A>* run_;
  std::atomic<unsigned>* ready_;
  unsigned threads_;
  std::size_t object_size_;  // the only block size the kernel asks for
  std::optional<A> alloc_;
};

// Per completed round: Σ over threads of the allocator's and the private write-phase cycles.
// Every thread writes the same number of objects in both phases of a completed round.
struct RoundCycles {
  std::vector<double> write, baseline;
};

RoundCycles round_cycles(const std::vector<FalseSharingTally>& tallies, std::uint64_t rounds) {
  RoundCycles c{std::vector<double>(rounds, 0.0), std::vector<double>(rounds, 0.0)};
  for (const FalseSharingTally& t : tallies)
    for (std::size_t r = 0; r < rounds; ++r) {
      c.write[r] += double(t.round_write_cycles[r]);
      c.baseline[r] += double(t.round_private_cycles[r]);
    }
  return c;
}

nlohmann::json median(std::vector<double> v) {
  if (v.empty()) return nullptr;
  const auto mid = v.begin() + std::ptrdiff_t(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return v.size() % 2 == 1 ? *mid : (*mid + *std::max_element(v.begin(), mid)) / 2;
}

std::size_t line_size() {
  const std::size_t line = l1_data_cache().line;
  return line >= 8 && std::has_single_bit(line) ? line : 64;
}

FalseSharingSpec false_sharing_spec(const nlohmann::json& params) {
  return {count_field(params, "object_size"), count_field(params, "objects"), count_field(params, "writes"), count_field(params, "rounds")};
}

nlohmann::json run_false_sharing_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology,
                                      const std::vector<unsigned>& pus) {
  const FalseSharingKind kind = cell.workload == kFalseSharingPassiveWorkload ? FalseSharingKind::passive : FalseSharingKind::active;
  const FalseSharingSpec spec = false_sharing_spec(cell.params);
  const unsigned threads = unsigned(pus.size());
  const std::size_t line = line_size();
  std::vector<FalseSharingTally> tallies(threads);
  SharedLineTally shared;
  const PhaseMeasurement m = visit_allocator_type(allocator.name, [&]<class A>() {
    FalseSharingRun<A> run(spec, kind, threads, line);
    std::atomic<unsigned> ready{0};
    PhaseMeasurement pm = run_measured_phase<FalseSharingWorker<A>>(
        topology, pus, PhaseHooks{}, [&](std::size_t i, FalseSharingWorker<A>& w) { tallies[i] = w.tally; }, &run, &ready,
        threads, std::size_t(spec.object_size));
    shared = run.shared_lines();
    return pm;
  });

  FalseSharingTally total;
  std::string failure = setup_failure(m);
  for (std::size_t i = 0; i < tallies.size(); ++i) {
    const FalseSharingTally& t = tallies[i];
    total.alloc_cycles += t.alloc_cycles;
    total.mallocs += t.mallocs;
    total.frees += t.frees;
    total.writes += t.writes;
    total.private_writes += t.private_writes;
    const std::string who = " (worker " + std::to_string(i) + ")";
    if (failure.empty() && t.harness_memory_failed) failure = "could not map the harness's memory for the kernel" + who;
    if (failure.empty() && t.failed_allocation_bytes != 0)
      failure = "allocation of " + std::to_string(t.failed_allocation_bytes) + " bytes returned nullptr" + who;
  }
  std::uint64_t rounds = tallies.empty() ? 0 : tallies.front().rounds;
  for (const FalseSharingTally& t : tallies) rounds = std::min<std::uint64_t>(rounds, t.round_write_cycles.size());
  const RoundCycles cycles = round_cycles(tallies, rounds);
  const double writes_per_round = rounds > 0 ? double(total.writes) / double(rounds) : 0.0;
  std::vector<double> write_cost, private_cost, ratio;
  for (std::size_t r = 0; r < rounds; ++r) {
    write_cost.push_back(cycles.write[r] / writes_per_round);
    private_cost.push_back(cycles.baseline[r] / writes_per_round);
    if (cycles.baseline[r] > 0) ratio.push_back(cycles.write[r] / cycles.baseline[r]);
  }

  nlohmann::json rec = base_record(cell, allocator, pus, m, failure);
  rec.update(per_operation_timing(m, total.alloc_cycles, total.mallocs + total.frees));
  rec.update({{"mallocs", total.mallocs}, {"frees", total.frees}, {"writes", total.writes}, {"rounds_completed", rounds}});
  rec["workload_metrics"] = {
      {"shared_lines_mean", nullable_ratio(double(shared.lines_sum), double(shared.rounds))},
      {"shared_lines_max", shared.rounds > 0 ? nlohmann::json(shared.lines_max) : nlohmann::json(nullptr)},
      {"shared_object_share", nullable_ratio(double(shared.objects_on_shared_lines), double(shared.objects))},
      {"slowdown", median(ratio)},
      {"write_cycles_per_write", median(write_cost)},
      {"private_write_cycles_per_write", median(private_cost)},
      {"alloc_cycles_per_pair", nullable_ratio(2.0 * double(total.alloc_cycles), double(total.mallocs + total.frees))}};
  rec["false_sharing"] = {
      {"kind", kind == FalseSharingKind::active ? "active" : "passive"},
      {"line_size", line},
      {"line_size_source", l1_data_cache().source},
      {"baseline", "private cache-line-aligned objects per thread, measured in the same cell"},
      {"write", "one volatile byte increment in every cache line an object touches"},
      {"allocator_instances",
       allocator.kind == AllocatorKind::in_tree
           ? "one in-tree instance per worker thread: objects of different threads never share a line by construction"
           : "the process-wide malloc, shared by every thread"},
      {"timing_statistic", "write figures and slowdown: medians over rounds; alloc_cycles_per_pair: mean"},
      {"shared_lines_rounds", shared.rounds}};
  return rec;
}

nlohmann::json defaults(const AllocTestParams& preset) {
  const FalseSharingSpec d;
  return {{"object_size", d.object_size}, {"objects", d.objects}, {"writes", d.writes}, {"rounds", d.rounds}, {"seed", preset.seed}};
}

void check(const nlohmann::json& params, unsigned) {
  count_field(params, "seed");
  validate(false_sharing_spec(params));
}

std::string describe(const nlohmann::json& p) {
  std::ostringstream s;
  s << p.at("rounds") << " rounds; per round each thread allocates " << p.at("objects") << " objects of " << p.at("object_size")
    << " B, writes each " << p.at("writes") << " times, frees them; seed " << p.at("seed");
  return s.str();
}

constexpr Metric kSharedLinesMean = workload_metric("shared_lines_mean", "lines", "shared lines (mean)", 1,
                                                    "Cache lines holding bytes of live objects of two or more threads after a "
                                                    "round's allocations, mean over rounds.");
constexpr Metric kSharedLinesMax = workload_metric("shared_lines_max", "lines", "shared lines (max)", 0,
                                                   "The most cache lines shared between threads' live objects in one round.");
constexpr Metric kSharedObjectShare = workload_metric("shared_object_share", "fraction", "objects on shared lines", 3,
                                                      "Objects on a shared line / objects, over all rounds.");
constexpr Metric kSlowdown = workload_metric("slowdown", "ratio", "write slowdown", 2,
                                             "Median over rounds of the round's write cycles on the allocator's objects / on "
                                             "private cache-line-aligned objects of each thread, measured in the same cell (no "
                                             "void baseline: void hands every object one buffer): what the allocator's "
                                             "placement costs the writes (1 = nothing).",
                                             true, false, true);
constexpr Metric kWriteCycles = workload_metric("write_cycles_per_write", "TSC cycles", "write cycles/write", 2,
                                                "Median over rounds of the cycles per write to the allocator's objects.");
constexpr Metric kPrivateWriteCycles = workload_metric("private_write_cycles_per_write", "TSC cycles", "private cycles/write", 2,
                                                       "Median over rounds of the cycles per write of the same loop on private "
                                                       "cache-line-aligned objects: the baseline.");
constexpr Metric kAllocCycles = workload_metric("alloc_cycles_per_pair", "TSC cycles", "alloc cycles/pair", 1,
                                                "Raw cycles per malloc/free pair of the kernel's allocations, a mean over every "
                                                "pair (passive: thread 0's hand-off included).");

const WorkloadOption kObjectSizeOption{"--object-size", "object_size", OptionKind::count, "false-sharing-*: bytes per object",
                                       kFalseSharingGroup};
const WorkloadOption kObjectsOption{"--objects", "objects", OptionKind::count, "false-sharing-*: objects per thread per round",
                                    kFalseSharingGroup};
const WorkloadOption kWritesOption{"--writes", "writes", OptionKind::count, "false-sharing-*: writes to each object per round",
                                   kFalseSharingGroup};
const WorkloadOption kFalseSharingRoundsOption{"--fs-rounds", "rounds", OptionKind::count,
                                               "false-sharing-*: allocate-write-free rounds", kFalseSharingGroup, {}, "--rounds"};

WorkloadEntry false_sharing_entry(std::string_view name, std::string_view summary) {
  return {.name = name,
          .family = "false-sharing",
          .summary = summary,
          .void_baseline = false,
          .void_refusal = "void returns one buffer for every object; the false-sharing baseline is private cache-line-aligned "
                          "objects, measured inside each cell",
          .table = TableKind::false_sharing,
          .options = {&kObjectSizeOption, &kObjectsOption, &kWritesOption, &kFalseSharingRoundsOption, &kSeedOption},
          .metrics = {&kSharedLinesMean, &kSharedLinesMax, &kSharedObjectShare, &kSlowdown, &kWriteCycles, &kPrivateWriteCycles,
                      &kAllocCycles},
          .defaults = defaults,
          .check = check,
          .describe = describe,
          .run = run_false_sharing_cell};
}

}  // namespace

extern const WorkloadEntry kFalseSharingActiveEntry, kFalseSharingPassiveEntry;
const WorkloadEntry kFalseSharingActiveEntry = false_sharing_entry(
    kFalseSharingActiveWorkload, "the Hoard paper's active test: threads allocate small objects together and write them");
const WorkloadEntry kFalseSharingPassiveEntry = false_sharing_entry(
    kFalseSharingPassiveWorkload, "the Hoard paper's passive test: thread 0 allocates every thread's objects, which free and allocate anew");

}  // namespace allocstress
