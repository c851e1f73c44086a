// The misuse battery in the Markdown summary (the results file's `safety` section,
// run/misuse_battery.hpp): one table of cases x allocators with an outcome symbol per cell and the
// legend under it, the detection score per allocator ("caught": scored cases detected or refused
// with an error), the conformance of each drop-in, and the properties sampled over many processes.
// The verdict's safety lines put each allocator's score beside its cost against system.
#include <algorithm>
#include <cstdio>
#include <map>

#include "results/results_summary.hpp"
#include "results/tables/results_table.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

const Json& allocators_of(const Json& safety) {
  static const Json none = Json::array();
  return safety.is_object() && safety.contains("allocators") ? safety.at("allocators") : none;
}

// The symbol of an outcome name, from the section's own legend.
std::string symbol_of(const Json& safety, const std::string& outcome) {
  for (const auto& c : safety.value("outcome_classes", Json::array()))
    if (c.value("name", "") == outcome) return c.value("symbol", "?");
  return "?";
}

std::string score_text(const Json& a) {
  if (a.contains("not_run")) return "not run";
  return std::to_string(a.value("caught", 0u)) + " of " + std::to_string(a.value("scored", 0u));
}

std::string bits(const Json& v) {
  if (!v.is_number()) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v.get<double>());
  return buf;
}

std::string size_text(const std::string& bytes) {
  const unsigned long long b = std::stoull(bytes);
  return b % 1048576 == 0 ? std::to_string(b / 1048576) + " MiB" : b % 1024 == 0 ? std::to_string(b / 1024) + " KiB" : bytes + " B";
}

void properties_table(std::ostringstream& md, const Json& safety) {
  md << "\nProperties over " << safety.value("property_processes", 0u)
     << " processes: address entropy is the first block's address from process to process (ASLR and the allocator), "
        "placement entropy the gap between two consecutive blocks (the allocator alone); each the sum of the per-bit entropies, "
        "an upper estimate that a small sample caps (30 processes: a random bit shows ~0.97). Guard page: what follows a large "
        "block's last page (guard: an inaccessible mapping; unmapped: a hole another mapping may fill; none: accessible).\n\n"
     << "| allocator | address entropy (bits) | placement entropy (bits) | guard page after a large block | inline metadata |\n|---|---:|---:|---|---|\n";
  for (const auto& a : allocators_of(safety)) {
    const Json& p = a.value("properties", Json::object());
    md << "| " << a.value("allocator", "?") << " | ";
    if (p.contains("n/a")) {
      md << "n/a: " << p.at("n/a").get<std::string>() << " | | | |\n";
      continue;
    }
    std::map<unsigned long long, std::string> by_size;  // smallest block first
    const Json guards = p.value("guard_page", Json::object());
    for (const auto& [size, v] : guards.items()) by_size[std::stoull(size)] = size_text(size) + ": " + v.get<std::string>();
    std::string guard;
    for (const auto& [size, text] : by_size) guard += (guard.empty() ? "" : ", ") + text;
    md << bits(p.value("address_entropy_bits", Json())) << " | " << bits(p.value("placement_entropy_bits", Json())) << " | " << guard << " | "
       << p.value("inline_metadata", "n/a") << " |\n";
  }
}

}  // namespace

void safety_table(std::ostringstream& md, const Json& safety) {
  const Json& allocators = allocators_of(safety);
  if (allocators.empty()) return;
  md << "\n### Safety: the misuse battery\n\nEach case ran in a fresh process under the allocator (timeout " << fixed(safety.value("timeout_s", Json()), 0)
     << " s). Caught: the scored cases whose outcome is detected or error returned. Edge cases (scored no) show behaviour the C "
        "standard leaves to the implementation; they are not counted.\n\n| case | scored |";
  for (const auto& a : allocators) md << " " << a.value("allocator", "?") << " |";
  md << "\n|---|---|";
  for (std::size_t i = 0; i < allocators.size(); ++i) md << ":---:|";
  md << "\n";
  std::string group;
  for (const auto& c : safety.value("cases", Json::array())) {
    const std::string name = c.value("name", "?");
    if (c.value("group", "") != group) {
      group = c.value("group", "");
      md << "| *" << group << "* | |";
      for (std::size_t i = 0; i < allocators.size(); ++i) md << " |";
      md << "\n";
    }
    md << "| " << name << " | " << (c.value("scored", true) ? "yes" : "no") << " |";
    for (const auto& a : allocators) {
      std::string symbol = "–";
      for (const auto& o : a.value("outcomes", Json::array()))
        if (o.value("case", "") == name) symbol = symbol_of(safety, o.value("outcome", ""));
      md << " " << symbol << " |";
    }
    md << "\n";
  }
  md << "| **caught** | |";
  for (const auto& a : allocators) md << " **" << score_text(a) << "** |";
  md << "\n\n";
  for (const auto& c : safety.value("outcome_classes", Json::array()))
    md << c.value("symbol", "?") << " " << c.value("name", "?") << ": " << c.value("meaning", "") << ". ";
  md << "– not run.\n";
  bool any = false;
  for (const auto& a : allocators)
    if (a.value("conforming", Json()) == false || a.contains("not_run")) {
      md << (any ? "" : "\nConformance and runs:\n") << "- " << a.value("allocator", "?") << ": "
         << (a.contains("not_run") ? "battery not run: " + a.at("not_run").get<std::string>()
                                   : "NON-CONFORMING: " + a.value("nonconforming", std::string("?")) + " (left out of the rankings)")
         << "\n";
      any = true;
    }
  properties_table(md, safety);
}

std::map<std::string, std::string> nonconforming_allocators(const Json& benchmarks, const Json& safety) {
  std::map<std::string, std::string> out;
  for (const auto& e : benchmarks)
    if (e.contains("nonconforming") && e.at("nonconforming").is_string()) out[e.value("allocator", "")] = e.at("nonconforming").get<std::string>();
  for (const auto& a : allocators_of(safety))
    if (a.value("conforming", Json()) == false) out[a.value("allocator", "")] = a.value("nonconforming", std::string("non-conforming"));
  return out;
}

void safety_verdict_lines(std::ostringstream& md, const Json& safety, const std::vector<std::string>& workloads, const Aggregates& agg) {
  const Json& allocators = allocators_of(safety);
  if (allocators.empty()) return;
  // Cost against system at the first workload's lowest thread count, where the matrix measured it.
  std::string workload;
  unsigned threads = 0;
  for (const CellKey& key : agg.order)
    if (!workloads.empty() && key.workload == workloads.front() && (threads == 0 || key.threads < threads)) {
      workload = key.workload;
      threads = key.threads;
    }
  md << "\n**Safety beside cost** (misuse cases caught of those scored";
  if (threads > 0) md << "; cost against system: " << workload << ", " << threads << " thread" << (threads == 1 ? "" : "s");
  md << ")\n";
  for (const auto& a : allocators) {
    const std::string name = a.value("allocator", "?");
    md << "- **" << name << "**: ";
    if (a.contains("not_run")) {
      md << "battery not run (" << a.at("not_run").get<std::string>() << ")\n";
      continue;
    }
    md << "detects " << score_text(a);
    const bool nonconforming = a.value("conforming", Json()) == false;
    if (nonconforming) md << "; NON-CONFORMING, not ranked";
    if (threads > 0 && name != kReferenceAllocator && !nonconforming) {
      const Json* med = agg.get({workload, name, threads}, "median");
      const Json& speed = med != nullptr ? med->value("speed_vs_system", Json()) : Json();
      if (speed.is_number() && speed.get<double>() > 0) md << "; " << ratio_text(1 / speed.get<double>()) << "× system's cost";
    }
    md << "\n";
  }
}

}  // namespace allocstress::table_parts

namespace allocstress {

std::string safety_markdown(const nlohmann::json& results) {
  const nlohmann::json& safety = results.value("safety", nlohmann::json());
  std::ostringstream md;
  if (!safety.is_object() || safety.value("allocators", nlohmann::json::array()).empty()) return "";
  const nlohmann::json& ctx = results.value("context", nlohmann::json::object());
  md << "## allocstress: misuse battery\n\nMachine: " << ctx.value("cpu_model", "?") << "; " << ctx.value("date", "") << "; commit "
     << ctx.value("git_commit", "?") << "; " << safety.value("cases", nlohmann::json::array()).size() << " cases\n";
  table_parts::safety_verdict_lines(md, safety, {}, table_parts::Aggregates{});
  table_parts::safety_table(md, safety);
  return md.str();
}

}  // namespace allocstress
