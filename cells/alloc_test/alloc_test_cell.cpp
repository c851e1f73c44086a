// The alloc-test cell (the model: workloads/alloc_test.hpp) and its registry entry.  The measured
// phase (measured_phase.hpp): per worker thread, pinned, its slot array and allocator set up, then
// all workers start together and each times its own loop with the cycle counter; around it the
// main thread reads RSS before, resets the peak (VmHWM), and reads peak RSS, RSS at the end,
// getrusage deltas and wall time; after it the workers free what they still hold (untimed).
// In the sample pass of a profile run (run/profile_run.hpp) every worker also times 1 in N
// operations, counts perf events and sums the usable size of its live blocks.
#include "cells/workload_registry.hpp"

#include <algorithm>
#include <memory>
#include <optional>

#include "allocators/in_tree_registry.hpp"
#include "allocators/drop_in/allocator_fingerprint.hpp"
#include "allocators/drop_in/allocator_memory.hpp"
#include "cells/modes/cell_ageing.hpp"
#include "cells/cell_record.hpp"
#include "cells/metrics/record_metrics.hpp"
#include "cells/alloc_test/sized_params.hpp"
#include "cells/profiling/latency_profile.hpp"
#include "platform/profilers/perf_counters.hpp"
#include "platform/profilers/syscall_trace.hpp"
#include "cells/slot_array.hpp"

namespace allocstress {

namespace {

// The timed loop is read in this many equal segments (the first also holds most of the heap's
// growth): the variance between them is the variance within one process (results/README.md).
constexpr unsigned kSegments = 10;

// One worker's segments: cycles and operations of each, live requested bytes at its end.
struct WorkerSegments {
  std::vector<std::uint64_t> cycles, ops, live_bytes;
};

// What the sample pass of a profile run needs in every worker (nullptr in timing runs).
struct SamplePass {
  std::uint64_t sample_every = 64;
  TimerCalibration timer;
  UsableSizeFunction usable = nullptr;  // of the malloc library under test, if it has one
};

// One alloc-test worker thread (contract: measured_phase.hpp).  In the sample pass of a profile
// run it also times 1 in N operations (LatencyObserver), counts perf events around its loop and
// sums the usable size of its live blocks at the end of the loop.
template <Allocator A, class Sizes>
class AllocTestWorker {
 public:
  AllocTestWorker(std::size_t index, const AllocTestParams& p, const ParetoSlotPicker& picker, const Sizes& sizes,
                  const SamplePass* sample, CellAgeing* ageing)
      : index_(index), p_(p), picker_(picker), sizes_(sizes), rng_(make_thread_rng(p.seed, unsigned(index))), sample_(sample), ageing_(ageing) {}

  std::string setup() {
    slots_.emplace(p_.slots_per_thread());
    alloc_.emplace(sizes_.max_size());
    for (auto* v : {&segments.cycles, &segments.ops, &segments.live_bytes}) v->reserve(kSegments);  // nothing allocated while timed
    if (sample_ != nullptr) {
      observer = std::make_unique<LatencyObserver>(sample_->sample_every, sample_->timer.empty_bracket_ticks, std::size_t{4096});
      counters.emplace(profile_events());
    }
    return ageing_->age(aged_, *alloc_, index_);
  }
  void run() {
    if (!observer) {
      std::uint64_t last = cycle_counter_begin(), last_ops = 0;
      outcome = run_alloc_test_segments(*alloc_, slots_->span(), picker_, sizes_, rng_, p_.iterations_per_thread, p_.access, kSegments,
                                        [&](unsigned, const AllocTestThreadOutcome& so_far) {
                                          const std::uint64_t now = cycle_counter_end(), ops = so_far.mallocs + so_far.frees;
                                          segments.cycles.push_back(now - last);
                                          segments.ops.push_back(ops - last_ops);
                                          segments.live_bytes.push_back(so_far.end_live_requested_bytes);
                                          last = now;
                                          last_ops = ops;
                                        });
      return;
    }
    counters->start();
    outcome = run_alloc_test_thread(*alloc_, slots_->span(), picker_, sizes_, rng_, p_.iterations_per_thread, p_.access, *observer);
    counters->stop();
  }
  // A soak round (measured_phase.hpp): a tenth of the loop more, continuing its op stream.
  bool soak_round() {
    std::uint64_t live = outcome.end_live_requested_bytes;
    return with_memory_access(p_.access, [&]<MemoryAccess kAccess>() {
      NoObserver none;
      return detail::run_loop<kAccess>(*alloc_, slots_->span(), picker_, sizes_, rng_, std::max<std::uint64_t>(p_.iterations_per_thread / kSegments, 1),
                                       none, outcome, live);
    });
  }
  void inspect() {
    if (!observer || sample_->usable == nullptr) return;
    usable_live_bytes = 0;
    for (const Slot& s : slots_->span())
      if (s.size != 0) *usable_live_bytes += sample_->usable(s.block);
  }
  void release() {
    release_all_slots(*alloc_, slots_->span());
    ageing_->release(aged_, *alloc_, index_);
  }

  AllocTestThreadOutcome outcome;
  WorkerSegments segments;
  std::unique_ptr<LatencyObserver> observer;
  std::optional<ThreadCounters> counters;
  std::optional<std::uint64_t> usable_live_bytes;  // Σ usable size of the live blocks after the loop

 private:
  std::size_t index_;
  const AllocTestParams& p_;
  const ParetoSlotPicker& picker_;
  const Sizes& sizes_;
  WorkloadRng rng_;
  const SamplePass* sample_;
  CellAgeing* ageing_;
  std::optional<SlotArray> slots_;
  std::optional<A> alloc_;
  std::optional<AgedHeap> aged_;  // after alloc_: destroyed before it
};

// What a profile pass keeps of each worker once the worker is gone.
struct WorkerProfile {
  std::unique_ptr<LatencyObserver> observer;
  nlohmann::json counters;
  std::optional<std::uint64_t> usable_live_bytes;
};

// The record's "segments" block: per segment, the cycles per pair summed over workers' operations
// and the live requested bytes of all workers at its end (results/README.md).
nlohmann::json segments_record(const std::vector<WorkerSegments>& workers) {
  std::size_t count = workers.front().cycles.size();
  for (const auto& w : workers) count = std::min(count, w.cycles.size());  // a worker that stopped early has fewer
  nlohmann::json cycles_per_pair = nlohmann::json::array(), live = nlohmann::json::array();
  for (std::size_t k = 0; k < count; ++k) {
    std::uint64_t cycles = 0, ops = 0, bytes = 0;
    for (const auto& w : workers) {
      cycles += w.cycles[k];
      ops += w.ops[k];
      bytes += w.live_bytes[k];
    }
    cycles_per_pair.push_back(ops > 0 ? 2.0 * double(cycles) / double(ops) : 0.0);
    live.push_back(bytes);
  }
  return {{"count", count}, {"cycles_per_pair", cycles_per_pair}, {"live_requested_bytes_at_end", live},
          {"means", "the timed loop of every worker in equal consecutive parts: segment k's cycles summed over workers per two of its "
                    "operations, and the live requested bytes of all workers when it ended"}};
}

nlohmann::json exact(std::uint64_t v) { return {{"value", v}, {"provenance", "exact"}}; }
nlohmann::json not_available(const std::string& why) { return {{"value", nullptr}, {"provenance", "n/a(" + why + ")"}}; }

// Σ over threads of each counter (n/a when any thread lacks it).
nlohmann::json summed_counters(const std::vector<WorkerProfile>& workers) {
  nlohmann::json total = workers.front().counters;
  for (std::size_t i = 1; i < workers.size(); ++i)
    for (auto& [name, v] : total.items()) {
      const auto& other = workers[i].counters.at(name);
      if (v["value"].is_number() && other["value"].is_number())
        v["value"] = v["value"].get<std::uint64_t>() + other["value"].get<std::uint64_t>();
      else if (!v["value"].is_null())
        v = other;
    }
  return total;
}

// One memory snapshot of the breakdown: requested (exact) -> usable (exact, Σ malloc_usable_size)
// -> allocator-reported figures (process-wide: they include the harness's few small allocations)
// -> RSS; internal = usable - requested; external = resident - allocated, with the allocator's
// resident figure, or else the RSS the run added since before the measured phase.
nlohmann::json memory_snapshot(std::uint64_t requested, std::optional<std::uint64_t> usable, const nlohmann::json& reported,
                               std::uint64_t rss, std::uint64_t rss_before) {
  nlohmann::json m = {{"requested", exact(requested)},
                      {"usable", usable ? exact(*usable) : not_available("the allocator has no usable-size function")},
                      {"allocator", reported},
                      {"rss", exact(rss)},
                      {"rss_growth", {{"value", double(rss) - double(rss_before)}, {"provenance", "exact (RSS - RSS before the measured phase)"}}}};
  m["internal_fragmentation"] = usable ? nlohmann::json{{"value", double(*usable) - double(requested)}, {"provenance", "exact"}}
                                       : not_available("no usable sizes");
  const nlohmann::json& allocated = reported.at("allocated");
  const nlohmann::json& resident = reported.at("resident")["value"].is_number() ? reported.at("resident") : m["rss_growth"];
  m["external_fragmentation"] =
      allocated["value"].is_number()
          ? nlohmann::json{{"value", resident["value"].get<double>() - allocated["value"].get<double>()},
                           {"provenance", std::string("derived: resident (") + (&resident == &m["rss_growth"] ? "RSS growth, exact" : "allocator-reported") +
                                              ") - allocated (allocator-reported)"}}
          : not_available("the allocator does not report allocated bytes");
  return m;
}

nlohmann::json run_alloc_test_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology,
                                   const std::vector<unsigned>& pus) {
  const AllocTestParams p = sized_params(cell.params, cell.threads);
  const ParetoSlotPicker picker(p.slots_per_thread());
  std::vector<AllocTestThreadOutcome> outcomes(pus.size());
  std::vector<WorkerSegments> segments(pus.size());
  std::vector<WorkerProfile> profiles(pus.size());
  const bool sampling = cell.mode == CellMode::profile && cell.profile.pass == "sample";
  SamplePass sample;
  if (sampling) sample = {cell.profile.sample_every, calibrate_timer(), checked_usable_size()};
  nlohmann::json memory_at_peak, memory_at_end;
  CellAgeing ageing(cell, pus.size());
  PhaseHooks hooks;
  if (sampling) {
    hooks.at_done = [&] { memory_at_peak = allocator_reported_memory(); };
    hooks.at_released = [&] { memory_at_end = allocator_reported_memory(); };
  } else if (cell.mode == CellMode::profile && cell.profile.pass == "syscalls") {
    hooks.at_go = [] { mark_phase(kPhaseGoMarker); };
    hooks.at_done = [] { mark_phase(kPhaseDoneMarker); };
  }
  const PhaseMeasurement m = with_size_sampler(p.sizes, p.max_size_exp, p.size_table, [&]<class Sizes>(const Sizes& sizes) {
    return visit_allocator_type(allocator.name, [&]<class A>() {
      return run_measured_phase<AllocTestWorker<A, Sizes>>(
          topology, pus, hooks,
          [&](std::size_t i, AllocTestWorker<A, Sizes>& w) {
            outcomes[i] = w.outcome;
            segments[i] = std::move(w.segments);
            if (w.observer) profiles[i] = {std::move(w.observer), w.counters->values_with_provenance(), w.usable_live_bytes};
          },
          p, picker, sizes, sampling ? &sample : nullptr, &ageing);
    });
  });

  nlohmann::json rec = alloc_family_record(cell, allocator, pus, m, outcomes);
  if (!sampling) rec["segments"] = segments_record(segments);
  ageing.add_to(rec);
  const std::string failure = rec.value("status", "") == "ok" ? "" : rec.value("reason", std::string("failed"));
  if (cell.mode == CellMode::profile) rec["profile"] = {{"pass", cell.profile.pass}};
  if (!sampling || !failure.empty()) return rec;

  std::vector<const LatencyObserver*> observers;
  std::uint64_t observed = 0, sampled = 0, usable = 0, distinct = 0;
  bool usable_known = true;
  for (const auto& w : profiles) {
    observers.push_back(w.observer.get());
    observed += w.observer->operations();
    sampled += w.observer->sampled();
    distinct += w.observer->distinct_addresses();
    usable += w.usable_live_bytes.value_or(0);
    usable_known = usable_known && w.usable_live_bytes.has_value();
  }
  const SizeClassBounds bounds{cell.profile.small_limit, cell.profile.large_from, "the allocator's fingerprint"};
  rec["profile"] = {
      {"pass", "sample"},
      {"timer", {{"empty_bracket_ticks", sample.timer.empty_bracket_ticks}, {"resolution_ticks", sample.timer.resolution_ticks},
                 {"empty_bracket_subtracted", true}}},
      {"sample_every", sample.sample_every},
      {"operations", observed},
      {"sampled", sampled},
      {"share_sampled", observed > 0 ? double(sampled) / double(observed) : 0.0},
      {"distinct_addresses", distinct},
      {"size_class_bounds", {{"small_below", bounds.small_limit}, {"large_from", bounds.large_from ? nlohmann::json(bounds.large_from) : nlohmann::json(nullptr)}}},
      {"latency", latency_classes(observers, bounds, measured_tsc_hz(m), sample.timer.resolution_ticks, pus.size() > 1)},
      {"latency_provenance", "sampled(1/" + std::to_string(sample.sample_every) + ")"},
      {"counters", summed_counters(profiles)},
      {"memory",
       {{"at_peak", memory_snapshot(rec.at("end_live_requested_bytes").get<std::uint64_t>(), usable_known ? std::optional(usable) : std::nullopt, memory_at_peak, m.rss_end, m.rss_before)},
        {"at_end", memory_snapshot(0, usable_known ? std::optional<std::uint64_t>(0) : std::nullopt, memory_at_end, m.rss_after_free, m.rss_before)},
        {"at_peak_means", "at the end of the measured loop, all blocks of the workload still live (its live bytes then: "
                          "requested; the workload's peak live bytes: peak_live_requested_bytes)"}}}};
  return rec;
}

std::string describe(const nlohmann::json& params) { return describe_sized(params); }

std::string refusal(const AllocatorSpec& allocator, const nlohmann::json& params, unsigned threads) {
  return bump_budget_refusal("alloc-test", allocator, params, threads, 0.5);
}

}  // namespace

extern const WorkloadEntry kAllocTestEntry;
const WorkloadEntry kAllocTestEntry{
    .name = "alloc-test",
    .family = "alloc-test",
    .summary = "the 2018 study's model: per-thread slot arrays, Pareto slot choice, sizes p ~ 1/size, every block "
               "written and read back",
    .options = sized_options(true),
    .metrics = pair_cost_metrics(),
    .defaults = [](const AllocTestParams& preset) { return sized_defaults(preset, true); },
    .check = check_sized,
    .describe = describe,
    .run = run_alloc_test_cell,
    .record_params = sized_record_params,
    .refusal = refusal,
    .profiles = true,
    .counts = true,
    .counts_prefix = "iterations_per_thread",
    .ages = true,
    .soaks = true,
};

}  // namespace allocstress
