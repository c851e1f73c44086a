// The rounds of adaptive repetitions (see adaptive_repetitions.hpp).
#include "run/adaptive_repetitions.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <set>

#include "cells/workload_registry.hpp"
#include "results/results_summary.hpp"

namespace allocstress {

namespace {

using CellId = RecordKey;  // a timing cell (cells/record_identity.hpp)

struct Precision {
  bool settled = false;
  std::string text;  // e.g. "+-7.3% (n=12)"
};

// Every (workload, allocator, threads) with at least one ok timing record, and whether it is
// settled; plus the next repetition index of each (workload, threads).
struct State {
  std::map<CellId, Precision> cells;
  std::map<std::pair<std::string, unsigned>, unsigned> next_repetition;
};

std::string id_workload(const nlohmann::json& aggregate) { return aggregate.at("workload").get<std::string>(); }

State current_state(const MatrixPlan& plan, const ResultsJournal& journal) {
  std::vector<nlohmann::json> records;
  State state;
  for (const auto& [key, r] : journal.records()) {
    records.push_back(r);
    if (!is_timing_record(r) || !r.contains("workload")) continue;
    unsigned& next = state.next_repetition[{r.at("workload").get<std::string>(), r.at("threads").get<unsigned>()}];
    next = std::max(next, r.value("repetition_index", 0u) + 1);
    if (r.value("status", "") == "ok") state.cells[record_key(r)] = {};  // unsettled unless aggregated below
  }
  attach_net_costs(records);
  for (const auto& e : aggregate_entries(records)) {
    if (e.at("aggregate_name") != "median") continue;
    const CellId id = record_key(e);
    const nlohmann::json& intervals = e.value("intervals", nlohmann::json::object());
    const bool net = intervals.contains("net_ns_per_pair");
    // The figure the verdict ranks by: the net cost, else the workload's headline (a program's
    // wall time; its peak RSS, first in key order, is nearly constant and would settle at once).
    const std::string headline = speed_metric(id_workload(e));
    const nlohmann::json& iv = net                          ? intervals.at("net_ns_per_pair")
                               : intervals.contains(headline) ? intervals.at(headline)
                               : intervals.empty()            ? nlohmann::json()
                                                              : intervals.begin().value();
    Precision p;
    p.settled = plan.target_ci <= 0;  // without a target only disturbed processes are replaced
    if (iv.is_object() && iv.at("relative_half_width").is_number()) {
      const double rel = iv.at("relative_half_width").get<double>(), half = (iv.at("high").get<double>() - iv.at("low").get<double>()) / 2;
      char text[80];
      std::snprintf(text, sizeof text, "+-%.1f%% (n=%zu)", 100 * rel, iv.at("n").get<std::size_t>());
      p.text = text;
      if (plan.target_ci > 0)
        p.settled = iv.at("n").get<unsigned>() >= kMinSettledProcesses && (rel <= plan.target_ci || (net && half <= kSettledHalfWidthNs));
    } else {
      p.text = "no interval yet";
    }
    if (e.at("repetitions_ok").get<unsigned>() < plan.repetitions && e.at("repetitions_disturbed").get<unsigned>() > 0)
      p.settled = false;  // disturbed processes to replace (failed ones are results: not chased)
    state.cells[id] = p;
  }
  return state;
}

}  // namespace

double steady_seconds() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::optional<nlohmann::json> run_adaptive_repetitions(const MatrixPlan& plan, const ResultsJournal& journal, double started_s,
                                                       double mean_cell_s, const RunCell& run_cell) {
  // Without a target the rounds only replace disturbed processes, at most one per planned repetition.
  const unsigned cap = plan.target_ci > 0 ? kMaxAdaptiveRepetitions : 2 * plan.repetitions;
  unsigned rounds = 0;
  std::size_t extra = 0;
  double spent_extra_s = 0;
  std::string stopped_by = plan.target_ci > 0 ? "every cell within the target" : "every disturbed process replaced";
  State state = current_state(plan, journal);
  for (;;) {
    // The round: per (threads, workload), the void baseline and the unsettled allocators.
    std::vector<MatrixCell> round;
    bool capped = false;
    for (unsigned t : plan.thread_counts)
      for (const auto& w : plan.workloads) {
        std::vector<const AllocatorSpec*> wide;
        for (const auto& a : plan.allocators) {
          const auto it = state.cells.find({w, a.name, t});
          if (a.name != kBaselineAllocator && it != state.cells.end() && !it->second.settled) wide.push_back(&a);
        }
        if (wide.empty()) continue;
        const unsigned rep = state.next_repetition[{w, t}];
        if (rep >= cap) {
          capped = true;
          continue;
        }
        for (const auto& a : plan.allocators)
          if (a.name == kBaselineAllocator && workload_entry(w).void_baseline && plan.skipped_pair(w, a.name) == nullptr)
            round.push_back(plan.timing_cell(w, a, t, rep));
        for (const AllocatorSpec* a : wide) round.push_back(plan.timing_cell(w, *a, t, rep));
      }
    // A process's figure depends a little on what ran just before it (the memory and caches the
    // previous process left): a fixed order would turn that into a bias of the later rounds, whose
    // make-up shrinks as cells settle.  A shuffled order (seeded: the same plan shuffles alike)
    // turns it into noise that the intervals see.
    std::mt19937_64 order(0x5eed0000u + rounds);
    std::shuffle(round.begin(), round.end(), order);
    if (round.empty()) {
      if (capped) stopped_by = "at most " + std::to_string(cap) + " repetitions";
      break;
    }
    const double per_cell = extra > 0 ? spent_extra_s / double(extra) : mean_cell_s;
    if (plan.time_budget_s > 0 && steady_seconds() - started_s + per_cell * double(round.size()) > plan.time_budget_s) {
      stopped_by = "time budget";
      break;
    }
    ++rounds;
    for (const auto& cell : round) {
      const std::optional<double> took = run_cell(cell);
      if (!took) return std::nullopt;
      spent_extra_s += *took;
      ++extra;
    }
    state = current_state(plan, journal);
  }
  nlohmann::json wider = nlohmann::json::array();
  for (const auto& [id, p] : state.cells)
    if (!p.settled && id.allocator != kBaselineAllocator) wider.push_back(record_name(id) + " " + p.text);
  if (plan.target_ci <= 0 && extra == 0) return nlohmann::json(nullptr);  // nothing was disturbed: nothing to say
  char line[200];
  std::snprintf(line, sizeof line, "adaptive repetitions: %u round(s), %zu more process(es); stopped: %s", rounds, extra, stopped_by.c_str());
  std::cerr << line;
  if (!wider.empty())
    std::cerr << "; " << wider.size() << " cell(s) still "
              << (plan.target_ci > 0 ? "wider than +-" + std::to_string(int(100 * plan.target_ci + 0.5)) + "%" : std::string("short of undisturbed processes"));
  std::cerr << "\n";
  return nlohmann::json{{"target_ci", plan.target_ci},  {"time_budget_s", plan.time_budget_s}, {"rounds", rounds},
                        {"extra_processes", extra},      {"stopped_by", stopped_by},          {"wider_than_target", wider},
                        {"settled_half_width_ns", kSettledHalfWidthNs}};
}

}  // namespace allocstress
