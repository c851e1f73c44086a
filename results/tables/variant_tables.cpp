// Tables that compare a variant of the timing cells with another set of the same cells, per
// workload x allocator x threads:
//   - the ageing penalty (`--age`): aged cells (mode aged: the workload on a heap aged by
//     workloads/heap_ageing.hpp) against their control, the same ageing with every block freed
//     (spec keep=0: "warmed"), and against the fresh timing cells;
//   - THP modes (`--thp A,B`): thp cells (mode thp, under B) against the timing cells (under A).
// Each figure is a median over processes with its distribution-free interval; each ratio has the
// quotient of the two intervals (results_summary.hpp quotient_interval: level at least the sum of
// both levels - 1).  Disturbed processes are left out and counted.
#include <algorithm>
#include <map>
#include <string>

#include "results/results_summary.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

constexpr const char* kQuotientMethod = "the variant's interval of the median over the other side's (both order-statistic intervals); level by Bonferroni";

bool is_disturbed(const Json& e) { return e.contains("interference") && e.at("interference").value("disturbed", false); }

// The figures compared, per record: cost (net ns per pair), peak RSS, the RSS the measured phase
// added (peak - before: on an aged heap, what the workload needed beyond the holes it could
// reuse), and hugepage coverage.
Json figures_of(const Json& e) {
  Json f = {{"cost", e.value("net_ns_per_pair", Json())},
            {"peak", e.value("peak_rss_bytes", Json())},
            {"growth", Json()},
            {"coverage", e.value("thp_coverage", Json())}};
  if (f["peak"].is_number() && e.value("rss_before_bytes", Json()).is_number())
    f["growth"] = f["peak"].get<double>() - e.at("rss_before_bytes").get<double>();
  return f;
}

// One side of a comparison: the figures of its undisturbed processes.
struct Side {
  std::vector<Json> figures;
  std::size_t disturbed = 0;
  void add(const Json& e) {
    if (is_disturbed(e)) ++disturbed;
    else figures.push_back(figures_of(e));
  }
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

// "ratio [low, high]" of variant / other on figure `name`; the lowest level seen is kept in *level.
class Ratios {
 public:
  std::string text(const Side& variant, const Side& other, const char* name) {
    const Json v = variant.median(name), o = other.median(name);
    if (!v.is_number() || !o.is_number() || o.get<double>() <= 0) return "n/a";
    const Json q = quotient_interval(variant.interval(name), other.interval(name), kQuotientMethod);
    const std::string ratio = ratio_text(v.get<double>() / o.get<double>());
    if (!q.is_object()) return ratio + " [n/a]";
    lowest_ = std::min(lowest_, q.at("level_at_least").get<double>());
    any_ = true;
    return ratio + " [" + ratio_text(q.at("low").get<double>()) + ", " + (q.at("high").is_number() ? ratio_text(q.at("high").get<double>()) : "unbounded") + "]";
  }
  // "slower"/"faster" where the cost ratio's interval excludes 1, "none shown" where it includes it.
  static std::string verdict(const Side& variant, const Side& other, const std::string& slower, const std::string& faster) {
    const Json q = quotient_interval(variant.interval("cost"), other.interval("cost"), kQuotientMethod);
    if (!q.is_object()) return "n/a";
    if (q.at("low").get<double>() > 1) return "**" + slower + "**";
    if (q.at("high").is_number() && q.at("high").get<double>() < 1) return "**" + faster + "**";
    return "none shown";
  }
  std::string level_text() const { return any_ ? "level " + fixed(Json(100 * lowest_), 1) + "% or more" : "no interval here"; }

 private:
  double lowest_ = 1;
  bool any_ = false;
};

std::string disturbed_line(std::size_t n) {
  return n == 0 ? "" : "- " + std::to_string(n) + " process(es) of these cells left out as disturbed (another task ran on a worker's CPU); the counts above are of the others\n";
}

std::string cell_text(const CellKey& key) {
  return key.allocator + " x " + key.workload + " at " + std::to_string(key.threads) + " thread(s)";
}

// The aged cells of a results file, each beside its warmed control and its fresh timing cell.
struct AgeingSides {
  Side fresh, warmed, aged;
  std::uint64_t survivor_bytes = 0, corrupted = 0;
};
struct Ageing {
  std::map<CellKey, AgeingSides> cells;  // only cells with aged processes
  std::vector<std::string> unmeasured;
  std::string spec = "?";
};

Ageing collect_ageing(const Json& benchmarks) {
  Ageing out;
  for (const auto& e : benchmarks) {
    if (e.value("run_type", "iteration") != "iteration") continue;
    const std::string mode = e.value("mode", "timing");
    if (mode != "aged" && mode != "timing") continue;
    const CellKey key{e.value("workload", std::string("?")), e.value("allocator", std::string("?")), e.value("threads", 0u)};
    if (e.value("status", "") != "ok") {
      if (mode == "aged") out.unmeasured.push_back(cell_text(key) + ": " + e.value("reason", std::string("failed")));
      continue;
    }
    if (mode == "timing") {
      out.cells[key].fresh.add(e);
      continue;
    }
    const Json& a = e.value("ageing", Json::object());
    const Json& s = a.value("spec", Json::object());
    AgeingSides& c = out.cells[key];
    if (s.value("keep", 1.0) == 0) {
      c.warmed.add(e);
      continue;
    }
    c.aged.add(e);
    c.survivor_bytes = a.value("survivor_bytes", std::uint64_t{0});
    c.corrupted += a.value("corrupted_survivors", std::uint64_t{0});
    out.spec = s.value("text", out.spec);
  }
  std::erase_if(out.cells, [](const auto& kv) { return kv.second.aged.figures.empty() && kv.second.aged.disturbed == 0; });
  return out;
}

// The thp cells of a results file, each beside its timing cell.
using VariantKey = std::tuple<std::string, std::string, unsigned, std::string>;  // cell and its THP mode
struct ThpModes {
  std::map<CellKey, Side> main;
  std::map<VariantKey, Side> variants;
  std::vector<std::string> unmeasured;
  std::string main_mode = "?";
};

ThpModes collect_thp_modes(const Json& benchmarks) {
  ThpModes out;
  for (const auto& e : benchmarks) {
    if (e.value("run_type", "iteration") != "iteration") continue;
    const std::string mode = e.value("mode", "timing");
    if (mode != "thp" && mode != "timing") continue;
    const CellKey key{e.value("workload", std::string("?")), e.value("allocator", std::string("?")), e.value("threads", 0u)};
    const std::string under = e.value("thp_mode", Json()).is_string() ? e.at("thp_mode").get<std::string>() : "?";
    if (e.value("status", "") != "ok") {
      if (mode == "thp") out.unmeasured.push_back(cell_text(key) + ": " + e.value("reason", std::string("failed")));
      continue;
    }
    if (mode == "timing") {
      out.main[key].add(e);
      out.main_mode = under;
    } else {
      out.variants[{key.workload, key.allocator, key.threads, under}].add(e);
    }
  }
  return out;
}

// "0.77-0.98": the range of the medians of `figure` over the sides.
std::string range_text(const std::vector<const Side*>& sides, const char* figure) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const Side* side : sides)
    if (const Json v = side->median(figure); v.is_number()) {
      lo = any ? std::min(lo, v.get<double>()) : v.get<double>();
      hi = any ? std::max(hi, v.get<double>()) : v.get<double>();
      any = true;
    }
  if (!any) return "n/a";
  return lo == hi ? fixed(Json(lo), 2) : fixed(Json(lo), 2) + "-" + fixed(Json(hi), 2);
}

}  // namespace

std::string grouped(const Verdicts& verdicts, const std::string& slower, const std::string& faster) {
  std::string out;
  for (const std::string& word : {slower, faster}) {
    std::string who;
    for (const auto& [allocator, w, ratio] : verdicts)
      if (w == "**" + word + "**") who += (who.empty() ? "" : ", ") + allocator + " " + ratio;
    if (!who.empty()) out += "; " + word + ": " + who;
  }
  const auto none = std::count_if(verdicts.begin(), verdicts.end(), [](const auto& v) { return std::get<1>(v) == "none shown"; });
  if (none > 0) out += "; none shown for " + std::to_string(none) + " other(s)";
  return out;
}

void ageing_penalty_table(std::ostringstream& md, const Json& benchmarks) {
  const Ageing ageing = collect_ageing(benchmarks);
  const auto& cells = ageing.cells;
  const auto& unmeasured = ageing.unmeasured;
  const std::string& spec = ageing.spec;
  if (cells.empty() && unmeasured.empty()) return;
  md << "\n### Ageing penalty (--age " << spec << "; modes aged and aged:warmed, beside the fresh timing runs)\n\n"
     << "| workload | allocator | threads | processes fresh / warmed / aged | survivors MiB | cost ns/pair fresh / warmed / aged | "
        "cost aged / warmed | cost aged / fresh | peak RSS MiB fresh / aged | RSS growth aged / warmed | penalty |\n"
     << "|---|---|---:|---:|---:|---:|---|---|---:|---|---|\n";
  Ratios ratios;
  std::size_t disturbed = 0;
  for (const auto& [key, c] : cells) {
    disturbed += c.fresh.disturbed + c.warmed.disturbed + c.aged.disturbed;
    md << "| " << key.workload << " | " << key.allocator << " | " << key.threads << " | " << c.fresh.figures.size() << " / "
       << c.warmed.figures.size() << " / " << c.aged.figures.size() << " | " << mib(Json(c.survivor_bytes)) << " | " << fixed(c.fresh.median("cost"), 1)
       << " / " << fixed(c.warmed.median("cost"), 1) << " / " << fixed(c.aged.median("cost"), 1) << " | " << ratios.text(c.aged, c.warmed, "cost")
       << " | " << ratios.text(c.aged, c.fresh, "cost") << " | " << mib(c.fresh.median("peak")) << " / " << mib(c.aged.median("peak")) << " | "
       << ratios.text(c.aged, c.warmed, "growth") << " | " << Ratios::verdict(c.aged, c.warmed, "slower aged", "faster aged")
       << (c.corrupted > 0 ? " (" + std::to_string(c.corrupted) + " survivors corrupted)" : "") << " |\n";
  }
  md << "\nThe aged cells run the same workload, operation stream and seed as the timing cells, on a heap that each worker first "
        "filled through its own allocator (sizes p~1/size over the spec's range) and then freed all but the survivors of, which "
        "stay live through the measured phase. The warmed cells are their control: the same ageing with every block freed, so "
        "that aged / warmed is the cost of the survivors and their holes alone; aged / fresh adds what a used heap saves over "
        "a cold one (its pages already touched). Figures are medians over processes; a ratio has the interval of its two "
        "medians' intervals ("
     << ratios.level_text()
     << "; [n/a]: fewer than two processes on a side). Cost: ns per malloc/free pair net of the void baseline (fresh void: its "
        "harness work is the same). RSS growth: peak RSS minus RSS before the phase, what the workload needed beyond the heap "
        "it started on. **slower aged** / **faster aged**: the interval of cost aged / warmed excludes 1; none shown: it "
        "includes 1 (no penalty this run can tell).\n"
     << disturbed_line(disturbed);
  for (const auto& line : unmeasured) md << "- aged cell not measured: " << line << "\n";
}

void thp_modes_table(std::ostringstream& md, const Json& benchmarks) {
  ThpModes modes = collect_thp_modes(benchmarks);
  auto& main = modes.main;
  const auto& variants = modes.variants;
  const auto& unmeasured = modes.unmeasured;
  const std::string& main_mode = modes.main_mode;
  if (variants.empty() && unmeasured.empty()) return;
  md << "\n### THP modes (timing cells under " << main_mode << "; mode thp under the others)\n\n"
     << "| workload | allocator | threads | THP mode | processes | THP coverage " << main_mode << " / this mode | cost ns/pair " << main_mode
     << " / this mode | cost this / " << main_mode << " | peak RSS this / " << main_mode << " | cost |\n"
     << "|---|---|---:|---|---:|---:|---:|---|---|---|\n";
  Ratios ratios;
  std::size_t disturbed = 0;
  for (const auto& [vk, v] : variants) {
    const CellKey key{std::get<0>(vk), std::get<1>(vk), std::get<2>(vk)};
    const Side& m = main[key];
    disturbed += v.disturbed + m.disturbed;  // (a timing cell under two variants counts twice)
    md << "| " << std::get<0>(vk) << " | " << std::get<1>(vk) << " | " << std::get<2>(vk) << " | " << std::get<3>(vk) << " | " << m.figures.size()
       << " / " << v.figures.size() << " | " << fixed(m.median("coverage"), 2) << " / " << fixed(v.median("coverage"), 2) << " | "
       << fixed(m.median("cost"), 1) << " / " << fixed(v.median("cost"), 1) << " | " << ratios.text(v, m, "cost") << " | " << ratios.text(v, m, "peak")
       << " | " << Ratios::verdict(v, m, "slower", "faster") << " |\n";
  }
  md << "\nThe thp cells run the same workload, operation stream and seed as the timing cells, under another transparent-huge-page "
        "mode (set system-wide for each cell by the runner, as root; `never` without root: per process). THP coverage: the median "
        "of AnonHugePages / Anonymous over the timed work (the thp_coverage column); where it is the same under every mode, no "
        "allocator's memory was backed by huge pages differently here (the record's hugepages block has each reading). Ratios "
        "have the interval of their two medians' intervals ("
     << ratios.level_text() << "). **slower** / **faster**: the cost ratio's interval excludes 1.\n"
     << disturbed_line(disturbed);
  for (const auto& line : unmeasured) md << "- thp cell not measured: " << line << "\n";
}

void variant_verdict_lines(std::ostringstream& md, const std::string& workload, unsigned threads, const Json& benchmarks) {
  const auto here = [&](const auto& key) { return key.workload == workload && key.threads == threads && key.allocator != kBaselineAllocator; };
  Ratios ratios;
  const Ageing ageing = collect_ageing(benchmarks);
  Verdicts aged;
  for (const auto& [key, c] : ageing.cells)
    if (here(key)) aged.emplace_back(key.allocator, Ratios::verdict(c.aged, c.warmed, "slower aged", "faster aged"), ratios.text(c.aged, c.warmed, "cost"));
  if (!aged.empty())
    md << "- on an aged heap (--age " << ageing.spec << "), cost aged / warmed" << grouped(aged, "slower aged", "faster aged") << " (ageing penalty table)\n";
  const ThpModes modes = collect_thp_modes(benchmarks);
  std::map<std::string, Verdicts> by_mode;
  std::map<std::string, std::vector<const Side*>> variant_sides, main_sides;
  for (const auto& [vk, v] : modes.variants) {
    const CellKey key{std::get<0>(vk), std::get<1>(vk), std::get<2>(vk)};
    const auto m = modes.main.find(key);
    if (!here(key) || m == modes.main.end()) continue;
    by_mode[std::get<3>(vk)].emplace_back(key.allocator, Ratios::verdict(v, m->second, "slower", "faster"), ratios.text(v, m->second, "cost"));
    variant_sides[std::get<3>(vk)].push_back(&v);
    main_sides[std::get<3>(vk)].push_back(&m->second);
  }
  for (const auto& [mode, verdicts] : by_mode)
    md << "- THP " << mode << " against " << modes.main_mode << ": hugepage coverage " << range_text(variant_sides[mode], "coverage") << " (under "
       << modes.main_mode << ": " << range_text(main_sides[mode], "coverage") << "), cost " << mode << " / " << modes.main_mode
       << grouped(verdicts, "slower", "faster") << " (THP modes table)\n";
}

}  // namespace allocstress::table_parts
