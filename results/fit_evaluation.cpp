// Replay-versus-fitted comparison (see fit_evaluation.hpp).
#include "results/fit_evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>
#include <stdexcept>

#include "cells/record_identity.hpp"
#include "platform/rank_correlation.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;

struct Medians {
  std::optional<double> net_per_op, overhead;
  std::string missing;  // why there is no median: every process failed or was disturbed
};

// allocator -> medians of the workload's timing cells (the first thread count found).  An allocator
// with process records but no median entry (none ok and undisturbed) is kept with its reason.
std::map<std::string, Medians> medians_of(const Json& results, const std::string& workload) {
  std::map<std::string, Medians> out;
  auto of_workload = [&](const Json& b) {
    return b.value("workload", "") == workload && b.value("mode", "timing") == "timing" && b.value("allocator", "") != kBaselineAllocator;
  };
  for (const auto& b : results.at("benchmarks")) {
    if (b.value("run_type", "") != "aggregate" || b.value("aggregate_name", "") != "median" || !of_workload(b)) continue;
    Medians m;
    if (b.contains("net_cycles_per_pair") && b["net_cycles_per_pair"].is_number()) m.net_per_op = b["net_cycles_per_pair"].get<double>() / 2;
    if (b.contains("overhead_ratio") && b["overhead_ratio"].is_number()) m.overhead = b["overhead_ratio"].get<double>();
    out.emplace(b.at("allocator").get<std::string>(), m);
  }
  for (const auto& b : results.at("benchmarks")) {
    if (b.value("run_type", "") != "iteration" || !of_workload(b) || out.count(b.at("allocator").get<std::string>())) continue;
    Medians m;
    m.missing = workload + ": no ok, undisturbed repetition (e.g. " +
                (b.value("status", "") != "ok" ? b.value("status", "") + ": " + b.value("reason", std::string())
                                               : std::string("disturbed")) + ")";
    out.emplace(b.at("allocator").get<std::string>(), m);
  }
  if (out.empty()) throw std::runtime_error("no record of workload " + workload + " (other than void) in the results");
  return out;
}

std::string fixed(const std::optional<double>& v, const char* format) {
  if (!v) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

std::string rank_text(const std::optional<unsigned>& r) { return r ? std::to_string(*r) : "n/a"; }

// Rank columns and agreement for one metric (speed or memory) over the rows that have both values.
void rank_metric(FitComparison& c, std::optional<double> FitComparisonRow::*replay, std::optional<double> FitComparisonRow::*fitted,
                 std::optional<unsigned> FitComparisonRow::*replay_rank, std::optional<unsigned> FitComparisonRow::*fitted_rank,
                 std::optional<double>& rho, std::optional<double>& tau) {
  std::vector<FitComparisonRow*> rows;
  std::vector<double> a, b;
  for (auto& r : c.rows)
    if (r.*replay && r.*fitted) {
      rows.push_back(&r);
      a.push_back(*(r.*replay));
      b.push_back(*(r.*fitted));
    }
  const std::vector<double> ra = average_ranks(a), rb = average_ranks(b);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    rows[i]->*replay_rank = unsigned(std::lround(std::floor(ra[i])));
    rows[i]->*fitted_rank = unsigned(std::lround(std::floor(rb[i])));
  }
  rho = spearman_rho(a, b);
  tau = kendall_tau_b(a, b);
}

}  // namespace

std::optional<double> spearman_rho(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 3) return std::nullopt;  // the fit comparison reads rho from 3 allocators on
  const double rho = spearman_correlation(a, b);                   // the rule: platform/rank_correlation.hpp
  if (std::isnan(rho)) return std::nullopt;
  return rho;
}

std::optional<double> kendall_tau_b(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size() || a.size() < 3) return std::nullopt;
  double concordant = 0, discordant = 0, ties_a = 0, ties_b = 0;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = i + 1; j < a.size(); ++j) {
      const double da = a[i] - a[j], db = b[i] - b[j];
      if (da == 0 && db == 0) continue;
      if (da == 0) ++ties_a;
      else if (db == 0) ++ties_b;
      else if ((da > 0) == (db > 0)) ++concordant;
      else ++discordant;
    }
  const double denominator = std::sqrt((concordant + discordant + ties_a) * (concordant + discordant + ties_b));
  if (denominator == 0) return std::nullopt;
  return (concordant - discordant) / denominator;
}

FitComparison compare_fit(const Json& replay_results, const Json& fitted_results) {
  const auto replay = medians_of(replay_results, "replay");
  const auto fitted = medians_of(fitted_results, "fitted");
  FitComparison c;
  for (const auto& [name, r] : replay) {
    const auto f = fitted.find(name);
    if (f == fitted.end()) continue;
    FitComparisonRow row;
    row.allocator = name;
    row.replay_net_cycles_per_op = r.net_per_op;
    row.fitted_net_cycles_per_op = f->second.net_per_op;
    row.replay_overhead_ratio = r.overhead;
    row.fitted_overhead_ratio = f->second.overhead;
    for (const std::string* why : {&r.missing, &f->second.missing})
      if (!why->empty()) c.notes.push_back(name + ": n/a, " + *why);
    c.rows.push_back(row);
  }
  if (c.rows.empty()) throw std::runtime_error("the two results files have no allocator in common");
  using R = FitComparisonRow;
  rank_metric(c, &R::replay_net_cycles_per_op, &R::fitted_net_cycles_per_op, &R::replay_speed_rank, &R::fitted_speed_rank, c.speed_spearman,
              c.speed_kendall);
  rank_metric(c, &R::replay_overhead_ratio, &R::fitted_overhead_ratio, &R::replay_memory_rank, &R::fitted_memory_rank, c.memory_spearman,
              c.memory_kendall);
  std::vector<double> differences;
  for (const auto& r : c.rows)
    if (r.replay_overhead_ratio && r.fitted_overhead_ratio) differences.push_back(std::abs(*r.fitted_overhead_ratio - *r.replay_overhead_ratio));
  if (!differences.empty()) {
    std::sort(differences.begin(), differences.end());
    const std::size_t n = differences.size();
    c.overhead_median_abs_difference = n % 2 ? differences[n / 2] : (differences[n / 2 - 1] + differences[n / 2]) / 2;
  }
  std::stable_sort(c.rows.begin(), c.rows.end(), [](const R& a, const R& b) {
    return a.replay_speed_rank.value_or(~0u) < b.replay_speed_rank.value_or(~0u);
  });
  return c;
}

std::string fit_comparison_markdown(const FitComparison& c) {
  std::ostringstream md;
  md << "| allocator | replay net cycles/op | rank | fitted net cycles/op | rank | replay overhead ratio | rank | fitted overhead ratio | rank |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const auto& r : c.rows)
    md << "| " << r.allocator << " | " << fixed(r.replay_net_cycles_per_op, "%.1f") << " | " << rank_text(r.replay_speed_rank) << " | "
       << fixed(r.fitted_net_cycles_per_op, "%.1f") << " | " << rank_text(r.fitted_speed_rank) << " | " << fixed(r.replay_overhead_ratio, "%.3f")
       << " | " << rank_text(r.replay_memory_rank) << " | " << fixed(r.fitted_overhead_ratio, "%.3f") << " | " << rank_text(r.fitted_memory_rank)
       << " |\n";
  md << "\nRanking agreement (1 = same order, -1 = reversed; n/a below 3 allocators): speed Spearman rho "
     << fixed(c.speed_spearman, "%.2f") << ", Kendall tau-b " << fixed(c.speed_kendall, "%.2f") << "; memory Spearman rho "
     << fixed(c.memory_spearman, "%.2f") << ", Kendall tau-b " << fixed(c.memory_kendall, "%.2f")
     << ". Median |fitted - replay| overhead ratio: " << fixed(c.overhead_median_abs_difference, "%.3f")
     << ".\nNet cycles per operation = (allocator - void baseline) per malloc/free pair / 2; medians over repetitions; "
        "rank 1 = fastest / leanest.\n";
  for (const auto& note : c.notes) md << "- " << note << "\n";
  return md.str();
}

Json to_json(const FitComparison& c) {
  auto opt = [](const auto& v) { return v ? Json(*v) : Json(nullptr); };
  Json rows = Json::array();
  for (const auto& r : c.rows)
    rows.push_back({{"allocator", r.allocator},
                    {"replay_net_cycles_per_op", opt(r.replay_net_cycles_per_op)},
                    {"fitted_net_cycles_per_op", opt(r.fitted_net_cycles_per_op)},
                    {"replay_overhead_ratio", opt(r.replay_overhead_ratio)},
                    {"fitted_overhead_ratio", opt(r.fitted_overhead_ratio)},
                    {"replay_speed_rank", opt(r.replay_speed_rank)},
                    {"fitted_speed_rank", opt(r.fitted_speed_rank)},
                    {"replay_memory_rank", opt(r.replay_memory_rank)},
                    {"fitted_memory_rank", opt(r.fitted_memory_rank)}});
  return {{"rows", rows},
          {"speed_spearman", opt(c.speed_spearman)},
          {"speed_kendall_tau_b", opt(c.speed_kendall)},
          {"memory_spearman", opt(c.memory_spearman)},
          {"memory_kendall_tau_b", opt(c.memory_kendall)},
          {"overhead_median_abs_difference", opt(c.overhead_median_abs_difference)},
          {"notes", c.notes}};
}

}  // namespace allocstress
