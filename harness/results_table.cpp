// Renders the Markdown summary table from aggregate and failed/skipped entries.
#include "results_table.hpp"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <vector>

namespace allocstress {

namespace {

using Json = nlohmann::json;

std::string fmt(const Json& v, const char* format) {
  if (!v.is_number()) return "n/a";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v.get<double>());
  return buf;
}

}  // namespace

std::string markdown_table(const Json& results) {
  const Json& ctx = results.at("context");
  const Json& plan = ctx.at("plan");
  const Json& params = plan.at("params");
  std::ostringstream md;
  md << "## allocstress: " << plan.at("workload").get<std::string>() << ", preset " << plan.at("preset").get<std::string>()
     << "\n\n"
     << "Machine: " << ctx.value("cpu_model", "?") << ", " << ctx.value("num_cpus", 0) << " PUs; THP "
     << ctx.value("thp_mode", "?") << "; " << ctx.value("date", "") << "; commit " << ctx.value("git_commit", "?") << "\n"
     << "Workload: " << params.at("slots_total") << " slots, E=" << params.at("max_size_exp") << ", "
     << params.at("iterations_per_thread") << " iterations/thread, access " << params.at("memory_access").get<std::string>()
     << ", seed " << params.at("seed") << "; " << plan.at("repetitions") << " repetitions, placement "
     << plan.at("placement").get<std::string>() << "\n\n"
     << "| allocator | threads | reps ok | net cycles/pair | CV | net ns/pair | raw cycles/pair | overhead ratio | peak RSS MiB | speed vs system |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";

  std::map<std::pair<std::string, unsigned>, std::map<std::string, const Json*>> agg;
  std::vector<std::pair<std::string, unsigned>> order;
  std::map<std::pair<std::string, unsigned>, std::vector<const Json*>> unmeasured;
  for (const auto& e : results.at("benchmarks")) {
    const std::pair<std::string, unsigned> key{e.at("allocator").get<std::string>(), e.at("threads").get<unsigned>()};
    if (e.at("run_type") == "aggregate") {
      if (agg[key].empty()) order.push_back(key);
      agg[key][e.at("aggregate_name").get<std::string>()] = &e;
    } else if (e.at("status") != "ok") {
      unmeasured[key].push_back(&e);
    }
  }
  for (const auto& key : order) {
    const Json& med = *agg[key]["median"];
    const Json& cv = *agg[key]["cv"];
    const bool baseline = key.first == "void";
    md << "| " << key.first << (baseline ? " (baseline)" : "") << " | " << key.second << " | " << med.at("repetitions_ok")
       << " | " << (baseline ? "0 (by definition)" : fmt(med["net_cycles_per_pair"], "%.1f")) << " | "
       << (baseline ? fmt(cv["cycles_per_pair"], "%.3f") : fmt(cv["net_cycles_per_pair"], "%.3f")) << " | "
       << (baseline ? "0" : fmt(med["net_ns_per_pair"], "%.2f")) << " | " << fmt(med["cycles_per_pair"], "%.1f") << " | "
       << (baseline ? "-" : fmt(med["overhead_ratio"], "%.3f")) << " | "
       << fmt(med["peak_rss_bytes"].is_number() ? Json(med["peak_rss_bytes"].get<double>() / 1048576.0) : Json(), "%.1f")
       << " | " << (baseline ? "-" : fmt(med["speed_vs_system"], "%.2f")) << " |\n";
  }
  md << "\nnet = allocator minus the void baseline at the same threads, repetition and seed (medians over ok "
        "repetitions); CV = coefficient of variation of net cycles/pair (of raw cycles/pair for void); overhead ratio = "
        "(peak RSS - RSS before the first allocation) / peak live requested bytes; speed vs system > 1 = faster than glibc.\n";

  std::set<std::string> noted;
  for (const auto& [key, entries] : unmeasured) {
    const std::string reason = entries.front()->value("reason", "");
    const std::string line = "- " + key.first + " at " + std::to_string(key.second) + " threads: " +
                             std::to_string(entries.size()) + " cell(s) " + entries.front()->at("status").get<std::string>() +
                             ": " + reason;
    if (noted.insert(line).second) md << (noted.size() == 1 ? "\nNot measured:\n" : "") << line << "\n";
  }
  if (!ctx.at("warnings").empty()) {
    md << "\nWarnings:\n";
    for (const auto& w : ctx.at("warnings")) md << "- " << w.get<std::string>() << "\n";
  }
  return md.str();
}

}  // namespace allocstress
