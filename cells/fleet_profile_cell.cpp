// The `fleet-profile` cell (the model: workloads/fleet/fleet_profile.hpp) and its registry entry.
// Per worker thread, set up untimed: its slot array and build order (harness memory mapped from
// the OS, slot_array.hpp) and its allocator; the timed loop is the build then the churn, read in
// segments (the build, then kChurnSegments equal parts of the churn).  The record is the
// alloc-test family's (cost per pair over the whole loop, net of void; peak RSS and overhead over
// the live heap) plus the plan's figures and the build's and churn's own raw cycles.
//
// The profile comes from the parameter `fleet_profile` or from the workload's label: an instance
// `fleet-profile:3` runs profile 3 (a matrix can hold the ten side by side).  The heap: `heap_bytes`,
// or 0 for the profile's own live heap capped at a quarter of this machine's memory.
#include "cells/workload_registry.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>

#include "allocators/in_tree_registry.hpp"
#include "allocators/os_chunks.hpp"
#include "cells/modes/cell_ageing.hpp"
#include "cells/cell_record.hpp"
#include "cells/metrics/record_metrics.hpp"
#include "cells/params_json.hpp"
#include "cells/slot_array.hpp"
#include "workloads/fleet/fleet_profile.hpp"

namespace allocstress {

namespace {

constexpr unsigned kChurnSegments = 9;

// The default heap's cap: a quarter of physical memory (the harness and the allocator's overhead
// need room beside it).
std::uint64_t default_heap_cap() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? std::uint64_t(pages) * std::uint64_t(page) / 4 : std::uint64_t{1} << 30;
}

struct FleetParams {
  unsigned profile = 1;
  std::uint64_t heap_bytes = 0;  // resolved: never 0
  std::uint64_t iterations_per_thread = 0;
  MemoryAccess access = MemoryAccess::write_read;
  std::uint64_t seed = 1;
};

FleetParams fleet_params(const nlohmann::json& params) {
  FleetParams p;
  p.profile = small_count_field(params, "fleet_profile");
  const FleetProfile& profile = fleet_profile(p.profile);  // throws for a profile outside 0..9
  p.heap_bytes = count_field(params, "heap_bytes");
  if (p.heap_bytes == 0) p.heap_bytes = std::min(profile.heap_bytes, default_heap_cap());
  p.iterations_per_thread = count_field(params, "iterations_per_thread");
  p.access = parse_memory_access(word_field(params, "memory_access"));
  p.seed = count_field(params, "seed");
  return p;
}

// One worker thread (contract: measured_phase.hpp).
template <Allocator A>
class FleetWorker {
 public:
  FleetWorker(std::size_t index, const FleetParams& p, const FleetProfilePlan& plan, CellAgeing* ageing)
      : index_(index), p_(p), plan_(plan), rng_(make_thread_rng(p.seed, unsigned(index))), ageing_(ageing) {}

  std::string setup() {
    slots_.emplace(plan_.slots);
    order_bytes_ = std::max<std::size_t>(plan_.slots * sizeof(std::uint32_t), 1);
    void* m = mmap(nullptr, order_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED) return "cannot map the build order of " + std::to_string(plan_.slots) + " blocks";
    order_ = static_cast<std::uint32_t*>(m);
    shuffle_build_order({order_, plan_.slots}, rng_);
    alloc_.emplace(plan_.sizes.back());
    cycles.reserve(kChurnSegments + 1);
    return ageing_->age(aged_, *alloc_, index_);
  }
  void run() {
    std::uint64_t last = cycle_counter_begin();
    outcome = with_memory_access(p_.access, [&]<MemoryAccess kAccess>() {
      return run_fleet_profile_thread<kAccess>(*alloc_, plan_, slots_->span(), {order_, plan_.slots}, rng_, p_.iterations_per_thread,
                                               kChurnSegments, [&](unsigned, const AllocTestThreadOutcome&) {
                                                 const std::uint64_t now = cycle_counter_end();
                                                 cycles.push_back(now - last);
                                                 last = now;
                                               });
    });
  }
  // A soak round (measured_phase.hpp): a ninth of the churn more, on the same live blocks.
  bool soak_round() {
    std::uint64_t live = outcome.end_live_requested_bytes;
    return with_memory_access(p_.access, [&]<MemoryAccess kAccess>() {
      return run_fleet_churn<kAccess>(*alloc_, plan_, slots_->span(), rng_, std::max<std::uint64_t>(p_.iterations_per_thread / kChurnSegments, 1),
                                      outcome, live);
    });
  }
  void inspect() {}
  void release() {
    release_all_slots(*alloc_, slots_->span());
    ageing_->release(aged_, *alloc_, index_);
    if (order_ != nullptr) munmap(order_, order_bytes_);
    order_ = nullptr;
  }

  AllocTestThreadOutcome outcome;
  std::vector<std::uint64_t> cycles;  // the build's, then each churn segment's

 private:
  std::size_t index_;
  const FleetParams& p_;
  const FleetProfilePlan& plan_;
  WorkloadRng rng_;
  CellAgeing* ageing_;
  std::optional<SlotArray> slots_;
  std::uint32_t* order_ = nullptr;
  std::size_t order_bytes_ = 0;
  std::optional<A> alloc_;
  std::optional<AgedHeap> aged_;  // after alloc_: destroyed before it
};

nlohmann::json run_fleet_profile_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology,
                                      const std::vector<unsigned>& pus) {
  const FleetParams p = fleet_params(cell.params);
  const FleetProfilePlan plan = make_fleet_profile_plan(fleet_profile(p.profile), p.heap_bytes / pus.size());
  std::vector<AllocTestThreadOutcome> outcomes(pus.size());
  std::vector<std::vector<std::uint64_t>> cycles(pus.size());
  CellAgeing ageing(cell, pus.size());
  const PhaseMeasurement m = visit_allocator_type(allocator.name, [&]<class A>() {
    return run_measured_phase<FleetWorker<A>>(
        topology, pus, PhaseHooks{},
        [&](std::size_t i, FleetWorker<A>& w) {
          outcomes[i] = w.outcome;
          cycles[i] = std::move(w.cycles);
        },
        p, plan, &ageing);
  });
  nlohmann::json rec = alloc_family_record(cell, allocator, pus, m, outcomes);
  ageing.add_to(rec);
  if (rec.value("status", "") != "ok") return rec;
  // The build's and the churn's raw cycles (not net of void): the build is every worker's first segment.
  std::uint64_t build_cycles = 0, churn_cycles = 0;
  for (const auto& c : cycles)
    for (std::size_t k = 0; k < c.size(); ++k) (k == 0 ? build_cycles : churn_cycles) += c[k];
  const double threads = double(pus.size());
  const double build_mallocs = double(plan.slots) * threads, churn_ops = 2.0 * double(p.iterations_per_thread) * threads;
  std::uint64_t live_end = 0;
  for (const auto& o : outcomes) live_end += o.end_live_requested_bytes;
  rec["workload_metrics"] = {
      {"fleet_profile", p.profile},
      {"heap_bytes", p.heap_bytes},
      {"profile_heap_bytes", fleet_profile(p.profile).heap_bytes},
      {"live_blocks", plan.slots * pus.size()},
      {"live_requested_bytes", live_end},
      {"mean_live_size_bytes", plan.slots > 0 ? double(plan.live_bytes) / double(plan.slots) : 0.0},
      {"left_out_allocation_share", plan.left_out_rate_share},
      {"left_out_live_bytes_share", plan.left_out_live_bytes_share},
      {"build_cycles_per_malloc", build_mallocs > 0 ? double(build_cycles) / build_mallocs : 0.0},
      {"churn_cycles_per_pair", churn_ops > 0 ? 2.0 * double(churn_cycles) / churn_ops : 0.0}};
  rec["fleet_profile"] = {{"rows_kept", plan.sizes.size()},
                          {"rows", fleet_profile(p.profile).rows.size()},
                          {"max_block_bytes", plan.max_block},
                          {"source", "workloads/fleet/profiles/TCMALLOC_" + std::to_string(p.profile) + ".csv (Apache-2.0)"}};
  return rec;
}

// A label 0..9 names the profile (fleet-profile:3).
nlohmann::json label_params(std::string_view label) {
  if (label.size() == 1 && label[0] >= '0' && label[0] <= '9') return {{"fleet_profile", unsigned(label[0] - '0')}};
  throw std::invalid_argument("fleet-profile's label names a profile: '" + std::string(label) + "' is not one (accepted: fleet-profile:0 to fleet-profile:9)");
}

void check(const nlohmann::json& params, unsigned threads) {
  const FleetParams p = fleet_params(params);
  if (p.iterations_per_thread > kMaxIterationsPerThread)
    throw std::invalid_argument("--iterations " + std::to_string(p.iterations_per_thread) + " is too many (accepted: at most 1e12)");
  if (p.heap_bytes / threads < 4096)
    throw std::invalid_argument("--heap " + std::to_string(p.heap_bytes) + " is too small for " + std::to_string(threads) +
                                " thread(s) (accepted: at least 4096 bytes per thread, or 0 for the profile's own heap)");
  make_fleet_profile_plan(fleet_profile(p.profile), p.heap_bytes / threads);  // throws what the heap cannot hold
}

std::string describe(const nlohmann::json& params) {
  const FleetParams p = fleet_params(params);
  char line[256];
  std::snprintf(line, sizeof line, "fleet profile %u at a %.1f MiB heap (its own: %.0f MiB), %llu churn ops/thread after the build, access %s, seed %llu",
                p.profile, double(p.heap_bytes) / 1048576.0, double(fleet_profile(p.profile).heap_bytes) / 1048576.0,
                static_cast<unsigned long long>(p.iterations_per_thread), std::string(to_string(p.access)).c_str(),
                static_cast<unsigned long long>(p.seed));
  return line;
}

// bump never reuses memory: it needs every block the loop allocates.
std::string refusal(const AllocatorSpec& allocator, const nlohmann::json& params, unsigned threads) {
  if (allocator.name != BumpAllocator::name()) return "";
  const FleetParams p = fleet_params(params);
  const FleetProfilePlan plan = make_fleet_profile_plan(fleet_profile(p.profile), p.heap_bytes / threads);
  const double mean = plan.slots > 0 ? double(plan.live_bytes) / double(plan.slots) : 64.0;
  const double need = double(threads) * (double(plan.slots) + double(p.iterations_per_thread)) * (mean + 16.0);
  const double budget = double(ChunkSource::process_budget());
  if (need <= budget) return "";
  return "bump never reuses memory: this fleet-profile needs about " + std::to_string(int(need / double(1 << 30))) + " GiB, over its budget of " +
         std::to_string(int(budget / double(1 << 30))) + " GiB (half of physical memory); ask for fewer --iterations or a smaller --heap";
}

constexpr std::string_view kFleetGroup = "Fleet profiles (fleet-profile)";
const WorkloadOption kFleetProfileOption{"--fleet-profile", "fleet_profile", OptionKind::count,
                                         "Which of the ten fleet profiles: 0..9 (or name the instance fleet-profile:K)", kFleetGroup};
const WorkloadOption kHeapOption{"--heap", "heap_bytes", OptionKind::count,
                                 "Live heap of all threads together, bytes (0: the profile's own, capped at a quarter of this machine's memory)",
                                 kFleetGroup};

constexpr Metric kHeap = workload_metric("heap_bytes", "bytes", "heap MiB", 1, "The live heap the profile was scaled to, all threads (--heap).", true, true);
constexpr Metric kProfileHeap = workload_metric("profile_heap_bytes", "bytes", "profile heap MiB", 0,
                                                "The live heap the profile was measured at on the fleet (heap_size.csv).", false, true);
constexpr Metric kProfileIndex = workload_metric("fleet_profile", "index", "profile", 0, "Which fleet profile (0..9).", false);
constexpr Metric kLiveBlocks = workload_metric("live_blocks", "blocks", "live blocks", 0, "Blocks live at steady state, all threads.", false);
constexpr Metric kLiveBytes = workload_metric("live_requested_bytes", "bytes", "live MiB", 1,
                                              "Live requested bytes at the end of the churn, all threads (the heap after rounding).", false, true);
constexpr Metric kMeanLive = workload_metric("mean_live_size_bytes", "bytes", "mean live size B", 0, "Mean size of a live block.", false);
constexpr Metric kLeftOutRate = workload_metric("left_out_allocation_share", "fraction", "left-out allocs", 4,
                                                "Share of the profile's allocations whose size is above 1/8 of a thread's heap (left out).", false);
constexpr Metric kLeftOutBytes = workload_metric("left_out_live_bytes_share", "fraction", "left-out live bytes", 3,
                                                 "Share of the profile's live bytes in sizes above 1/8 of a thread's heap (left out).", false);
constexpr Metric kBuildCycles = workload_metric("build_cycles_per_malloc", "cycles", "build cycles/malloc", 0,
                                                "Raw cycles per allocation of the build (every live block once), all threads; not net of void.", false);
constexpr Metric kChurnCycles = workload_metric("churn_cycles_per_pair", "cycles", "churn cycles/pair", 0,
                                                "Raw cycles per malloc/free pair of the steady-state churn, all threads; not net of void.", false);

}  // namespace

extern const WorkloadEntry kFleetProfileEntry;
const WorkloadEntry kFleetProfileEntry{
    .name = "fleet-profile",
    .family = "fleet",
    .summary = "one of ten allocation profiles measured on a production fleet (size, rate, live count), scaled to a heap: "
               "build, then steady churn at each size's rate",
    .options = {&kFleetProfileOption, &kHeapOption, &kIterationsOption, &kAccessOption, &kSeedOption},
    .metrics = pair_cost_metrics_and({&kProfileIndex, &kHeap, &kProfileHeap, &kLiveBlocks, &kLiveBytes, &kMeanLive, &kLeftOutRate,
                                      &kLeftOutBytes, &kBuildCycles, &kChurnCycles}),
    .defaults = [](const AllocTestParams& preset) {
      return nlohmann::json{{"fleet_profile", 1}, {"heap_bytes", 0}, {"iterations_per_thread", preset.iterations_per_thread},
                            {"memory_access", to_string(MemoryAccess::write_read)}, {"seed", preset.seed}};
    },
    .check = check,
    .describe = describe,
    .run = run_fleet_profile_cell,
    .refusal = refusal,
    .label_params = label_params,
    .counts = true,
    .counts_prefix = "iterations_per_thread",
    .ages = true,
    .soaks = true,
};

}  // namespace allocstress
