// The ageing penalty table (`--age`): per workload x allocator x threads, the aged cells (mode aged:
// the workload on a heap aged by workloads/heap_ageing.hpp) against the same cell's fresh timing
// runs of the same matrix.  Each figure is a median over processes with its distribution-free
// interval; each ratio aged / fresh has the quotient of the two intervals (results_summary.hpp
// quotient_interval: level at least the sum of both levels - 1).  A penalty is shown only where
// the cost ratio's interval excludes 1.
#include <algorithm>
#include <map>
#include <string>

#include "results/results_summary.hpp"
#include "results/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

constexpr const char* kQuotientMethod = "aged interval of the median over the fresh one (both order-statistic intervals); level by Bonferroni";

bool is_ok(const Json& e, const char* mode) { return e.value("mode", "timing") == mode && e.value("status", "") == "ok"; }
bool is_disturbed(const Json& e) { return e.contains("interference") && e.at("interference").value("disturbed", false); }

// The figures compared, per record: cost (net ns per pair), peak RSS, and the RSS the measured phase
// added (peak - before: on an aged heap, what the workload needed beyond the holes it could reuse).
Json figures(const Json& e) {
  Json f = {{"cost", e.value("net_ns_per_pair", Json())}, {"peak", e.value("peak_rss_bytes", Json())}, {"growth", Json()}};
  if (f["peak"].is_number() && e.value("rss_before_bytes", Json()).is_number())
    f["growth"] = f["peak"].get<double>() - e.at("rss_before_bytes").get<double>();
  return f;
}

struct Side {
  std::vector<Json> figures;  // of the undisturbed processes
  std::size_t disturbed = 0;  // processes left out: another task ran on a worker's CPU
  Json interval(const char* name) const {
    std::vector<const Json*> group;
    for (const Json& f : figures) group.push_back(&f);
    return median_interval_entry(group, Json::json_pointer(std::string("/") + name));
  }
  Json median(const char* name) const {
    std::vector<double> v;
    for (const Json& f : figures)
      if (f.at(name).is_number()) v.push_back(f.at(name).get<double>());
    if (v.empty()) return nullptr;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  }
};

std::string quotient_text(const Json& q, const Json& aged, const Json& fresh) {
  if (!aged.is_number() || !fresh.is_number() || fresh.get<double>() <= 0) return "n/a";
  const std::string ratio = ratio_text(aged.get<double>() / fresh.get<double>());
  if (!q.is_object()) return ratio + " [n/a]";
  return ratio + " [" + ratio_text(q.at("low").get<double>()) + ", " + (q.at("high").is_number() ? ratio_text(q.at("high").get<double>()) : "unbounded") + "]";
}

// "slower aged" / "faster aged" where the cost ratio's interval excludes 1, else "none shown".
std::string penalty_word(const Json& q) {
  if (!q.is_object()) return "n/a";
  if (q.at("low").get<double>() > 1) return "**slower aged**";
  if (q.at("high").is_number() && q.at("high").get<double>() < 1) return "**faster aged**";
  return "none shown";
}

}  // namespace

void ageing_penalty_table(std::ostringstream& md, const Json& benchmarks) {
  std::map<CellKey, Side> fresh, aged;  // aged: every cell with an ok aged process
  std::map<CellKey, std::uint64_t> survivors, corrupted;
  std::vector<std::string> unmeasured;
  Json spec;
  for (const auto& e : benchmarks) {
    if (e.value("run_type", "iteration") != "iteration") continue;
    const CellKey key{e.value("workload", std::string("?")), e.value("allocator", std::string("?")), e.value("threads", 0u)};
    if (e.value("mode", "") == "aged" && e.value("status", "") != "ok")
      unmeasured.push_back(std::get<1>(key) + " x " + std::get<0>(key) + " at " + std::to_string(std::get<2>(key)) + " thread(s): " + e.value("reason", std::string("failed")));
    const bool as_aged = is_ok(e, "aged");
    if (!as_aged && !is_ok(e, "timing")) continue;
    Side& side = (as_aged ? aged : fresh)[key];
    if (is_disturbed(e)) ++side.disturbed;
    else side.figures.push_back(figures(e));
    if (as_aged) {
      const Json& a = e.value("ageing", Json::object());
      survivors[key] = a.value("survivor_bytes", std::uint64_t{0});
      corrupted[key] += a.value("corrupted_survivors", std::uint64_t{0});
      if (spec.is_null()) spec = a.value("spec", Json::object());
    }
  }
  if (aged.empty() && unmeasured.empty()) return;
  md << "\n### Ageing penalty (--age " << (spec.is_object() ? spec.value("text", std::string("?")) : std::string("?"))
     << "; mode aged, beside the fresh timing runs)\n\n"
     << "| workload | allocator | threads | processes fresh / aged | survivors MiB | cost fresh ns/pair | cost aged ns/pair | cost aged / fresh | "
        "peak RSS fresh MiB | peak RSS aged MiB | peak RSS aged / fresh | RSS growth aged / fresh | penalty |\n"
     << "|---|---|---:|---:|---:|---:|---:|---|---:|---:|---|---|---|\n";
  double lowest_level = 1;
  bool any_interval = false;
  std::size_t disturbed = 0;
  for (const auto& [key, a] : aged) {
    const Side& f = fresh[key];
    disturbed += f.disturbed + a.disturbed;
    Json q[3];
    const char* names[3] = {"cost", "peak", "growth"};
    for (int k = 0; k < 3; ++k) {
      q[k] = quotient_interval(a.interval(names[k]), f.interval(names[k]), kQuotientMethod);
      if (!q[k].is_object()) continue;
      lowest_level = std::min(lowest_level, q[k].at("level_at_least").get<double>());
      any_interval = true;
    }
    md << "| " << std::get<0>(key) << " | " << std::get<1>(key) << " | " << std::get<2>(key) << " | " << f.figures.size() << " / " << a.figures.size()
       << " | " << mib(Json(survivors[key])) << " | " << fixed(f.median("cost"), 1) << " | " << fixed(a.median("cost"), 1) << " | "
       << quotient_text(q[0], a.median("cost"), f.median("cost")) << " | " << mib(f.median("peak")) << " | " << mib(a.median("peak")) << " | "
       << quotient_text(q[1], a.median("peak"), f.median("peak")) << " | " << quotient_text(q[2], a.median("growth"), f.median("growth")) << " | "
       << penalty_word(q[0]) << (corrupted[key] > 0 ? " (" + std::to_string(corrupted[key]) + " survivors corrupted)" : "") << " |\n";
  }
  md << "\nThe aged cells run the same workload, operation stream and seed as the timing cells, on a heap that each worker first "
        "filled through its own allocator (sizes p~1/size over the spec's range) and then freed all but the survivors of, which "
        "stay live through the measured phase. Figures are medians over processes; a ratio is aged / fresh, with the interval "
        "of the aged median over the fresh one ("
     << (any_interval ? "level " + fixed(Json(100 * lowest_level), 1) + "% or more" : "none here")
     << "; [n/a]: fewer than two processes on a side). Cost: ns per malloc/free pair net of the void baseline (fresh "
        "void: its harness work is the same). RSS growth: peak RSS minus RSS before the phase, i.e. what the workload needed "
        "beyond the aged heap (below 1: it reused the holes). **slower aged** / **faster aged**: the cost ratio's interval "
        "excludes 1; none shown: it includes 1 (no penalty this run can tell).\n";
  if (disturbed > 0)
    md << "- " << disturbed << " process(es) of these cells left out as disturbed (another task ran on a worker's CPU); the counts "
          "above are of the others\n";
  for (const auto& line : unmeasured) md << "- aged cell not measured: " << line << "\n";
}

}  // namespace allocstress::table_parts
