// xthread and larson cells and their registry entries (the models: workloads/cross_thread/).
//
// One pinned worker per thread, each with its own allocator instance A(sizes.max_size()), as
// alloc-test.  A remote free therefore goes to the *freeing* thread's instance: drop-in
// allocators (through ProcessMallocAllocator) handle that themselves; the in-tree backends
// tolerate it -- pool and eqclass put the block on the freeing instance's free list (their
// chunks stay mapped until every instance is destroyed, after the measured phase, and free lists
// are never walked at destruction), bump and void free nothing -- with one exception: pool (and
// eqclass, whose large blocks are pool's) maps blocks above 1 MiB one by one, and an instance
// cannot unmap another instance's mapping, so such blocks freed remotely stay mapped until the
// cell ends (the record then says so in a warning).
#include "cells/workload_registry.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "allocators/in_tree_registry.hpp"
#include "workloads/cross_thread/larson.hpp"
#include "cells/cell_record.hpp"
#include "cells/measured_phase.hpp"
#include "cells/params_json.hpp"
#include "cells/metrics/record_metrics.hpp"
#include "workloads/cross_thread/cross_thread_params.hpp"
#include "cells/alloc_test/sized_params.hpp"
#include "cells/slot_array.hpp"
#include "platform/profilers/cache_simulation.hpp"
#include "platform/tsc.hpp"

namespace allocstress {

namespace {

// A cross-thread cell's parameters, decoded: alloc-test's and the hand-off's.
struct CrossThreadCell {
  AllocTestParams params;
  CrossThreadSpec cross_thread;
};

CrossThreadCell decode(const nlohmann::json& params, unsigned threads) {
  CrossThreadCell c{sized_params(params, threads), {}};
  if (params.contains("remote_share")) c.cross_thread.remote_share = number_field(params, "remote_share");
  if (params.contains("queue_capacity")) c.cross_thread.queue_capacity = count_field(params, "queue_capacity");
  if (params.contains("rounds")) c.cross_thread.rounds = count_field(params, "rounds");
  return c;
}

// The wait accounting's clock: the same counter the measured phase times workers with.  In a
// counts cell the waits leave callgrind's collection too, so that the counts, like the cycles,
// are the work's (spinning for another thread would count as many instructions as valgrind's
// scheduling happens to allow).
struct TscClock {
  static std::uint64_t now() { return cycle_counter_end(); }
  static void pause() {
    if (counting_measured_phase()) pause_callgrind_collection();
  }
  static void resume() {
    if (counting_measured_phase()) resume_callgrind_collection();
  }
};

// xthread's part of a worker: its own slot array; blocks handed on through the ring.
struct XThreadMode {
  std::optional<SlotArray> slots;
  void allocate(const CrossThreadCell& cell) { slots.emplace(cell.params.slots_per_thread()); }
  template <class A, class Sizes>
  CrossThreadOutcome run(A& alloc, const CrossThreadCell& cell, const ParetoSlotPicker& picker, const Sizes& sizes,
                         HandoffRing& ring, unsigned index) {
    return run_xthread_thread<TscClock>(alloc, slots->span(), picker, sizes, cell.params, cell.cross_thread.remote_share, ring, index);
  }
  auto held(const CrossThreadCell&, HandoffRing&, unsigned) { return slots->span(); }
};

// larson's part: the slot arrays are the board's; at the end a worker holds its last round's.
struct LarsonMode {
  void allocate(const CrossThreadCell&) {}
  template <class A, class Sizes>
  CrossThreadOutcome run(A& alloc, const CrossThreadCell& cell, const ParetoSlotPicker& picker, const Sizes& sizes,
                         LarsonBoard& board, unsigned index) {
    return run_larson_thread<TscClock>(alloc, board, picker, sizes, cell.params, cell.cross_thread.rounds, index);
  }
  auto held(const CrossThreadCell& cell, LarsonBoard& board, unsigned index) {
    return board.array(board.array_of(index, cell.cross_thread.rounds - 1));
  }
};

// One worker of either workload (contract: measured_phase.hpp): the worker's own allocator
// instance, and Mode's state; Shared is what the threads hand blocks through.  A failed setup
// abandons Shared, so that no other worker waits for this one.
template <Allocator A, class Sizes, class Mode, class Shared>
class CrossThreadWorker {
 public:
  CrossThreadWorker(std::size_t index, const CrossThreadCell& cell, const ParetoSlotPicker& picker, const Sizes& sizes, Shared* shared)
      : index_(unsigned(index)), cell_(cell), picker_(picker), sizes_(sizes), shared_(*shared) {}

  std::string setup() {
    try {
      mode_.allocate(cell_);
      alloc_.emplace(sizes_.max_size());
    } catch (...) {
      shared_.abandon();
      throw;
    }
    return "";
  }
  void run() { outcome = mode_.run(*alloc_, cell_, picker_, sizes_, shared_, index_); }
  void inspect() {}
  void release() { release_all_slots(*alloc_, mode_.held(cell_, shared_, index_)); }

  CrossThreadOutcome outcome;

 private:
  unsigned index_;
  const CrossThreadCell& cell_;
  const ParetoSlotPicker& picker_;
  const Sizes& sizes_;
  Shared& shared_;
  Mode mode_;
  std::optional<A> alloc_;
};

template <class A, class Sizes>
using XThreadWorker = CrossThreadWorker<A, Sizes, XThreadMode, HandoffRing>;
template <class A, class Sizes>
using LarsonWorker = CrossThreadWorker<A, Sizes, LarsonMode, LarsonBoard>;

void check_cell(const CrossThreadCell& cell, const std::vector<unsigned>& pus) {
  validate(cell.params);
  validate(cell.cross_thread);
  if (pus.size() != cell.params.threads)
    throw std::invalid_argument("threads (" + std::to_string(cell.params.threads) + ") and PUs (" + std::to_string(pus.size()) +
                                ") differ");
}

// What a cell learns about its allocator type inside the measured phase's dispatch.
struct PhaseResult {
  PhaseMeasurement m;
  std::size_t max_size = 0;
  bool maps_large_blocks_per_instance = false;  // pool, eqclass: see the file comment
};

template <class A>
constexpr bool maps_large_blocks_per_instance() {
  return std::is_same_v<A, PoolAllocator> || std::is_same_v<A, EqClassAllocator>;
}

template <template <class, class> class Worker, class Shared>
PhaseResult run_phase(const CrossThreadCell& cell, const AllocatorSpec& allocator, const Topology& topology, const std::vector<unsigned>& pus,
                      Shared& shared, std::vector<CrossThreadOutcome>& outcomes) {
  const ParetoSlotPicker picker(cell.params.slots_per_thread());
  return with_size_sampler(cell.params.sizes, cell.params.max_size_exp, cell.params.size_table, [&]<class Sizes>(const Sizes& sizes) {
    return visit_allocator_type(allocator.name, [&]<class A>() {
      PhaseResult r{run_measured_phase<Worker<A, Sizes>>(
                        topology, pus, PhaseHooks{}, [&](std::size_t i, Worker<A, Sizes>& w) { outcomes[i] = w.outcome; }, cell,
                        picker, sizes, &shared),
                    sizes.max_size(), maps_large_blocks_per_instance<A>()};
      return r;
    });
  });
}

// Both workloads' totals.
struct Totals {
  std::uint64_t local_frees = 0, remote_frees = 0, queue_full_waits = 0, max_queue_backlog = 0, wait_ticks = 0, run_cycles = 0;
  double remote_share() const { return double(remote_frees) / double(local_frees + remote_frees); }
};

// alloc_family_record over the workers' outcomes, with the waits for other threads (wait_ticks)
// taken out of each worker's cycles first: net figures then count each thread's own work only
// (a slow consumer already shows in its own cycles; a barrier measures the slowest thread).
nlohmann::json cross_thread_record(const Cell& cell, const AllocatorSpec& allocator, const std::vector<unsigned>& pus,
                                   PhaseResult& phase, const std::vector<CrossThreadOutcome>& outcomes, Totals& totals) {
  std::vector<AllocTestThreadOutcome> bases;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const CrossThreadOutcome& o = outcomes[i];
    bases.push_back(o.base);
    totals.local_frees += o.local_frees;
    totals.remote_frees += o.remote_frees;
    totals.queue_full_waits += o.queue_full_waits;
    totals.max_queue_backlog = std::max(totals.max_queue_backlog, o.max_queue_backlog);
    std::uint64_t& cycles = phase.m.workers[i].cycles;
    totals.run_cycles += cycles;
    const std::uint64_t wait = std::min(o.wait_ticks, cycles);
    totals.wait_ticks += wait;
    cycles -= wait;
  }
  nlohmann::json rec = alloc_family_record(cell, allocator, pus, phase.m, bases);
  rec["cycles_means"] = "each worker's cycles in its measured run minus its waits for other threads (wait_share of them)";
  if (totals.remote_frees > 0 && phase.maps_large_blocks_per_instance && phase.max_size > PoolAllocator::kMaxPooledBytes)
    rec["warnings"].push_back(allocator.name + " maps blocks above 1 MiB per instance and one instance cannot unmap another's: "
                              "such blocks freed by another thread stay mapped until the cell ends, so peak RSS may over-state "
                              "what the allocator would keep");
  return rec;
}

nlohmann::json share_or_null(const Totals& t) {
  return t.local_frees + t.remote_frees > 0 ? nlohmann::json(t.remote_share()) : nlohmann::json(nullptr);
}

nlohmann::json run_xthread_cell(const Cell& spec, const AllocatorSpec& allocator, const Topology& topology,
                                const std::vector<unsigned>& pus) {
  const CrossThreadCell cell = decode(spec.params, spec.threads);
  check_cell(cell, pus);
  const CrossThreadSpec& x = cell.cross_thread;
  HandoffRing ring(cell.params.threads, x.queue_capacity);
  std::vector<CrossThreadOutcome> outcomes(pus.size());
  PhaseResult phase = run_phase<XThreadWorker>(cell, allocator, topology, pus, ring, outcomes);
  Totals t;
  nlohmann::json rec = cross_thread_record(spec, allocator, pus, phase, outcomes, t);
  rec["workload_metrics"] = {{"remote_free_share", share_or_null(t)},
                             {"remote_frees", t.remote_frees},
                             {"local_frees", t.local_frees},
                             {"queue_full_waits", t.queue_full_waits},
                             {"max_queue_backlog", t.max_queue_backlog},
                             {"wait_share", nullable_ratio(double(t.wait_ticks), double(t.run_cycles))}};
  rec["cross_thread"] = {
      {"remote_share_requested", x.remote_share},
      {"queue_capacity", x.queue_capacity},
      {"drain_every", kXThreadDrainEvery},
      {"live_bytes_means", "bytes held in slots: a queued block counts to nobody (at most queue_capacity x max size per queue; "
                           "max_queue_backlog blocks seen); the series equals alloc-test's for every remote share"},
      {"baseline_includes", "picking, sizes, memset/read, route draws, the queues and the cross-core transfer of block bytes "
                            "(void hands over its own hot buffer; its read checksum is not deterministic)"}};
  if (cell.params.threads == 1)
    rec["warnings"].push_back("xthread with one thread: no other thread to hand blocks to; hand-offs go through the thread's own "
                              "queue and are freed by it up to " +
                              std::to_string(kXThreadDrainEvery) +
                              " iterations later (delayed local frees, remote_free_share 0)");
  return rec;
}

nlohmann::json run_larson_cell(const Cell& spec, const AllocatorSpec& allocator, const Topology& topology,
                               const std::vector<unsigned>& pus) {
  const CrossThreadCell cell = decode(spec.params, spec.threads);
  check_cell(cell, pus);
  const std::uint64_t rounds = cell.cross_thread.rounds;
  validate_larson_rounds(rounds, cell.params.iterations_per_thread);
  LarsonBoard board(cell.params.threads, cell.params.slots_per_thread());
  std::vector<CrossThreadOutcome> outcomes(pus.size());
  PhaseResult phase = run_phase<LarsonWorker>(cell, allocator, topology, pus, board, outcomes);
  Totals t;
  nlohmann::json rec = cross_thread_record(spec, allocator, pus, phase, outcomes, t);
  rec["workload_metrics"] = {{"remote_free_share", share_or_null(t)},
                             {"remote_frees", t.remote_frees},
                             {"local_frees", t.local_frees},
                             {"rounds", rounds},
                             {"wait_share", nullable_ratio(double(t.wait_ticks), double(t.run_cycles))}};
  rec["cross_thread"] = {
      {"rounds", rounds},
      {"rotations", rounds - 1},
      {"iterations_per_round", cell.params.iterations_per_thread / rounds},
      {"live_bytes_means", "bytes held in the array a thread holds; per-thread peaks summed, as alloc-test"},
      {"baseline_includes", "picking, sizes, memset/read, ownership tracking and the rotation; the barrier waits are excluded "
                            "from every figure (wait_share)"}};
  if (cell.params.threads == 1)
    rec["warnings"].push_back("larson with one thread: the slot array passes back to the same thread, no remote frees "
                              "(remote_free_share 0; the stream is alloc-test's)");
  else if (rounds == 1)
    rec["warnings"].push_back("larson with one round: the slot arrays never rotate, no remote frees (remote_free_share 0)");
  return rec;
}

void check_xthread(const nlohmann::json& params, unsigned threads) {
  number_field(params, "remote_share");  // required: decode() falls back to defaults
  count_field(params, "queue_capacity");
  const CrossThreadCell c = decode(params, threads);
  validate(c.params);
  validate(c.cross_thread);
}

void check_larson(const nlohmann::json& params, unsigned threads) {
  const CrossThreadCell c = decode(params, threads);
  validate(c.params);
  validate(c.cross_thread);
  validate_larson_rounds(count_field(params, "rounds"), c.params.iterations_per_thread);
}

std::string describe_xthread(const nlohmann::json& p) {
  char share[32];
  std::snprintf(share, sizeof share, "%.0f", p.at("remote_share").get<double>() * 100);
  return describe_sized(p) + "; " + share + "% of frees handed to the next thread (requested), queue of " +
         p.at("queue_capacity").dump() + " blocks";
}

std::string describe_larson(const nlohmann::json& p) {
  return describe_sized(p) + "; " + p.at("rounds").dump() + " rounds, the slot arrays passing to the next thread between them";
}

std::string refuse_xthread(const AllocatorSpec& a, const nlohmann::json& p, unsigned threads) {
  return bump_budget_refusal("xthread", a, p, threads, 0.5);
}
std::string refuse_larson(const AllocatorSpec& a, const nlohmann::json& p, unsigned threads) {
  return bump_budget_refusal("larson", a, p, threads, 0.5);
}

constexpr Metric kRemoteFreeShare = workload_metric(
    "remote_free_share", "fraction", "remote-free share", 3,
    "Frees of blocks another thread allocated / all frees, as achieved (xthread: blocks handed over through the queues; "
    "larson: blocks left in the slot array a thread took over).");
constexpr Metric kRemoteFrees = workload_metric("remote_frees", "count", "remote frees", 0,
                                                "Frees of blocks another thread allocated, all threads.", false);
constexpr Metric kLocalFrees = workload_metric("local_frees", "count", "local frees", 0,
                                               "Frees by the thread that allocated the block.", false);
constexpr Metric kQueueFullWaits = workload_metric("queue_full_waits", "count", "queue-full waits", 0,
                                                   "Hand-offs that found the next thread's queue full (the producer then "
                                                   "drained its own queue while waiting).",
                                                   false);
constexpr Metric kMaxQueueBacklog = workload_metric("max_queue_backlog", "blocks", "max backlog", 0,
                                                    "The most blocks one drain of a queue found.", false);
constexpr Metric kRounds = workload_metric("rounds", "count", "rounds", 0,
                                           "Rounds of the run: the slot arrays passed to the next thread rounds - 1 times.", false);
constexpr Metric kWaitShare = workload_metric("wait_share", "fraction", "wait share", 3,
                                              "Time spent waiting for other threads / the workers' measured time; left out of "
                                              "every cycle figure.",
                                              false);

const WorkloadOption kRemoteShareOption{"--remote-share", "remote_share", OptionKind::percent,
                                        "xthread: percent of frees handed to the next thread (0..100)", kCrossThreadGroup};
const WorkloadOption kQueueCapacityOption{"--queue-capacity", "queue_capacity", OptionKind::count,
                                          "xthread: blocks one hand-off queue holds", kCrossThreadGroup};
const WorkloadOption kLarsonRoundsOption{"--larson-rounds", "rounds", OptionKind::count,
                                         "larson: rounds the iterations are split into, the slot arrays passing to the next "
                                         "thread between rounds",
                                         kCrossThreadGroup, {}, "--rounds"};

std::vector<const WorkloadOption*> with_sized(std::vector<const WorkloadOption*> own) {
  std::vector<const WorkloadOption*> o = sized_options(true);
  o.insert(o.end() - 1, own.begin(), own.end());  // the seed stays last
  return o;
}

}  // namespace

extern const WorkloadEntry kXThreadEntry, kLarsonEntry;
const WorkloadEntry kXThreadEntry{
    .name = kXThreadWorkload,
    .family = "cross-thread",
    .summary = "alloc-test's loop, but a share of the frees hands the block to the next thread in a ring",
    .options = with_sized({&kRemoteShareOption, &kQueueCapacityOption}),
    .metrics = pair_cost_metrics_and({&kRemoteFreeShare, &kRemoteFrees, &kLocalFrees, &kQueueFullWaits, &kMaxQueueBacklog, &kWaitShare}),
    .defaults = [](const AllocTestParams& preset) {
      nlohmann::json j = sized_defaults(preset, true);
      const CrossThreadSpec d;
      j["remote_share"] = d.remote_share;
      j["queue_capacity"] = d.queue_capacity;
      return j;
    },
    .check = check_xthread,
    .describe = describe_xthread,
    .run = run_xthread_cell,
    .record_params = sized_record_params,
    .refusal = refuse_xthread,
    .counts = true,
    .counts_threads = true,
    .counts_prefix = "iterations_per_thread",
    .companions = {"alloc-test"},
    .companion_reason = "xthread's blowup is its overhead over alloc-test's: the same stream with no remote frees",
};
const WorkloadEntry kLarsonEntry{
    .name = kLarsonWorkload,
    .family = "cross-thread",
    .summary = "alloc-test's loop on slot arrays that pass to the next thread between rounds (Larson's server model)",
    .options = with_sized({&kLarsonRoundsOption}),
    .metrics = pair_cost_metrics_and({&kRemoteFreeShare, &kRemoteFrees, &kLocalFrees, &kRounds, &kWaitShare}),
    .defaults = [](const AllocTestParams& preset) {
      nlohmann::json j = sized_defaults(preset, true);
      j["rounds"] = CrossThreadSpec{}.rounds;
      return j;
    },
    .check = check_larson,
    .describe = describe_larson,
    .run = run_larson_cell,
    .record_params = sized_record_params,
    .refusal = refuse_larson,
    .counts = true,
    .counts_threads = true,
};

}  // namespace allocstress
