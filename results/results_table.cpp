// Renders the Markdown summary: one table per workload from the aggregate entries, the
// simulated-cache table from mode "simulate" records, then what was not measured and warnings.
#include "results/results_table.hpp"

#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <vector>

#include "cells/workload_registry.hpp"
#include "workloads/cross_thread/cross_thread_params.hpp"
#include "workloads/lifetimes/lifetime_models.hpp"
#include "workloads/phases/phase_params.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;
using CellKey = std::tuple<std::string, std::string, unsigned>;  // workload, allocator, threads

std::string fmt(const Json& v, const char* format) {
  if (!v.is_number()) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v.get<double>());
  return buf;
}

std::string mib(const Json& bytes) { return fmt(bytes.is_number() ? Json(bytes.get<double>() / 1048576.0) : Json(), "%.1f"); }

// What the workload's parameters were: its registry entry describes them.
std::string params_line(const std::string& workload, const Json& plan) {
  const WorkloadEntry* e = find_workload(workload);
  const Json& params = plan.value("workload_params", Json::object()).value(workload, Json());
  return e != nullptr && params.is_object() ? e->describe(params) : "(parameters not recorded)";
}

const std::map<std::string, std::string>& workload_notes();

// A workload-specific column of the net-cost table: its header and its text for one cell
// (median aggregate of the cell, and the medians of every cell for cross-cell ratios).
struct ExtraColumn {
  const char* header;
  std::function<std::string(const CellKey& key, const Json& median, std::map<CellKey, std::map<std::string, const Json*>>& agg)> text;
};

// A median workload metric (workload_metrics block of the aggregate), formatted.
ExtraColumn metric_column(const char* header, const char* key, const char* format, double scale = 1.0) {
  return {header, [=](const CellKey&, const Json& med, auto&) {
            const Json v = med.value("workload_metrics", Json::object()).value(key, Json());
            return fmt(v.is_number() ? Json(v.get<double>() / scale) : Json(), format);
          }};
}

// xthread's blowup: its overhead ratio over alloc-test's at the same allocator and threads (the
// same stream with no remote frees, run in the same matrix).
ExtraColumn blowup_column() {
  return {"blowup vs alloc-test", [](const CellKey& key, const Json& med, auto& agg) {
            const auto ref = agg.find(CellKey{"alloc-test", std::get<1>(key), std::get<2>(key)});
            if (ref == agg.end() || ref->second.count("median") == 0) return std::string("n/a");
            const Json& a = ref->second["median"]->at("overhead_ratio");
            const Json& x = med.at("overhead_ratio");
            return a.is_number() && x.is_number() && a.get<double>() > 0 ? fmt(Json(x.get<double>() / a.get<double>()), "%.3f")
                                                                        : std::string("n/a");
          }};
}

const std::vector<ExtraColumn>& extra_columns(const std::string& workload) {
  static const std::map<std::string, std::vector<ExtraColumn>> columns = {
      {kXThreadWorkload, {metric_column("remote-free share", "remote_free_share", "%.3f"), blowup_column()}},
      {kLarsonWorkload, {metric_column("remote-free share", "remote_free_share", "%.3f")}},
      {kLifetimeWorkload,
       {metric_column("target live MiB", "target_live_bytes", "%.1f", 1048576.0),
        metric_column("mean live MiB", "achieved_mean_live_bytes", "%.1f", 1048576.0),
        metric_column("achieved/target", "achieved_over_target", "%.2f"), metric_column("lifetime CV", "lifetime_cv", "%.2f")}},
      {kPhaseRampWorkload,
       {metric_column("RSS/live at half", "rss_per_live_at_half", "%.2f"), metric_column("RSS/live at end", "rss_per_live_at_end", "%.2f")}},
      {kPhasePlateauWorkload,
       {metric_column("RSS/live after rise", "rss_per_live_after_rise", "%.2f"),
        metric_column("RSS growth in hold", "hold_rss_growth_share", "%.3f")}},
      {kPhasePeakWorkload,
       {metric_column("freed share", "freed_share", "%.2f"), metric_column("returned after drop", "returned_share_after_drop", "%.2f"),
        metric_column("returned after pause", "returned_share_after_pause", "%.2f"), metric_column("return ms", "return_ms", "%.0f"),
        metric_column("RSS/live after drop", "rss_after_drop_ratio", "%.2f"), metric_column("regrowth RSS", "regrowth_rss_ratio", "%.2f")}},
  };
  static const std::vector<ExtraColumn> none;
  const auto it = columns.find(workload);
  return it == columns.end() ? none : it->second;
}

// Rows of a workload measured net of the void baseline (alloc-test, replay, fitted and the
// workloads beyond the 2018 model that draw sizes), with the workload's extra columns.
void baseline_rows(std::ostringstream& md, const std::string& wanted, const std::vector<CellKey>& order,
                   std::map<CellKey, std::map<std::string, const Json*>>& agg) {
  const std::vector<ExtraColumn>& extra = extra_columns(wanted);
  md << "| allocator | threads | reps ok | net cycles/pair | CV | net ns/pair | raw cycles/pair | overhead ratio | peak RSS MiB | speed vs system |";
  for (const auto& c : extra) md << " " << c.header << " |";
  md << "\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
  for (std::size_t i = 0; i < extra.size(); ++i) md << "---:|";
  md << "\n";
  for (const auto& key : order) {
    const auto& [workload, allocator, threads] = key;
    if (workload != wanted) continue;
    const Json& med = *agg[key]["median"];
    const Json& cv = *agg[key]["cv"];
    const bool baseline = allocator == "void";
    md << "| " << allocator << (baseline ? " (baseline)" : "") << " | " << threads << " | " << med.at("repetitions_ok") << " | "
       << (baseline ? "0 (by definition)" : fmt(med["net_cycles_per_pair"], "%.1f")) << " | "
       << (baseline ? fmt(cv["cycles_per_pair"], "%.3f") : fmt(cv["net_cycles_per_pair"], "%.3f")) << " | "
       << (baseline ? "0" : fmt(med["net_ns_per_pair"], "%.2f")) << " | " << fmt(med["cycles_per_pair"], "%.1f") << " | "
       << (baseline ? "-" : fmt(med["overhead_ratio"], "%.3f")) << " | " << mib(med["peak_rss_bytes"]) << " | "
       << (baseline ? "-" : fmt(med["speed_vs_system"], "%.2f")) << " |";
    for (const auto& c : extra) md << " " << (baseline ? std::string("-") : c.text(key, med, agg)) << " |";
    md << "\n";
  }
  md << "\nnet = allocator minus the void baseline at the same threads, repetition and seed (medians over ok "
        "repetitions); CV = coefficient of variation of net cycles/pair (of raw cycles/pair for void); overhead ratio = "
        "(peak RSS - RSS before the first allocation) / peak live requested bytes; speed vs system > 1 = faster than glibc.\n";
  if (const auto note = workload_notes().find(wanted); note != workload_notes().end()) md << note->second << "\n";
}

// What the extra columns of a workload's table mean (printed under its table).
const std::map<std::string, std::string>& workload_notes() {
  static const std::map<std::string, std::string> notes = {
      {kXThreadWorkload,
       "remote-free share = frees done by a thread other than the allocating one / all frees (achieved); blowup vs alloc-test = "
       "this overhead ratio / alloc-test's at the same allocator and threads (the same stream with no remote frees); the void "
       "baseline runs the same queues and memory accesses."},
      {kLarsonWorkload,
       "remote-free share = frees of blocks another thread allocated (left in the slot array it passed on) / all frees; waits "
       "at the rotation barrier are not timed."},
      {kLifetimeWorkload,
       "target live = --live-bytes, met by Little's law (mean live = E[size x lifetime] per thread, lifetimes in allocations, cut "
       "at half the run); mean live = live requested bytes after each allocation, averaged over the second half of each "
       "thread's allocations (steady state) and summed over threads; lifetime CV = coefficient of variation of the model's "
       "lifetimes (pareto > exponential)."},
      {kPhaseRampWorkload,
       "RSS/live = RSS growth (RSS - RSS before the measured phase) / live requested bytes of all threads, at half way and at the "
       "end. Barrier waits at checkpoints are not timed; void has no RSS figures."},
      {kPhasePlateauWorkload,
       "RSS/live after rise = RSS growth / live bytes when the target is first reached; RSS growth in hold = (RSS growth at the "
       "end - after the rise) / after the rise: how much the footprint creeps while the live heap holds steady."},
      {kPhasePeakWorkload,
       "At the last peak and drop: freed share = 1 - live after the drop / live at the peak (what returning everything freed "
       "would give back); returned after drop / pause = (RSS at the peak - RSS then) / RSS growth at the peak, right after the "
       "drop and at the end of the untimed pause; return ms = time from the end of the drop until RSS came within 10% of its "
       "end-of-pause value (0: already back when the drop ended; n/a: less than 5% returned); RSS/live after drop = RSS growth / "
       "live bytes after the drop; regrowth RSS = RSS growth at the end / at the first peak. Pauses and barrier waits are not "
       "timed; void has no RSS figures."},
  };
  return notes;
}

// Allocator-induced false sharing: no void baseline (void hands every object the same buffer);
// the baseline is the same write loop on private cache-line-aligned objects in the same cell.
void false_sharing_rows(std::ostringstream& md, const std::string& workload, const std::vector<CellKey>& order,
                        std::map<CellKey, std::map<std::string, const Json*>>& agg) {
  md << "| allocator | threads | reps ok | shared lines (mean) | shared lines (max) | objects on shared lines | write slowdown | CV | "
        "write cycles/write | private cycles/write | alloc cycles/pair |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& key : order) {
    if (std::get<0>(key) != workload) continue;
    const Json& med = *agg[key]["median"];
    const Json none = Json::object();
    const Json& m = med.value("workload_metrics", none);
    const Json& cv = agg[key]["cv"]->value("workload_metrics", none);
    md << "| " << std::get<1>(key) << " | " << std::get<2>(key) << " | " << med.at("repetitions_ok") << " | "
       << fmt(m.value("shared_lines_mean", Json()), "%.1f") << " | " << fmt(m.value("shared_lines_max", Json()), "%.0f") << " | "
       << fmt(m.value("shared_object_share", Json()), "%.3f") << " | " << fmt(m.value("slowdown", Json()), "%.2f") << " | "
       << fmt(cv.value("slowdown", Json()), "%.3f") << " | " << fmt(m.value("write_cycles_per_write", Json()), "%.2f") << " | "
       << fmt(m.value("private_write_cycles_per_write", Json()), "%.2f") << " | " << fmt(m.value("alloc_cycles_per_pair", Json()), "%.1f")
       << " |\n";
  }
  md << "\nShared line = a cache line holding bytes of live objects of two or more threads (counted each round after the "
        "allocations). Write slowdown = cycles per write on the allocator's objects / on private cache-line-aligned objects "
        "of each thread, measured in the same cell, round by round (no void baseline: void hands every object one buffer); "
        "within a cell, slowdown and cycles per write are medians over rounds, then medians over repetitions here. Alloc "
        "cycles/pair are raw (passive: thread 0's hand-off included). Only cycle figures are per phase: wall time and rusage "
        "also cover the baseline and barrier waits. In-tree allocators are per-thread instances: they cannot share lines between threads.\n";
}

void structure_rows(std::ostringstream& md, const std::string& workload, const std::vector<CellKey>& order,
                    std::map<CellKey, std::map<std::string, const Json*>>& agg) {
  md << "| allocator | threads | reps ok | build cycles/node | search cycles/visit | CV | search vs system | line util | page util | overhead ratio | peak RSS MiB |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& key : order) {
    if (std::get<0>(key) != workload) continue;
    const Json& med = *agg[key]["median"];
    const Json& cv = *agg[key]["cv"];
    md << "| " << std::get<1>(key) << " | " << std::get<2>(key) << " | " << med.at("repetitions_ok") << " | "
       << fmt(med["build_cycles_per_node"], "%.1f") << " | " << fmt(med["search_cycles_per_visit"], "%.2f") << " | "
       << fmt(cv["search_cycles_per_visit"], "%.3f") << " | " << fmt(med["speed_vs_system"], "%.2f") << " | "
       << fmt(med["cache_line_utilisation"], "%.2f") << " | " << fmt(med["page_utilisation"], "%.2f") << " | "
       << fmt(med["overhead_ratio"], "%.3f") << " | " << mib(med["peak_rss_bytes"]) << " |\n";
  }
  md << "\nRaw figures (no void baseline: a structure cannot be built on void). build = insertions incl. interleaved "
        "blocks; search cycles/visit = search-phase cycles / nodes compared; line/page util = requested node bytes / bytes "
        "of the cache lines / pages the live nodes touch; search vs system > 1 = searches faster than on glibc.\n";
}

// Gleipnir-style: per workload x allocator, the search phase's simulated demand fetches and misses.
void simulation_rows(std::ostringstream& md, const Json& benchmarks, std::map<CellKey, std::map<std::string, const Json*>>& agg) {
  std::vector<const Json*> sims;
  for (const auto& e : benchmarks)
    if (e.value("mode", "") == "simulate" && e.value("run_type", "") == "iteration" && e.value("status", "") == "ok") sims.push_back(&e);
  if (sims.empty()) return;
  const Json& d1 = sims.front()->at("simulated_cache").at("d1");
  const Json& ll = sims.front()->at("simulated_cache").at("ll");
  md << "\n### Simulated caches, search phase only (callgrind; L1d " << d1.at("size").get<std::size_t>() / 1024 << " KiB "
     << d1.at("associativity") << "-way " << d1.at("line") << " B, LL " << ll.at("size").get<std::size_t>() / 1024 << " KiB "
     << ll.at("associativity") << "-way)\n\n"
     << "| workload | allocator | threads | demand fetches (data refs) | L1 misses | L1 miss rate | LL misses | search cycles/visit (real) | HW L1d read misses |\n"
     << "|---|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const Json* e : sims) {
    const Json& s = e->at("simulated_cache");
    const CellKey key{e->at("workload").get<std::string>(), e->at("allocator").get<std::string>(), e->at("threads").get<unsigned>()};
    const auto found = agg.find(key);
    const Json* med = found == agg.end() ? nullptr : found->second["median"];
    std::string hw = "n/a";
    for (const auto& t : benchmarks)  // first timing record of the cell says whether counters were there
      if (t.value("mode", "") == "timing" && t.value("run_type", "") == "iteration" && t.value("workload", "") == std::get<0>(key) &&
          t.value("allocator", "") == std::get<1>(key) && t.value("threads", 0u) == std::get<2>(key) && t.contains("hardware_cache_misses")) {
        const Json& h = t.at("hardware_cache_misses");
        hw = h.value("status", "") == "measured" ? fmt(h.at("values").value("l1d_read_misses", Json()), "%.0f") : "n/a";
        break;
      }
    md << "| " << std::get<0>(key) << " | " << std::get<1>(key) << " | " << std::get<2>(key) << " | " << s.at("data_refs") << " | "
       << s.at("d1_misses") << " | " << fmt(s.at("d1_miss_rate"), "%.4f") << " | " << s.at("ll_misses") << " | "
       << (med ? fmt((*med)["search_cycles_per_visit"], "%.2f") : "n/a") << " | " << hw << " |\n";
  }
  md << "\nDemand fetches = data reads + writes of the search loop as callgrind counts them; misses from its cache "
        "simulator with address randomisation off, after one uncollected warm-up search (identical on every run at one thread).  HW = perf_event_open hardware counters "
        "of the timing runs; n/a where the machine exposes no PMU (the reason is in each record).\n";
}

// One row per profile record: small-block latency percentiles, memory system calls, the memory
// breakdown at the end of the loop, blowup.
void profile_rows(std::ostringstream& md, const Json& benchmarks) {
  std::vector<const Json*> profiles;
  for (const auto& e : benchmarks)
    if (e.value("mode", "") == "profile" && e.value("run_type", "") == "iteration" && e.value("status", "") == "ok") profiles.push_back(&e);
  if (profiles.empty()) return;
  auto latency = [](const Json& p, const char* op, const char* address) {
    for (const auto& row : p.at("latency"))
      if (row.at("op") == op && row.at("size_class") == "small" && row.at("address") == address)
        return fmt(row.at("p50_ns"), "%.0f") + " / " + fmt(row.at("p99_ns"), "%.0f");
    return std::string("n/a");
  };
  auto value = [](const Json& figure, double scale, const char* format) {
    return figure.at("value").is_number() ? fmt(Json(figure.at("value").get<double>() / scale), format) : std::string("n/a");
  };
  md << "\n### Profile runs (alloc-test; mode profile, separate from the timing runs)\n\n"
     << "| allocator | threads | sampled | malloc new p50/p99 ns | malloc reused p50/p99 ns | free p50/p99 ns | mmap | munmap | madvise | mprotect | brk | "
        "allocated MiB | resident MiB | internal frag MiB | blowup |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const Json* e : profiles) {
    const Json& p = e->at("profile");
    const Json& calls = p.at("syscalls");
    auto count = [&](const char* name) {
      return calls.contains("counts") ? std::to_string(calls.at("counts").at(name).get<std::uint64_t>()) : std::string("n/a");
    };
    const Json& peak = p.at("memory").at("at_peak");
    md << "| " << e->at("allocator").get<std::string>() << " | " << e->at("threads") << " | "
       << fmt(Json(p.at("share_sampled").get<double>() * 100), "%.2f%%") << " | " << latency(p, "malloc", "new") << " | "
       << latency(p, "malloc", "reused") << " | " << latency(p, "free", "any") << " | " << count("mmap") << " | " << count("munmap")
       << " | " << count("madvise") << " | " << count("mprotect") << " | " << count("brk") << " | " << value(peak.at("allocator").at("allocated"), 1048576.0, "%.1f")
       << " | " << value(peak.at("allocator").at("resident"), 1048576.0, "%.1f") << " | "
       << value(peak.at("internal_fragmentation"), 1048576.0, "%.2f") << " | " << value(p.value("blowup", Json{{"value", nullptr}}), 1.0, "%.2f")
       << " |\n";
  }
  md << "\nLatency: small blocks (below the fingerprint's small bound), 1 in sample_every operations timed, the empty "
        "timer bracket subtracted, percentiles at the lower edge of log-linear buckets (within 6.25%). System calls: "
        "strace counts of the measured phase (exact). Memory at the end of the loop, all blocks live: allocated and "
        "resident as the allocator reports them (n/a where it has no API). Blowup: RSS growth per live byte at N threads "
        "over 1 thread.\n";
}

}  // namespace

std::string markdown_table(const Json& results) {
  const Json& ctx = results.at("context");
  const Json& plan = ctx.at("plan");
  const std::vector<std::string> workloads = plan.at("workloads").get<std::vector<std::string>>();
  std::string names;
  for (const auto& w : workloads) names += (names.empty() ? "" : ", ") + w;
  std::ostringstream md;
  md << "## allocstress: " << names << ", preset " << plan.at("preset").get<std::string>() << "\n\n"
     << "Machine: " << ctx.value("cpu_model", "?") << ", " << ctx.value("num_cpus", 0) << " PUs; THP "
     << ctx.value("thp_mode", "?") << "; " << ctx.value("date", "") << "; commit " << ctx.value("git_commit", "?") << "; "
     << plan.at("repetitions") << " repetitions, placement " << plan.at("placement").get<std::string>() << "\n";

  std::map<CellKey, std::map<std::string, const Json*>> agg;
  std::vector<CellKey> order;
  std::map<CellKey, std::vector<const Json*>> unmeasured;
  for (const auto& e : results.at("benchmarks")) {
    const CellKey key{e.at("workload").get<std::string>(), e.at("allocator").get<std::string>(), e.at("threads").get<unsigned>()};
    if (e.at("run_type") == "aggregate") {
      if (agg[key].empty()) order.push_back(key);
      agg[key][e.at("aggregate_name").get<std::string>()] = &e;
    } else if (e.at("status") != "ok") {
      unmeasured[key].push_back(&e);
    }
  }
  for (const auto& w : workloads) {
    md << "\n### " << w << "\n\nWorkload: " << params_line(w, plan) << "\n\n";
    const WorkloadEntry* entry = find_workload(w);
    const TableKind kind = entry != nullptr ? entry->table : TableKind::net_cost;
    if (kind == TableKind::net_cost) baseline_rows(md, w, order, agg);
    else if (kind == TableKind::false_sharing) false_sharing_rows(md, w, order, agg);
    else structure_rows(md, w, order, agg);
  }
  simulation_rows(md, results.at("benchmarks"), agg);
  profile_rows(md, results.at("benchmarks"));

  std::set<std::string> noted;
  for (const auto& [key, entries] : unmeasured) {
    const std::string reason = entries.front()->value("reason", "");
    const std::string line = "- " + std::get<1>(key) + " x " + std::get<0>(key) + " at " + std::to_string(std::get<2>(key)) +
                             " threads: " + std::to_string(entries.size()) + " cell(s) " +
                             entries.front()->at("status").get<std::string>() + ": " + reason;
    if (noted.insert(line).second) md << (noted.size() == 1 ? "\nNot measured:\n" : "") << line << "\n";
  }
  if (!ctx.at("warnings").empty()) {
    md << "\nWarnings:\n";
    for (const auto& w : ctx.at("warnings")) md << "- " << w.get<std::string>() << "\n";
  }
  return md.str();
}

}  // namespace allocstress
