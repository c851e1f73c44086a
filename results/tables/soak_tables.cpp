// The soak cells (mode soak, cells/modes/soak.hpp) in the Markdown summary: a table with one row per soak
// process, and the verdict's soak line.  A soak record is one process whose measured phase lasted
// the --soak duration; its "soak" block holds the per-bin medians of RSS growth (RSS minus RSS
// before the phase) and hugepage coverage (AnonHugePages / Anonymous) over complete bins of
// `bin_s` seconds, and their drift per hour: the Theil-Sen slope over the bins from the second on
// (the first is the warm-up), with Sen's distribution-free interval (null bounds: fewer than 5
// bins fitted).  Nothing here is a timing figure: soak cells run no void baseline (their net cost
// stays null) and are neither aggregated nor ranked by cost.  A drift "excludes 0" when its whole
// interval lies on one side of 0; consecutive bins of one process may have correlated noise, so
// the interval is narrower than it should be (optimistic), as the legend says.
#include <algorithm>
#include <map>
#include <string>

#include "platform/statistics.hpp"
#include "results/results_summary.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

constexpr double kMiBytes = 1048576.0;
constexpr std::size_t kFewestFittedBins = 5;  // Sen's interval at 95% needs 5 points (platform/statistics.hpp)

bool is_soak_record(const Json& e) { return e.value("run_type", "iteration") == "iteration" && e.value("mode", "") == "soak"; }

const Json& soak_of(const Json& e) {
  static const Json none = Json::object();
  const Json& s = e.value("soak", Json());
  return s.is_object() ? e.at("soak") : none;
}

const Json& drift_of(const Json& soak, const char* figure) {
  static const Json none;
  const Json& d = soak.contains("drift") ? soak.at("drift") : none;
  return d.is_object() && d.contains(figure) ? d.at(figure) : none;
}

bool has_interval(const Json& trend) {
  return trend.is_object() && trend.value("low", Json()).is_number() && trend.value("high", Json()).is_number();
}

// "40 s", "10.0 min", "2.50 h".
std::string duration_text(const Json& seconds) {
  if (!seconds.is_number()) return "n/a";
  const double s = seconds.get<double>();
  return s < 120 ? fixed(Json(s), 0) + " s" : s < 2 * 3600 ? fixed(Json(s / 60), 1) + " min" : fixed(Json(s / 3600), 2) + " h";
}

std::string cell_name(const Json& e) {
  return e.value("allocator", std::string("?")) + " x " + e.value("workload", std::string("?")) + " at " + std::to_string(e.value("threads", 0u)) +
         " thread(s)";
}

// Why the RSS drift of a soak block has no interval ("" when it has one).
std::string rss_drift_missing(const Json& soak) {
  if (has_interval(drift_of(soak, "rss_growth_bytes"))) return "";
  if (soak.value("unavailable", Json()).is_string()) return "no timeline";
  const Json& d = soak.value("drift", Json());
  const std::size_t fitted = d.is_object() ? d.value("fitted_bins", std::size_t{0}) : 0;
  if (fitted < kFewestFittedBins) return std::to_string(fitted) + " bin(s) fitted, fewer than " + std::to_string(kFewestFittedBins);
  return "no interval";
}

// Tracks the lowest level of the intervals shown.
class Levels {
 public:
  // "v [low, high]" of a drift ({per_hour, low, high, level}) times `scale`, or "n/a (why)".
  std::string drift_text(const Json& trend, double scale, int decimals, const std::string& why) {
    if (!has_interval(trend) || !trend.value("per_hour", Json()).is_number()) return "n/a (" + why + ")";
    if (const Json& level = trend.value("level", Json()); level.is_number()) {
      lowest_ = std::min(lowest_, level.get<double>());
      any_ = true;
    }
    const auto scaled = [&](const char* key) { return fixed(Json(trend.at(key).get<double>() * scale), decimals); };
    return scaled("per_hour") + " [" + scaled("low") + ", " + scaled("high") + "]";
  }
  std::string level_text() const { return any_ ? "level " + fixed(Json(100 * lowest_), 1) + "% or more" : "no interval here"; }

 private:
  double lowest_ = 1;
  bool any_ = false;
};

// The median of the bins' `figure` (null entries left out), or null.
Json bins_median(const Json& soak, const char* figure) {
  std::vector<double> v;
  for (const Json& b : soak.value("bins", Json::array()))
    if (b.is_object() && b.value(figure, Json()).is_number()) v.push_back(b.at(figure).get<double>());
  return v.empty() ? Json() : Json(summarise(std::move(v)).median);
}

// The bin's figure, or null when there is no such bin.
Json bin_figure(const Json& soak, std::size_t index, const char* figure) {
  const Json& bins = soak.value("bins", Json::array());
  return bins.is_array() && index < bins.size() && bins.at(index).is_object() ? bins.at(index).value(figure, Json()) : Json();
}

}  // namespace

void soak_table(std::ostringstream& md, const Json& benchmarks) {
  std::vector<const Json*> rows;
  std::vector<std::string> unmeasured, untimed;
  std::string spec = "?";
  for (const auto& e : benchmarks) {
    if (!is_soak_record(e)) continue;
    if (e.value("status", "") != "ok") {
      unmeasured.push_back(cell_name(e) + ": " + e.value("reason", std::string("failed")));
      continue;
    }
    rows.push_back(&e);
    spec = soak_of(e).value("spec", spec);
    if (const Json& why = soak_of(e).value("unavailable", Json()); why.is_string()) untimed.push_back(cell_name(e) + ": " + why.get<std::string>());
  }
  if (rows.empty() && unmeasured.empty()) return;
  md << "\n### Soak (--soak " << spec << "; mode soak, one process per cell, separate from the timing runs)\n\n"
     << "| workload | allocator | threads | ran | bins | RSS growth MiB first fitted / last bin | RSS drift MiB/hour | RSS drift %/hour of the "
        "median | coverage % (median of bins) | coverage drift points/hour | rounds |\n"
     << "|---|---|---:|---:|---:|---:|---|---|---:|---|---:|\n";
  Levels levels;
  for (const Json* e : rows) {
    const Json& s = soak_of(*e);
    const Json& d = s.value("drift", Json());
    const std::size_t first = d.is_object() ? d.value("first_bin", std::size_t{1}) : 1, bins = s.value("bins", Json::array()).size();
    const std::string rss_why = rss_drift_missing(s);
    const std::string share_why = !rss_why.empty() ? rss_why : "the fitted bins' median RSS growth is not above 0";
    const std::string coverage_why = s.value("unavailable", Json()).is_string() ? "no timeline" : "fewer than 5 fitted bins with anonymous memory";
    const Json coverage = bins_median(s, "coverage");
    md << "| " << e->value("workload", std::string("?")) << " | " << e->value("allocator", std::string("?")) << " | " << e->value("threads", 0u)
       << " | " << duration_text(e->contains("wall_time_ns") && e->at("wall_time_ns").is_number() ? Json(e->at("wall_time_ns").get<double>() / 1e9) : Json())
       << " | " << bins << " | " << mib(bin_figure(s, first, "rss_growth_bytes")) << " / " << mib(bins > 0 ? bin_figure(s, bins - 1, "rss_growth_bytes") : Json())
       << " | " << levels.drift_text(drift_of(s, "rss_growth_bytes"), 1 / kMiBytes, 2, rss_why) << " | "
       << levels.drift_text(drift_of(s, "rss_growth_share"), 100, 1, share_why) << " | "
       << fixed(coverage.is_number() ? Json(100 * coverage.get<double>()) : Json(), 1) << " | "
       << levels.drift_text(drift_of(s, "coverage"), 100, 2, coverage_why) << " | "
       << (s.value("rounds", Json()).is_number() ? std::to_string(s.at("rounds").get<std::uint64_t>()) : "n/a") << " |\n";
  }
  md << "\nEach row is one process whose measured phase ran for the soak's duration (ran: its wall time), its workload's steady state "
        "continued in soak rounds on the same heap. Bins: the complete bins of the --soak bin; per bin the median of the readings of "
        "RSS growth (RSS minus RSS before the phase) and hugepage coverage (AnonHugePages / Anonymous). Drift: the Theil-Sen slope of "
        "the per-bin medians over time from the second bin on (the first, the warm-up, is left out), with Sen's distribution-free "
        "interval ("
     << levels.level_text() << "; n/a: fewer than " << kFewestFittedBins
     << " bins fitted); %/hour is the drift as a share of the fitted bins' median RSS growth. The bins are consecutive stretches of "
        "one process, so their noise may be correlated and the interval is optimistic (narrower than it should be). Cost figures "
        "are raw: no void baseline runs beside a soak cell, so its net cost is n/a.\n";
  for (const auto& line : untimed) md << "- soak cell without a timeline: " << line << "\n";
  for (const auto& line : unmeasured) md << "- soak cell not measured: " << line << "\n";
}

void soak_verdict_lines(std::ostringstream& md, const std::string& workload, unsigned threads, const Json& benchmarks) {
  struct Spec {
    Verdicts verdicts;
    std::vector<std::string> missing;  // "allocator (why)"
    Json duration_s;
  };
  std::map<std::string, Spec> by_spec;
  Levels levels;
  for (const auto& e : benchmarks) {
    if (!is_soak_record(e) || e.value("status", "") != "ok" || e.value("workload", "") != workload || e.value("threads", 0u) != threads ||
        e.value("allocator", "") == kBaselineAllocator)
      continue;
    const Json& s = soak_of(e);
    Spec& spec = by_spec[s.value("spec", std::string("?"))];
    spec.duration_s = s.value("duration_s", Json());
    const std::string allocator = e.value("allocator", std::string("?"));
    const Json& trend = drift_of(s, "rss_growth_bytes");
    if (const std::string why = rss_drift_missing(s); !why.empty()) {
      spec.missing.push_back(allocator + " (" + why + ")");
      continue;
    }
    const std::string word = trend.at("low").get<double>() > 0 ? "**growing**" : trend.at("high").get<double>() < 0 ? "**shrinking**" : "none shown";
    spec.verdicts.emplace_back(allocator, word, levels.drift_text(trend, 1 / kMiBytes, 2, "") + " MiB/hour");
  }
  for (const auto& [text, spec] : by_spec) {
    const bool drifted = std::any_of(spec.verdicts.begin(), spec.verdicts.end(), [](const auto& v) { return std::get<1>(v) != "none shown"; });
    std::string missing;
    for (const std::string& m : spec.missing) missing += (missing.empty() ? "" : ", ") + m;
    md << "- over a soak (--soak " << text << ", " << duration_text(spec.duration_s) << "), ";
    if (drifted)
      md << "RSS drift per hour where Sen's interval excludes 0 (" << levels.level_text() << ")" << grouped(spec.verdicts, "growing", "shrinking");
    else if (!spec.verdicts.empty())
      md << "no allocator's RSS drifted detectably over " << duration_text(spec.duration_s) << " (" << spec.verdicts.size()
         << " allocator(s), every drift interval includes 0)";
    else
      md << "RSS drift n/a";
    md << (missing.empty() ? "" : (spec.verdicts.empty() ? ": " : "; n/a for ") + missing)
       << " (soak table; bins of one process may be correlated: the intervals are optimistic)\n";
  }
}

}  // namespace allocstress::table_parts
