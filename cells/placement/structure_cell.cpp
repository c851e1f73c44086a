// The data-structure cells (bintree, linkedlist, multilist; the models: workloads/structures/) and
// their registry entries.  The measured phase per worker: build, churn and search, each timed;
// the record: cycles per node built, per node churned and per node visited; peak RSS and overhead
// as in alloc-test; placement metrics of the live nodes; hardware cache misses of the search
// phase where perf_event_open provides them (n/a with the reason otherwise).  Under callgrind
// (`--cache-sim`), the simulated caches see the search phase only.
#include "cells/workload_registry.hpp"

#include <unistd.h>
#include <valgrind/callgrind.h>

#include <optional>
#include <sstream>

#include "allocators/in_tree_registry.hpp"
#include "workloads/structures/bintree.hpp"
#include "workloads/structures/linked_list.hpp"
#include "workloads/structures/multilist.hpp"
#include "cells/cell_record.hpp"
#include "cells/params_json.hpp"
#include "cells/metrics/record_metrics.hpp"
#include "platform/profilers/perf_counters.hpp"
#include "cells/placement/placement_metrics.hpp"

namespace allocstress {

namespace {

struct StructureWorkerResult {
  StructureOutcome outcome;
  std::uint64_t build_cycles = 0, churn_cycles = 0, search_cycles = 0;
  std::vector<NodeExtent> nodes;  // live nodes after the search, for placement metrics
  nlohmann::json hardware;        // search-phase cache misses, or n/a
};

// One worker thread running structure S (BinTreeWorkload, ...) on allocator A.
template <Allocator A, template <class> class S>
class StructureWorker {
 public:
  StructureWorker(std::size_t index, const StructureParams& p, std::uint64_t seed, unsigned threads)
      : p_(p), rng_(make_thread_rng(seed, unsigned(index))), threads_(threads) {}

  std::string setup() {
    alloc_.emplace(std::size_t(std::max<std::uint64_t>(p_.node_size, 1024)));
    structure_.emplace(*alloc_, p_, rng_);
    if (!counters_.all_available()) result.hardware = {{"status", "n/a"}, {"reason", counters_.first_reason()}};
    return "";
  }

  void run() {
    const std::uint64_t c0 = cycle_counter_begin();
    const bool built = structure_->build();
    result.build_cycles = cycle_counter_end() - c0;
    if (!built) return;
    structure_->prepare_churn();
    const std::uint64_t c1 = cycle_counter_begin();
    const bool churned = structure_->churn();
    result.churn_cycles = cycle_counter_end() - c1;
    if (!churned) return;
    structure_->prepare_searches();
    // Under the cache simulator (started with --instr-atstart=no), simulation starts here with one
    // uncollected search, which leaves the simulated caches in a state fixed by the search
    // itself: what ran before (thread start-up, barrier spins whose length depends on timing)
    // never touches them.  Results are recomputed by the collected search.
    if (RUNNING_ON_VALGRIND) {
      CALLGRIND_START_INSTRUMENTATION;  // the simulated caches see only the searches (--instr-atstart=no)
      structure_->search();
    }
    counters_.start();
    CALLGRIND_TOGGLE_COLLECT;  // no-op unless running under callgrind --collect-atstart=no
    const std::uint64_t c2 = cycle_counter_begin();
    structure_->search();
    result.search_cycles = cycle_counter_end() - c2;
    CALLGRIND_TOGGLE_COLLECT;
    // Stopping is global: only a lone worker may do it (another could still be searching).
    if (RUNNING_ON_VALGRIND && threads_ == 1) CALLGRIND_STOP_INSTRUMENTATION;
    counters_.stop();
    if (counters_.all_available()) result.hardware = {{"status", "measured"}, {"values", counters_.values()}};
  }

  void inspect() {
    const StructureOutcome& o = structure_->outcome();
    if (o.failed_allocation_bytes == 0) structure_->verify();
    result.nodes.reserve(std::size_t(structure_->outcome().live_nodes));
    structure_->for_each_node([&](const void* p, std::size_t bytes) { result.nodes.push_back({reinterpret_cast<std::uintptr_t>(p), bytes}); });
  }

  void release() {
    result.outcome = structure_->outcome();
    structure_->release();
  }

  StructureWorkerResult result;

 private:
  const StructureParams& p_;
  WorkloadRng rng_;
  unsigned threads_;
  std::optional<A> alloc_;  // destroyed after the structure (members destroy in reverse order)
  std::optional<S<A>> structure_;
  ThreadCounters counters_{cache_miss_events()};
};

template <template <class> class S>
PhaseMeasurement measure(const Cell& cell, const StructureParams& params, const AllocatorSpec& allocator, const Topology& topology,
                         const std::vector<unsigned>& pus, std::vector<StructureWorkerResult>& results) {
  PhaseHooks hooks;
  hooks.inline_single_worker = RUNNING_ON_VALGRIND != 0;  // the cache simulator: no second thread
  return visit_allocator_type(allocator.name, [&]<class A>() {
    return run_measured_phase<StructureWorker<A, S>>(
        topology, pus, hooks,
        [&](std::size_t i, StructureWorker<A, S>& w) { results[i] = std::move(w.result); }, params,
        count_field(cell.params, "seed"), cell.threads);
  });
}

// Sum of one field over workers; per-thread counters in a combined record.
nlohmann::json hardware_total(const std::vector<StructureWorkerResult>& results) {
  nlohmann::json total = nlohmann::json::object();
  for (const auto& r : results) {
    if (r.hardware.value("status", "") != "measured") return r.hardware;  // n/a with the first reason
    for (const auto& [name, v] : r.hardware.at("values").items())
      total[name] = v.is_number() && (!total.contains(name) || total[name].is_number())
                        ? nlohmann::json(total.value(name, std::uint64_t{0}) + v.get<std::uint64_t>())
                        : nlohmann::json(nullptr);
  }
  return {{"status", "measured"}, {"phase", "search"}, {"values", total}};
}

// The parameters of `workload` as JSON: {"nodes", "node_size", "searches", "interleave",
// "churn_percent", "hints", "seed"}, plus "heads" and "zipf" for multilist.
nlohmann::json to_json(std::string_view workload, const StructureParams& s, std::uint64_t seed) {
  nlohmann::json j = {{"nodes", s.nodes},           {"node_size", s.node_size},         {"searches", s.searches},
                      {"interleave", s.interleave}, {"churn_percent", s.churn_percent}, {"hints", s.hints},
                      {"seed", seed}};
  if (workload == kMultiListWorkload) {
    j["heads"] = s.heads;
    j["zipf"] = s.zipf;
  }
  return j;
}

StructureParams structure_params(std::string_view workload, const nlohmann::json& j) {
  StructureParams s = default_structure_params(workload);
  s.nodes = count_field(j, "nodes");
  s.node_size = count_field(j, "node_size");
  s.searches = count_field(j, "searches");
  s.interleave = small_count_field(j, "interleave");
  s.churn_percent = small_count_field(j, "churn_percent");
  s.hints = flag_field(j, "hints");
  if (workload == kMultiListWorkload) {
    s.heads = count_field(j, "heads");
    s.zipf = number_field(j, "zipf");
  }
  return s;
}

template <const char* Workload>
nlohmann::json defaults(const AllocTestParams& preset) {
  return to_json(Workload, default_structure_params(Workload), preset.seed);
}

template <const char* Workload>
void check(const nlohmann::json& params, unsigned) {
  count_field(params, "seed");
  validate(Workload, structure_params(Workload, params));
}

std::string describe(const nlohmann::json& p) {
  std::ostringstream s;
  s << p.at("nodes") << " nodes of " << p.at("node_size") << " B, " << p.at("searches") << " searches/thread, interleave "
    << p.at("interleave") << ", churn " << p.at("churn_percent") << "%, hints " << (p.at("hints").get<bool>() ? "on" : "off");
  if (p.contains("heads")) s << ", " << p.at("heads") << " heads, zipf " << p.at("zipf");
  s << ", seed " << p.at("seed");
  return s.str();
}


// One structure cell: its workers build, churn and search structure S.
template <template <class> class S>
nlohmann::json run_structure_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology,
                                  const std::vector<unsigned>& pus) {
  std::vector<StructureWorkerResult> results(pus.size());
  const PhaseMeasurement m = measure<S>(cell, structure_params(cell.workload, cell.params), allocator, topology, pus, results);
  StructureOutcome total;
  std::uint64_t build = 0, churn = 0, search = 0, hash = 0;
  std::vector<NodeExtent> nodes;
  std::string failure = setup_failure(m);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const StructureWorkerResult& r = results[i];
    const StructureOutcome& o = r.outcome;
    total.nodes_built += o.nodes_built;
    total.interleaved_blocks += o.interleaved_blocks;
    total.nodes_churned += o.nodes_churned;
    total.searches += o.searches;
    total.found += o.found;
    total.visits += o.visits;
    total.live_nodes += o.live_nodes;
    total.peak_live_requested_bytes += o.peak_live_requested_bytes;
    total.end_live_requested_bytes += o.end_live_requested_bytes;
    hash = (hash ^ o.op_stream_hash) * 0x100000001b3ULL;
    build += r.build_cycles;
    churn += r.churn_cycles;
    search += r.search_cycles;
    nodes.insert(nodes.end(), r.nodes.begin(), r.nodes.end());
    const std::string who = " (worker " + std::to_string(i) + ")";
    if (failure.empty() && o.failed_allocation_bytes != 0)
      failure = "allocation of " + std::to_string(o.failed_allocation_bytes) + " bytes returned nullptr" + who;
    if (failure.empty() && !o.verify_error.empty()) failure = "verification failed: " + o.verify_error + who;
  }
  const double hz = measured_tsc_hz(m);
  auto per = [](std::uint64_t cycles, std::uint64_t count) { return count > 0 ? double(cycles) / double(count) : 0.0; };
  auto ns = [&](double cycles) { return hz > 0 ? cycles / hz * 1e9 : 0.0; };
  const double visit_cycles = per(search, total.visits);

  nlohmann::json rec = base_record(cell, allocator, pus, m, failure);
  rec.update({// Google-Benchmark-compatible timing fields: one "iteration" = one node visited by a search.
              {"iterations", total.visits},
              {"real_time", ns(visit_cycles)},
              {"cpu_time", total.visits > 0 ? double(m.usage.user_time_ns + m.usage.system_time_ns) / double(total.visits) : 0.0},
              {"cycles_total", build + churn + search},
              {"build_cycles", build},
              {"churn_cycles", churn},
              {"search_cycles", search},
              {"build_cycles_per_node", per(build, total.nodes_built)},
              {"churn_cycles_per_node", total.nodes_churned > 0 ? nlohmann::json(per(churn, total.nodes_churned)) : nlohmann::json(nullptr)},
              {"search_cycles_per_visit", visit_cycles},
              {"build_ns_per_node", ns(per(build, total.nodes_built))},
              {"search_ns_per_visit", ns(visit_cycles)},
              {"nodes_built", total.nodes_built},
              {"interleaved_blocks", total.interleaved_blocks},
              {"nodes_churned", total.nodes_churned},
              {"searches", total.searches},
              {"found", total.found},
              {"visits", total.visits},
              {"live_nodes", total.live_nodes},
              {"peak_live_requested_bytes", total.peak_live_requested_bytes},
              {"end_live_requested_bytes", total.end_live_requested_bytes},
              {"op_stream_hash", hex64(hash)},
              {"verified", failure.empty()},
              {"placement_metrics", placement_metrics(std::move(nodes), l1_data_cache(), std::size_t(sysconf(_SC_PAGESIZE)))},
              {"hardware_cache_misses", hardware_total(results)}});
  rec.update(memory_overhead(m, total.peak_live_requested_bytes, allocator));
  return rec;
}


constexpr Metric kBuildCycles{.name = "build_cycles_per_node", .place = MetricPlace::record, .unit = "TSC cycles",
                              .label = "build cycles/node", .decimals = 1,
                              .definition = "Build-phase cycles per node inserted (insertion walk, allocation, payload write, "
                                            "interleaved blocks).",
                              .in_table = true};
constexpr Metric kSearchCycles{.name = "search_cycles_per_visit", .place = MetricPlace::record, .unit = "TSC cycles",
                               .label = "search cycles/visit", .decimals = 2,
                               .definition = "Search-phase cycles per node compared: the cost of walking the nodes where the "
                                             "allocator placed them.  Raw: a structure cannot be built on void.",
                               .headline = true, .in_table = true};
constexpr Metric kChurnCycles{.name = "churn_cycles_per_node", .place = MetricPlace::record, .unit = "TSC cycles",
                              .label = "churn cycles/node", .decimals = 1,
                              .definition = "Churn-phase cycles per node deleted and re-inserted; null without churn."};
constexpr Metric kLineUtilisation{.name = "cache_line_utilisation", .place = MetricPlace::placement_metrics, .unit = "fraction",
                                  .label = "line util", .decimals = 2,
                                  .definition = "Requested node bytes / bytes of the distinct cache lines the live nodes touch.",
                                  .in_table = true};
constexpr Metric kPageUtilisation{.name = "page_utilisation", .place = MetricPlace::placement_metrics, .unit = "fraction",
                                  .label = "page util", .decimals = 2,
                                  .definition = "Requested node bytes / bytes of the distinct pages the live nodes touch.",
                                  .in_table = true};
constexpr Metric kSetHistogram{.name = "set_histogram_max_over_mean", .place = MetricPlace::placement_metrics, .unit = "ratio",
                               .label = "L1 set max/mean", .decimals = 2,
                               .definition = "The fullest L1 set's node count / the mean count per set (1 = even)."};

const WorkloadOption kNodesOption{"--nodes", "nodes", OptionKind::count, "Nodes per thread (multilist: sub-list nodes)", kStructureGroup};
const WorkloadOption kNodeSizeOption{"--node-size", "node_size", OptionKind::count, "Bytes per node, a multiple of 8", kStructureGroup};
const WorkloadOption kSearchesOption{"--searches", "searches", OptionKind::count, "Queries per thread", kStructureGroup};
const WorkloadOption kInterleaveOption{"--interleave", "interleave", OptionKind::count,
                                       "Other-sized live blocks allocated after each node (0..64)", kStructureGroup};
const WorkloadOption kChurnOption{"--churn", "churn_percent", OptionKind::count,
                                  "Percent of the nodes deleted and re-inserted before searching", kStructureGroup};
const WorkloadOption kHintsOption{"--hints", "hints", OptionKind::flag, "Pass hot/cold placement hints to the allocator", kStructureGroup};
const WorkloadOption kHeadsOption{"--heads", "heads", OptionKind::count, "multilist: head nodes", kStructureGroup};
const WorkloadOption kZipfOption{"--zipf", "zipf", OptionKind::number, "multilist: key1 popularity ~ 1/rank^ZIPF (0..10, 0 = uniform)",
                                 kStructureGroup};

const std::vector<const WorkloadOption*> kListOptions = {&kNodesOption, &kNodeSizeOption, &kSearchesOption, &kInterleaveOption,
                                                         &kChurnOption, &kHintsOption, &kSeedOption};

// One entry per structure; they differ in name, model and defaults.
template <const char* Workload, template <class> class S>
WorkloadEntry structure_entry(std::string_view summary, std::vector<const WorkloadOption*> options) {
  return {.name = Workload,
          .family = "structures",
          .summary = summary,
          .void_baseline = false,
          .void_refusal = "void returns one buffer for every block, so no structure can be built (structure figures are raw: "
                          "no baseline is subtracted)",
          .table = TableKind::structure,
          .options = std::move(options),
          .metrics = {&kBuildCycles, &kSearchCycles, &kChurnCycles, &kLineUtilisation, &kPageUtilisation, &kSetHistogram, &kOverheadRatio,
                      &kPeakRss},
          .defaults = defaults<Workload>,
          .check = check<Workload>,
          .describe = describe,
          .run = run_structure_cell<S>,
          .simulates_caches = true};
}

constexpr char kBinTree[] = "bintree", kLinkedList[] = "linkedlist", kMultiList[] = "multilist";

}  // namespace

extern const WorkloadEntry kBinTreeEntry, kLinkedListEntry, kMultiListEntry;
const WorkloadEntry kBinTreeEntry = structure_entry<kBinTree, BinTreeWorkload>(
    "an unbalanced binary search tree: build, churn, then search it (cycles per node visited)", kListOptions);
const WorkloadEntry kLinkedListEntry = structure_entry<kLinkedList, LinkedListWorkload>(
    "a singly linked list searched from its head (the worst case for scattered nodes)", kListOptions);
const WorkloadEntry kMultiListEntry = structure_entry<kMultiList, MultiListWorkload>(
    "head nodes each owning a sub-list, keys chosen by a Zipf law", [] {
      std::vector<const WorkloadOption*> o = kListOptions;
      o.insert(o.end() - 1, {&kHeadsOption, &kZipfOption});
      return o;
    }());

}  // namespace allocstress
