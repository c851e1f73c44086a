// The Markdown summary's tables of the cells that are not timing runs: the Gleipnir-style
// simulated-cache table (mode "simulate") and the profile table (mode "profile").
#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>
#include <utility>

#include "cells/workload_registry.hpp"
#include "results/fit_evaluation.hpp"
#include "results/results_summary.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

std::string fmt(const Json& v, const char* format) {
  if (!v.is_number()) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v.get<double>());
  return buf;
}

// One latency percentile of a profile row: "< R" where it is below the counter's resolution R ns.
std::string latency_figure(const Json& row, const char* key) {
  const Json& below = row.value("below_resolution", Json::array());
  if (std::find(below.begin(), below.end(), Json(key)) != below.end()) return "< " + fmt(row.at("resolution_ns"), "%.0f");
  return fmt(row.at(key), "%.0f");
}

}  // namespace

// Gleipnir-style: per workload x allocator, the search phase's simulated demand fetches and misses.
void simulation_table(std::ostringstream& md, const Json& benchmarks, const Aggregates& agg) {
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
    const Json* med = agg.get(key, "median");
    std::string hw = "n/a";
    for (const auto& t : benchmarks)  // first timing record of the cell says whether counters were there
      if (t.value("mode", "") == "timing" && t.value("run_type", "") == "iteration" && t.value("workload", "") == key.workload &&
          t.value("allocator", "") == key.allocator && t.value("threads", 0u) == key.threads && t.contains("hardware_cache_misses")) {
        const Json& h = t.at("hardware_cache_misses");
        hw = h.value("status", "") == "measured" ? fmt(h.at("values").value("l1d_read_misses", Json()), "%.0f") : "n/a";
        break;
      }
    md << "| " << key.workload << " | " << key.allocator << " | " << key.threads << " | " << s.at("data_refs") << " | "
       << s.at("d1_misses") << " | " << fmt(s.at("d1_miss_rate"), "%.4f") << " | " << s.at("ll_misses") << " | "
       << (med ? fmt((*med)["search_cycles_per_visit"], "%.2f") : "n/a") << " | " << hw << " |\n";
  }
  md << "\nDemand fetches = data reads + writes of the search loop as callgrind counts them; misses from its cache "
        "simulator with address randomisation off, after one uncollected warm-up search (identical on every run at one thread).  HW = perf_event_open hardware counters "
        "of the timing runs; n/a where the machine exposes no PMU (the reason is in each record).\n";
}

// A kernel-events figure of a counts block, per 1,000 pairs (a few faults per thousand pairs is
// already a cost the clock sees), or n/a (none counted: no strace, or an older record).
static std::string kernel_event_cell(const Json& counts, const char* field) {
  const Json& k = counts.value("kernel_events", Json::object());
  return k.contains(field) && k.at(field).is_number() ? fixed(Json(k.at(field).get<double>() * 1000), 2) : std::string("n/a");
}

// The counts tier of a real program: one run of it per allocator, whole figures (a program has no
// void baseline and no pairs), cheapest estimated cycles first; the kernel's events beside them.
static void program_counts_table(std::ostringstream& md, const std::string& workload, std::vector<const Json*> rows) {
  auto total = [](const Json* e) { return e->at("counts").value("estimated_cycles", Json()); };
  std::stable_sort(rows.begin(), rows.end(), [&](const Json* a, const Json* b) {
    const Json x = total(a), y = total(b);
    return x.is_number() && (!y.is_number() || x.get<double>() < y.get<double>());
  });
  const Json& c0 = rows.front()->at("counts");
  md << "\n### Counts tier: " << workload << " (near-exact; " << c0.at("provenance").get<std::string>()
     << ", one run of the program, every process)\n\n"
     << "| rank | allocator | est. cycles (M) | user part (M) | kernel part (M) | instructions (M) | in allocator calls (M) | D1 misses (k) "
        "| LL misses (k) | faults | memory syscalls | other syscalls |\n"
     << "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  auto in = [](const Json& v, double unit, int decimals) { return v.is_number() ? fixed(Json(v.get<double>() / unit), decimals) : fixed(v, decimals); };
  unsigned rank = 0;
  for (const Json* e : rows) {
    const Json& c = e->at("counts");
    const Json& k = c.value("kernel_events", Json::object());
    const Json& calls = k.value("syscalls", Json::object());
    const bool counted = k.value("minor_faults", Json()).is_number();
    const double other = calls.value("other", 0.0);
    md << "| " << ++rank << " | " << e->at("allocator").get<std::string>() << " | " << in(total(e), 1e6, 1) << " | "
       << in(c.value("estimated_user_cycles", Json()), 1e6, 1) << " | " << in(c.value("estimated_kernel_cycles", Json()), 1e6, 1) << " | "
       << in(c.value("instructions", Json()), 1e6, 1) << " | " << in(c.value("allocator_calls", Json::object()).value("instructions", Json()), 1e6, 2)
       << " | " << in(c.value("d1_misses", Json()), 1e3, 1) << " | " << in(c.value("ll_misses", Json()), 1e3, 1) << " | "
       << (counted ? fixed(k.at("minor_faults"), 0) : "n/a") << " | "
       << (counted ? fixed(Json(k.value("syscalls_total", 0.0) - other), 0) : "n/a") << " | " << (counted ? fixed(Json(other), 0) : "n/a") << " |\n";
  }
  md << "\nEstimated cycles (" << c0.value("cost_model", std::string("cost model not recorded")) << ") = user part + kernel part: "
     << c0.at("estimated_cycles_formula").get<std::string>()
     << (c0.value("kernel_cycles_na", Json()).is_string() ? " (kernel part n/a: " + c0.at("kernel_cycles_na").get<std::string>() + ")" : std::string())
     << ". M = millions, k = thousands. The user part: the program once under callgrind, every process of its tree summed; in allocator calls: the instructions "
        "inside its calls to the allocator. Faults (the whole tree's) and system calls (memory calls: mmap, munmap, mremap, madvise, brk, "
        "mprotect, futex; other: the rest, priced as a bare call): two native runs of the program in the same world "
        "(counts.kernel_events). Whole-run figures, not net of anything: they include the program's own start-up and work. "
        "Near-exact: each record's counts.reproducibility says how far a figure moved between runs.\n";
}

// The counts tier, one table per workload and thread count: every allocator's counts cell,
// cheapest estimated cycles first, net of void; at N threads each worker's instructions in
// allocator calls; then how its order compares with the timing tier's at the same thread count.
void counts_table(std::ostringstream& md, const Json& benchmarks, const Aggregates& agg) {
  std::map<std::pair<std::string, unsigned>, std::vector<const Json*>> by_cell;
  std::vector<std::pair<std::string, unsigned>> order;
  for (const auto& e : benchmarks)
    if (is_ok_counts_record(e)) {
      const std::pair<std::string, unsigned> key{e.at("workload").get<std::string>(), e.at("threads").get<unsigned>()};
      if (by_cell[key].empty()) order.push_back(key);
      by_cell[key].push_back(&e);
    }
  for (const auto& [w, threads] : order) {
    std::vector<const Json*> rows = by_cell[{w, threads}];
    if (is_program_workload(w)) {
      program_counts_table(md, w, rows);
      continue;
    }
    auto net = [](const Json* e) { return e->at("counts").value("net_estimated_cycles_per_unit", Json()); };
    std::stable_sort(rows.begin(), rows.end(), [&](const Json* a, const Json* b) {
      const bool va = a->at("allocator") == kBaselineAllocator, vb = b->at("allocator") == kBaselineAllocator;
      if (va != vb) return va;  // the baseline first
      const Json x = net(a), y = net(b);
      return x.is_number() && (!y.is_number() || x.get<double>() < y.get<double>());
    });
    const Json& c0 = rows.front()->at("counts");
    md << "\n### Counts tier: " << w << " (" << (threads == 1 ? "deterministic" : "near-exact") << "; "
       << c0.at("provenance").get<std::string>() << ", " << threads << (threads == 1 ? " thread, " : " threads, ")
       << fixed(Json(c0.at("units").get<double>() * 2), 0) << " operations)\n\n"
       << "| rank | allocator | est. cycles/pair (net) | user part | kernel part | instructions/pair (net) | in allocator calls/pair "
          "| D1 misses/pair (net) | LL misses/pair (net) | faults/1k pairs | memory syscalls/1k pairs |\n"
       << "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    std::vector<double> counted, timed;
    std::vector<std::pair<double, double>> timed_intervals;  // the interval of each timed median
    std::vector<std::string> per_worker;
    unsigned rank = 0;
    for (const Json* e : rows) {
      const Json& c = e->at("counts");
      const std::string allocator = e->at("allocator").get<std::string>();
      const bool baseline = allocator == kBaselineAllocator;
      md << "| " << (baseline ? std::string("-") : std::to_string(++rank)) << " | " << allocator
         << (baseline ? " (baseline)" : "") << " | " << fixed(c.value("net_estimated_cycles_per_unit", Json()), 1) << " | "
         << fixed(c.value("net_estimated_user_cycles_per_unit", Json()), 1) << " | " << fixed(c.value("net_estimated_kernel_cycles_per_unit", Json()), 1)
         << " | " << fixed(c.value("net_instructions_per_unit", Json()), 1) << " | "
         << fixed(c.at("allocator_calls").value("instructions_per_unit", Json()), 1) << " | "
         << fixed(c.value("net_d1_misses_per_unit", Json()), 3) << " | " << fixed(c.value("net_ll_misses_per_unit", Json()), 3) << " | "
         << kernel_event_cell(c, "minor_faults_per_unit") << " | " << kernel_event_cell(c, "syscalls_total_per_unit") << " |\n";
      if (!baseline && c.contains("per_worker")) {  // drop-ins only: in-tree backends make no allocator calls
        std::string figures;
        bool any = false;
        for (const Json& worker : c.at("per_worker")) {
          const Json& v = worker.at("allocator_calls").value("instructions_per_unit", Json());
          any = any || v.is_number();
          figures += (figures.empty() ? "" : " / ") + fixed(v, 1);
        }
        if (any) per_worker.push_back(allocator + " " + figures);
      }
      const Json* med = agg.get(CellKey{w, allocator, threads}, "median");
      if (!baseline && net(e).is_number() && med != nullptr && med->value("net_cycles_per_pair", Json()).is_number()) {
        counted.push_back(net(e).get<double>());
        timed.push_back(med->at("net_cycles_per_pair").get<double>());
        const Json& iv = med->value("intervals", Json::object()).value("net_cycles_per_pair", Json());
        timed_intervals.push_back(iv.is_object() && iv.value("low", Json()).is_number() && iv.value("high", Json()).is_number()
                                      ? std::pair{iv.at("low").get<double>(), iv.at("high").get<double>()}
                                      : std::pair{timed.back(), timed.back()});
      }
    }
    const std::optional<double> rho = spearman_rho(counted, timed);
    // Where the timing tier can tell two allocators apart (their intervals do not overlap), does
    // the counts tier order them the same way?  Inside a group of indistinguishable allocators
    // the clock's order is its noise, and rho counts it.
    std::size_t separated = 0, same_order = 0;
    for (std::size_t i = 0; i < counted.size(); ++i)
      for (std::size_t j = i + 1; j < counted.size(); ++j) {
        const auto& [a_low, a_high] = timed_intervals[i];
        const auto& [b_low, b_high] = timed_intervals[j];
        if (!(a_high < b_low || b_high < a_low)) continue;
        ++separated;
        same_order += (counted[i] < counted[j]) == (timed[i] < timed[j]);
      }
    md << "\nEstimated cycles (" << c0.value("cost_model", std::string("cost model not recorded")) << ") = user part + kernel part: "
       << c0.at("estimated_cycles_formula").get<std::string>()
       << "; the user part from callgrind's simulated caches with this machine's L1d and last-level geometry"
       << (c0.value("kernel_cycles_na", Json()).is_string() ? " (kernel part n/a: " + c0.at("kernel_cycles_na").get<std::string>() + ")" : std::string())
       << "; net = this allocator's figure minus "
          "void's for the same op stream. In allocator calls: instructions inside the workload's calls to the allocator (its library "
          "and whatever it calls), no subtraction (n/a for in-tree backends, which are inlined). "
       << (threads == 1 ? "Identical on every run" : "Waits for other threads are left out; valgrind runs the workers one at a time, "
                                                     "and their interleaving can move a figure by a few percent between runs")
       << ": rank by these when the timing tier's intervals overlap. Faults and memory syscalls (mmap, munmap, mremap, madvise, brk, "
          "mprotect, futex): the kernel's work for the same op stream, counted in a native run of the same cell (counts.kernel_events), "
          "not net of void; the kernel part prices them"
       << (threads == 1 ? "." : "; at N threads they vary with the threads' interleaving.");
    if (!per_worker.empty()) {
      md << " Per worker, instructions in allocator calls per pair of its own: ";
      for (std::size_t i = 0; i < per_worker.size(); ++i) md << (i == 0 ? "" : "; ") << per_worker[i];
      md << ".";
    }
    md << " Rank agreement with the timing tier's median net cycles/pair at " << threads << (threads == 1 ? " thread: " : " threads: ")
       << (rho ? "Spearman rho " + fixed(Json(*rho), 2) + " over " + std::to_string(counted.size()) + " allocators" : std::string("n/a (fewer than 3 allocators in both)"))
       << (separated > 0 ? "; of the " + std::to_string(separated) + " pairs the timing tier separates (intervals apart), " + std::to_string(same_order) +
                                " in the same order"
                          : std::string())
       << ".\n";
  }
}

// One row per profile record: small-block latency percentiles, memory system calls, the memory
// breakdown at the end of the loop, blowup.
void profile_table(std::ostringstream& md, const Json& benchmarks) {
  std::vector<const Json*> profiles;
  for (const auto& e : benchmarks)
    if (e.value("mode", "") == "profile" && e.value("run_type", "") == "iteration" && e.value("status", "") == "ok") profiles.push_back(&e);
  if (profiles.empty()) return;
  auto latency = [](const Json& p, const char* op, const char* address) {
    for (const auto& row : p.at("latency"))
      if (row.at("op") == op && row.at("size_class") == "small" && row.at("address") == address)
        return latency_figure(row, "p50_ns") + " / " + latency_figure(row, "p99_ns");
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
        "timer bracket subtracted, percentiles at the lower edge of log-linear buckets (within 6.25%), \"< R\" below the "
        "cycle counter's resolution R ns. System calls: "
        "strace counts of the measured phase (exact). Memory at the end of the loop, all blocks live: allocated and "
        "resident as the allocator reports them (n/a where it has no API). Blowup: RSS growth per live byte at N threads "
        "over 1 thread.\n";
}

}  // namespace allocstress::table_parts
