// Soak cells: parsing --soak, the sampler's pace, and the record's soak block (see soak.hpp).
#include "cells/modes/soak.hpp"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "platform/durations.hpp"
#include "platform/statistics.hpp"

namespace allocstress {

namespace {

constexpr const char* kAccepted =
    "accepted: DURATION[,every=DURATION], each a number with s, m or h (90s, 10m, 1.5h), from 1s to 7 days, the bin "
    "(default 1m) from 1s to the duration; e.g. 1h or 2m,every=10s";
constexpr double kLongestSoak = 7 * 24 * 3600.0;

std::invalid_argument bad(std::string_view whole, const std::string& why) {
  return std::invalid_argument("--soak '" + std::string(whole) + "': " + why + " (" + kAccepted + ")");
}

// A soak duration must carry its unit: "--soak 60" could be read as minutes as easily as seconds.
double spec_duration(std::string_view whole, std::string_view part, const char* what) {
  const std::optional<double> s = duration_seconds(part);
  if (!s || part.empty() || std::isdigit(static_cast<unsigned char>(part.back())))
    throw bad(whole, std::string(what) + " '" + std::string(part) + "' is not a number with s, m or h");
  return *s;
}

double median_of(std::vector<double> v) { return v.empty() ? NAN : summarise(std::move(v)).median; }

nlohmann::json number_or_null(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); }

// {"per_hour", "low", "high", "level"}: the Theil-Sen slope of ys over xs (hours) and its interval.
nlohmann::json trend_json(const std::vector<double>& xs, const std::vector<double>& ys, double scale) {
  const TrendSlope t = theil_sen_slope(xs, ys);
  return {{"per_hour", number_or_null(t.slope * scale)},
          {"low", number_or_null(t.interval.low * scale)},
          {"high", number_or_null(t.interval.high * scale)},
          {"level", number_or_null(t.interval.level)}};
}

std::atomic<std::uint64_t> rounds{0};
std::optional<SoakSpec> soak;

}  // namespace

SoakSpec parse_soak_spec(std::string_view text) {
  SoakSpec spec;
  const std::size_t comma = std::min(text.find(','), text.size());
  spec.duration_s = spec_duration(text, text.substr(0, comma), "the duration");
  if (spec.duration_s < 1 || spec.duration_s > kLongestSoak) throw bad(text, "the duration is outside 1s .. 7 days");
  spec.bin_s = std::min(60.0, spec.duration_s);
  if (comma < text.size()) {
    const std::string_view option = text.substr(comma + 1);
    if (option.substr(0, 6) != "every=") throw bad(text, "'" + std::string(option) + "' is not every=DURATION");
    spec.bin_s = spec_duration(text, option.substr(6), "the bin");
    if (spec.bin_s < 1 || spec.bin_s > spec.duration_s) throw bad(text, "the bin is outside 1s .. the duration");
  }
  return spec;
}

HugepageSamplerOptions soak_sampling(const SoakSpec& spec) {
  HugepageSamplerOptions o;
  const double interval_s = std::max({0.05, spec.bin_s / 30, spec.duration_s / 20000});
  o.interval = std::chrono::milliseconds(std::int64_t(std::ceil(interval_s * 1000)));
  const std::size_t expected = std::size_t(spec.duration_s / interval_s) + 64;
  o.max_samples = 2 * expected + (expected % 2);  // even; readings that come late add few, a slow phase end adds some
  o.max_busy_fraction = 0.01;
  // At least kReadingsPerBin a bin, whatever the readings cost: slow readings double the interval
  // only up to bin / kReadingsPerBin (never below the starting pace).
  o.longest_interval = std::max(o.interval, std::chrono::milliseconds(std::int64_t(spec.bin_s * 1000 / kReadingsPerBin)));
  return o;
}

void set_measured_phase_soak(const std::optional<SoakSpec>& spec) {
  soak = spec;
  rounds = 0;
}
const std::optional<SoakSpec>& measured_phase_soak() { return soak; }
void count_soak_round() { rounds.fetch_add(1, std::memory_order_relaxed); }
std::uint64_t soak_rounds_run() { return rounds.load(); }

nlohmann::json soak_block(std::string_view spec_text, const nlohmann::json& record, std::uint64_t soak_rounds) {
  const SoakSpec spec = parse_soak_spec(spec_text);
  nlohmann::json out = {{"spec", std::string(spec_text)}, {"duration_s", spec.duration_s}, {"bin_s", spec.bin_s}, {"rounds", soak_rounds},
                        {"bins", nlohmann::json::array()}, {"unavailable", nullptr}};
  const nlohmann::json& hp = record.contains("hugepages") ? record.at("hugepages") : nlohmann::json(nullptr);
  if (!hp.is_object() || !hp.contains("samples")) {
    out["unavailable"] = hp.is_object() && hp.value("unavailable", nlohmann::json(nullptr)).is_string()
                             ? hp.at("unavailable").get<std::string>()
                             : "no memory timeline was sampled in this cell";
    out["drift"] = nullptr;
    return out;
  }
  const nlohmann::json& s = hp.at("samples");
  const auto t = s.at("t_s").get<std::vector<double>>();
  const auto rss = s.at("rss_bytes").get<std::vector<double>>();
  const auto anon = s.at("anon_bytes").get<std::vector<double>>();
  const auto huge = s.at("anon_huge_bytes").get<std::vector<double>>();
  const double before = record.value("rss_before_bytes", 0.0);
  const std::size_t bins = t.empty() ? 0 : std::size_t(t.back() / spec.bin_s + 1e-9);
  // The readings of each complete bin, in one pass (a reading at or after the last bin's end is in none).
  std::vector<std::vector<double>> bin_rss(bins), bin_coverage(bins);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::size_t b = t[i] >= 0 ? std::size_t(t[i] / spec.bin_s) : bins;
    if (b >= bins) continue;
    bin_rss[b].push_back(rss[i] - before);
    if (anon[i] > 0) bin_coverage[b].push_back(huge[i] / anon[i]);
  }
  std::vector<double> mid_h, rss_med, cov_mid_h, cov_med;
  for (std::size_t b = 0; b < bins; ++b) {
    const double from = double(b) * spec.bin_s, to = from + spec.bin_s;
    const std::vector<double>& r = bin_rss[b];
    const double rm = median_of(r), cm = median_of(bin_coverage[b]);
    out["bins"].push_back({{"start_s", from}, {"samples", r.size()}, {"rss_growth_bytes", number_or_null(rm)}, {"coverage", number_or_null(cm)}});
    if (b == 0) continue;  // the warm-up: not in the drift
    if (std::isfinite(rm)) mid_h.push_back((from + to) / 2 / 3600), rss_med.push_back(rm);
    if (std::isfinite(cm)) cov_mid_h.push_back((from + to) / 2 / 3600), cov_med.push_back(cm);
  }
  const double level_rss = median_of(rss_med);
  out["drift"] = {{"first_bin", 1},
                  {"fitted_bins", rss_med.size()},
                  {"rss_growth_bytes", trend_json(mid_h, rss_med, 1)},
                  {"rss_growth_share", level_rss > 0 ? trend_json(mid_h, rss_med, 1 / level_rss) : nlohmann::json(nullptr)},
                  {"coverage", trend_json(cov_mid_h, cov_med, 1)},
                  {"means", "per hour: the Theil-Sen slope of the per-bin medians from the second bin on (the first is the warm-up); "
                            "low/high: Sen's distribution-free interval at `level` (null: too few bins, 5 fitted at least); "
                            "rss_growth_share: per hour as a share of the fitted bins' median RSS growth; coverage: in coverage "
                            "points (a fraction) per hour"}};
  return out;
}

}  // namespace allocstress
