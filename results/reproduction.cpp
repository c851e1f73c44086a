// Reproduction intervals (contract and model: reproduction.hpp).
#include "results/reproduction.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "platform/json_text.hpp"
#include "platform/statistics.hpp"
#include "results/results_summary.hpp"

namespace allocstress {

namespace {

using Json = nlohmann::json;

// The metric the reproduction interval is about: net ns/pair where the workload is net of void
// (what users compare across runs and papers), else the workload's speed metric.
std::string reproduction_metric(const std::string& workload) {
  const std::string speed = speed_metric(workload);
  return speed.rfind("net_", 0) == 0 ? std::string("net_ns_per_pair") : speed;
}

std::string text_of(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

CellValues headline_values(const std::vector<Json>& records) {
  CellValues out;
  for (const Json& r : records) {
    if (r.value("run_type", "iteration") != "iteration" || r.value("status", "") != "ok" || !is_timing_record(r) ||
        is_disturbed_record(r) || r.value("allocator", "") == kBaselineAllocator)
      continue;
    const std::string workload = r.value("workload", "");
    const std::string metric = reproduction_metric(workload);
    if (metric.empty()) continue;
    const Json& value = metric_value(r, metric_pointer(workload, metric));
    if (!value.is_number()) continue;
    out[record_key(r)].push_back(value.get<double>());
  }
  return out;
}

std::vector<double> reproduction_scores(const std::vector<CellValues>& runs, double level) {
  std::vector<double> scores;
  if (runs.empty()) return scores;
  for (const auto& [key, first] : runs.front()) {
    std::vector<double> medians;
    std::vector<MedianInterval> bases;
    for (const CellValues& run : runs) {
      const auto it = run.find(key);
      if (it == run.end()) break;
      medians.push_back(summarise(it->second).median);
      bases.push_back(median_prediction_interval(it->second, level));
    }
    if (medians.size() != runs.size()) continue;
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (std::isnan(bases[i].low)) continue;
      for (std::size_t j = 0; j < runs.size(); ++j) {
        if (j == i) continue;
        const double side = medians[j] >= medians[i] ? bases[i].high - medians[i] : medians[i] - bases[i].low;
        const double distance = std::abs(medians[j] - medians[i]);
        scores.push_back(distance == 0 ? 0.0 : side > 0 ? distance / side : INFINITY);
      }
    }
  }
  return scores;
}

double conformal_factor(std::vector<double> scores, double level) {
  const double needed = std::ceil(1 / (1 - level) - 1e-9) - 1;  // (P + 1) level <= P; 1e-9: 1 / (1 - 0.9) is 10.000000000000002
  if (double(scores.size()) < needed) {
    std::ostringstream why;
    why << "a reproduction factor at " << 100 * level << "% needs at least " << needed << " (run, other run) pairs of cells, got "
        << scores.size() << " (give more runs, or runs with more cells)";
    throw std::invalid_argument(why.str());
  }
  std::sort(scores.begin(), scores.end());
  const std::size_t rank = std::size_t(std::ceil((double(scores.size()) + 1) * level));  // 1-based
  return scores[std::min(rank, scores.size()) - 1];
}

std::filesystem::path default_calibration_path() {
  if (const char* explicit_path = std::getenv("ALLOCSTRESS_CALIBRATION"); explicit_path != nullptr && *explicit_path != '\0')
    return explicit_path;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data != nullptr && *data != '\0')
    return std::filesystem::path(data) / "allocstress" / "calibration.json";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home != nullptr ? home : "/") / ".local" / "share" / "allocstress" / "calibration.json";
}

Json read_calibration(const std::filesystem::path& path) {
  Json doc = read_json_file(path, "calibration");
  if (!doc.is_object() || doc.value("schema", "") != kCalibrationSchemaName || doc.value("schema_version", 0) != kCalibrationSchemaVersion)
    throw std::runtime_error("calibration " + path.string() + " is not an " + kCalibrationSchemaName + " file of version " +
                             std::to_string(kCalibrationSchemaVersion));
  const Json& factor = doc.value("factor", Json()), &level = doc.value("level", Json());
  if (!factor.is_number() || factor.get<double>() <= 0 || !level.is_number() || level.get<double>() <= 0 || level.get<double>() >= 1 ||
      !doc.value("host_name", Json()).is_string())
    throw std::runtime_error("calibration " + path.string() + " lacks a positive factor, a level in (0, 1) or host_name");
  return doc;
}

Json calibration_for_host(const std::filesystem::path& path, const std::string& host, std::string& why_not) {
  why_not.clear();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    why_not = "no calibration at " + path.string() + " (run the matrix 3 times, then `allocstress calibrate RUN.json ...`)";
    return nullptr;
  }
  try {
    Json doc = read_calibration(path);
    if (doc.at("host_name") != host) {
      why_not = "the calibration at " + path.string() + " is host " + text_of(doc.at("host_name")) + "'s, not " + host + "'s";
      return nullptr;
    }
    doc["file"] = path.string();
    return doc;
  } catch (const std::runtime_error& e) {
    why_not = e.what();
    return nullptr;
  }
}

void attach_reproduction(std::vector<Json>& aggregates, const std::vector<Json>& records, const Json& calibration) {
  if (!calibration.is_object()) return;
  const double factor = calibration.at("factor").get<double>(), level = calibration.at("level").get<double>();
  const CellValues values = headline_values(records);
  // (copied as the file has them: found with the fuzz harness tests/fuzz/calibration_fuzz.cpp,
  // value("created", "") threw type_error on a number at the end of a matrix run)
  const Json source = {{"file", calibration.value("file", Json(""))}, {"created", calibration.value("created", Json(""))},
                       {"runs", calibration.value("runs", Json::array()).size()}, {"pairs", calibration.value("pairs", Json(0))},
                       {"factor", factor}};
  for (Json& e : aggregates) {
    if (e.value("aggregate_name", "") != "median" || e.value("allocator", "") == kBaselineAllocator) continue;
    const std::string workload = e.value("workload", "");
    const std::string metric = reproduction_metric(workload);
    const auto it = values.find(record_key(e));
    if (metric.empty() || it == values.end()) continue;
    const double median = summarise(it->second).median;
    Json entry = {{"metric", metric}, {"level", level}, {"n", it->second.size()}, {"calibration", source},
                  {"method", "distribution-free prediction interval of another run's median (same number of processes), its sides "
                             "widened by the calibration's split-conformal factor"}};
    if (const MedianInterval base = median_prediction_interval(it->second, level); !std::isnan(base.low)) {
      entry["low"] = median - factor * (median - base.low);
      entry["high"] = median + factor * (base.high - median);
    } else {
      entry["low"] = entry["high"] = nullptr;
      entry["reason"] = "too few processes (" + std::to_string(it->second.size()) + ") for a prediction interval at this level";
    }
    e["reproduction"] = std::move(entry);
  }
}

}  // namespace allocstress
