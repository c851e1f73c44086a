// Validation and JSON reading/writing of the fit file (format: lifetime_params.hpp).
#include "workloads/lifetimes/lifetime_params.hpp"

#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "workloads/param_range.hpp"

namespace allocstress {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(TraceSummary, path, events, threads, allocating_threads, effective_threads,
                                                allocations, frees, reallocs, failed_allocations, unmatched_frees,
                                                reused_without_free, zero_size_allocations, clamped_sizes, never_freed,
                                                freed_after_owner_done, peak_live_requested_bytes, requested_bytes, mean_size,
                                                median_size, max_size, immortal_share, median_lifetime, mean_lifetime, truncation)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(FitQuality, size_ks_distance, lifetime_ks_distance, size_rows, lifetime_rows,
                                                model_peak_live_requested_bytes, trace_peak_live_requested_bytes,
                                                max_range_share)

namespace {

std::string shortest(double v) { return nlohmann::json(v).dump(); }  // 1.5, not 1.500000

void check_table(const std::vector<ValueRange>& rows, const char* field, std::uint64_t max_value) {
  if (rows.size() > kMaxFittedTableRows)
    throw std::invalid_argument(std::string(field) + ": " + std::to_string(rows.size()) + " rows (accepted: at most " +
                                std::to_string(kMaxFittedTableRows) + ")");
  double sum = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ValueRange& r = rows[i];
    const std::string name = std::string(field) + "[" + std::to_string(i) + "]";
    const std::string accepted = " (accepted: 1 <= min <= max <= " + std::to_string(max_value) + ")";
    if (r.min < 1 || r.min > max_value) throw std::invalid_argument(name + ".min out of range: " + std::to_string(r.min) + accepted);
    if (r.max < r.min || r.max > max_value)
      throw std::invalid_argument(name + ".max out of range: " + std::to_string(r.max) + " with min " + std::to_string(r.min) + accepted);
    if (!std::isfinite(r.weight) || r.weight < 0)
      throw std::invalid_argument(name + ".weight is " + shortest(r.weight) + " (accepted: a finite number >= 0)");
    sum += r.weight;
  }
  if (!rows.empty() && !(sum > 0 && std::isfinite(sum)))
    throw std::invalid_argument(std::string(field) + ": the weights sum to " + shortest(sum) + " (accepted: a finite sum > 0)");
}

// A lifetime law: its table and immortal share; `prefix` names the class ("" = top level).
void check_lifetime_law(const std::vector<ValueRange>& lifetimes, double immortal_share, const std::string& prefix) {
  if (!(immortal_share >= 0 && immortal_share <= 1))
    throw std::invalid_argument(prefix + "immortal_share out of range: " + shortest(immortal_share) + " (accepted: 0..1)");
  if (lifetimes.empty() && immortal_share < 1)
    throw std::invalid_argument(prefix + "lifetimes: no rows while immortal_share is " + shortest(immortal_share) +
                                " (accepted: rows, or no rows with immortal_share 1)");
  check_table(lifetimes, (prefix + "lifetimes").c_str(), kMaxFittedLifetime);
}

}  // namespace

void validate(const LifetimeParams& p) {
  require_in_range("threads", p.threads, 1, kMaxFittedThreads);
  require_in_range("allocations_per_thread", p.allocations_per_thread, 1, kMaxFittedAllocationsPerThread);
  if (p.sizes.empty()) throw std::invalid_argument("sizes: no rows (accepted: 1.." + std::to_string(kMaxFittedTableRows) + " rows)");
  check_table(p.sizes, "sizes", kMaxFittedBlockSize);
  check_lifetime_law(p.lifetimes, p.immortal_share, "");
  if (p.lifetime_classes.size() > kMaxLifetimeClasses)
    throw std::invalid_argument("lifetime_classes: " + std::to_string(p.lifetime_classes.size()) + " classes (accepted: at most " +
                                std::to_string(kMaxLifetimeClasses) + ")");
  for (std::size_t i = 0; i < p.lifetime_classes.size(); ++i) {
    const LifetimeClass& c = p.lifetime_classes[i];
    const std::string name = "lifetime_classes[" + std::to_string(i) + "].";
    const std::uint64_t lowest = i == 0 ? 1 : p.lifetime_classes[i - 1].max_size + 1;
    if (c.max_size < lowest || c.max_size > kMaxFittedBlockSize)
      throw std::invalid_argument(name + "max_size out of range: " + std::to_string(c.max_size) + " (accepted: " + std::to_string(lowest) +
                                  ".." + std::to_string(kMaxFittedBlockSize) + ", ascending: above the previous class's max_size)");
    check_lifetime_law(c.lifetimes, c.immortal_share, name);
  }
}

namespace {

using nlohmann::json;

// Reading with messages that name the field ("workload.sizes[2].max") and what it accepts.
struct FieldReader {
  const std::string& file;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw std::invalid_argument(file + ": " + field + " " + what);
  }
  const json& member(const json& object, const std::string& path, const char* key) const {
    const auto it = object.find(key);
    if (it == object.end()) fail(path + key, "is missing");
    return *it;
  }
  void only_keys(const json& object, const std::string& path, const std::set<std::string>& keys) const {
    if (!object.is_object()) fail(path.empty() ? "the document" : path.substr(0, path.size() - 1), "is not a JSON object");
    for (const auto& [key, value] : object.items())
      if (!keys.contains(key)) {
        std::string accepted;
        for (const auto& k : keys) accepted += (accepted.empty() ? "" : ", ") + k;
        fail(path + key, "is not a known field (accepted: " + accepted + ")");
      }
  }
  std::uint64_t whole(const json& object, const std::string& path, const char* key) const {
    const json& v = member(object, path, key);
    if (!v.is_number_unsigned()) fail(path + key, "is " + v.dump() + " (accepted: a whole number >= 0)");
    return v.get<std::uint64_t>();
  }
  double number(const json& object, const std::string& path, const char* key) const {
    const json& v = member(object, path, key);
    if (!v.is_number()) fail(path + key, "is " + v.dump() + " (accepted: a number)");
    return v.get<double>();
  }
  // The array at path + key: each element an object of only `keys`, read by read(element, its path).
  template <class Read>
  auto array_of(const json& object, const std::string& path, const char* key, const std::set<std::string>& keys,
                const std::string& accepted, Read read) const {
    const json& list = member(object, path, key);
    if (!list.is_array()) fail(path + key, "is not an array (accepted: an array of " + accepted + ")");
    std::vector<decltype(read(list, path))> out;
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string item = path + key + "[" + std::to_string(i) + "].";
      only_keys(list[i], item, keys);
      out.push_back(read(list[i], item));
    }
    return out;
  }
  std::vector<ValueRange> table(const json& object, const std::string& path, const char* key) const {
    return array_of(object, path, key, {"min", "max", "weight"}, "{\"min\", \"max\", \"weight\"} rows",
                    [&](const json& row, const std::string& at) {
                      return ValueRange{whole(row, at, "min"), whole(row, at, "max"), number(row, at, "weight")};
                    });
  }
  std::vector<LifetimeClass> classes(const json& object, const std::string& path, const char* key) const {
    return array_of(object, path, key, {"max_size", "immortal_share", "lifetimes"},
                    "{\"max_size\", \"immortal_share\", \"lifetimes\"} classes", [&](const json& c, const std::string& at) {
                      return LifetimeClass{whole(c, at, "max_size"), table(c, at, "lifetimes"), number(c, at, "immortal_share")};
                    });
  }
};

}  // namespace

std::string fit_config_text(const FitConfig& c) {
  // Tables are written one row per line: dump the document with placeholders ("@table:K@"), then
  // splice each table's rows in at its key's indentation.
  std::vector<const std::vector<ValueRange>*> tables;
  auto mark = [&](const std::vector<ValueRange>& rows) {
    tables.push_back(&rows);
    return "@table:" + std::to_string(tables.size() - 1) + "@";
  };
  // ordered_json keeps this order: format and version first, then the model, then the rest.
  nlohmann::ordered_json workload = {{"threads", c.params.threads},
                                     {"allocations_per_thread", c.params.allocations_per_thread},
                                     {"seed", c.params.seed},
                                     {"sizes", mark(c.params.sizes)},
                                     {"lifetimes", mark(c.params.lifetimes)},
                                     {"immortal_share", c.params.immortal_share}};
  if (!c.params.lifetime_classes.empty()) {  // absent when empty: older files stay byte-identical
    nlohmann::ordered_json classes = nlohmann::ordered_json::array();
    for (const LifetimeClass& k : c.params.lifetime_classes)
      classes.push_back({{"max_size", k.max_size}, {"immortal_share", k.immortal_share}, {"lifetimes", mark(k.lifetimes)}});
    workload["lifetime_classes"] = classes;
  }
  const nlohmann::ordered_json doc = {
      {"format", kFitFormat}, {"version", kFitFormatVersion}, {"workload", workload}, {"trace", json(c.trace)}, {"fit", json(c.quality)}};
  std::string text = doc.dump(2);
  for (std::size_t k = 0; k < tables.size(); ++k) {
    const std::string quoted = "\"@table:" + std::to_string(k) + "@\"";
    const std::size_t at = text.find(quoted);
    const std::size_t line = text.rfind('\n', at) + 1;
    const std::string indent(text.find_first_not_of(' ', line) - line, ' ');
    const std::vector<ValueRange>& rows = *tables[k];
    std::string rows_text = "[";
    for (std::size_t i = 0; i < rows.size(); ++i)
      rows_text += (i ? ",\n  " : "\n  ") + indent +
                   nlohmann::ordered_json{{"min", rows[i].min}, {"max", rows[i].max}, {"weight", rows[i].weight}}.dump();
    rows_text += rows.empty() ? "]" : "\n" + indent + "]";
    text.replace(at, quoted.size(), rows_text);
  }
  return text + "\n";
}

FitConfig parse_fit_config(std::string_view text, const std::string& name) {
  const json doc = json::parse(text.begin(), text.end(), nullptr, false);
  if (doc.is_discarded()) throw std::invalid_argument(name + ": not valid JSON (accepted: a fit file written by `allocstress fit`)");
  if (!doc.is_object() || doc.value("format", json()) != kFitFormat)
    throw std::invalid_argument(name + ": not an allocstress fit file (accepted: JSON with \"format\": \"" + kFitFormat + "\")");
  const FieldReader r{name};
  r.only_keys(doc, "", {"format", "version", "workload", "trace", "fit"});
  if (r.member(doc, "", "version") != kFitFormatVersion)
    r.fail("version", "is " + doc["version"].dump() + " (accepted: " + std::to_string(kFitFormatVersion) + ")");
  const json& w = r.member(doc, "", "workload");
  const std::string wp = "workload.";
  r.only_keys(w, wp, {"threads", "allocations_per_thread", "seed", "sizes", "lifetimes", "immortal_share", "lifetime_classes"});
  FitConfig c;
  const std::uint64_t threads = r.whole(w, wp, "threads");
  if (threads > kMaxFittedThreads)
    r.fail(wp + "threads", "out of range: " + std::to_string(threads) + " (accepted: 1.." + std::to_string(kMaxFittedThreads) + ")");
  c.params.threads = unsigned(threads);
  c.params.allocations_per_thread = r.whole(w, wp, "allocations_per_thread");
  c.params.seed = r.whole(w, wp, "seed");
  c.params.sizes = r.table(w, wp, "sizes");
  c.params.lifetimes = r.table(w, wp, "lifetimes");
  c.params.immortal_share = r.number(w, wp, "immortal_share");
  if (w.contains("lifetime_classes")) c.params.lifetime_classes = r.classes(w, wp, "lifetime_classes");
  // Found by fuzzing (tests/fuzz/fit_file_fuzz.cpp): "trace" and "fit" hold counts, shares and
  // means, and a number beyond a count's range (2.4e41, -1) was converted to it with undefined
  // behaviour.  Every number there is refused unless it lies in 0..2^64.
  for (const char* section : {"trace", "fit"})
    if (doc.contains(section) && doc[section].is_object())
      for (const auto& [key, v] : doc[section].items())
        if (v.is_number() && !(v.get<double>() >= 0 && v.get<double>() < 18446744073709551616.0))
          r.fail(std::string(section) + "." + key, "is " + v.dump() + " (accepted: a number in 0..2^64)");
  try {
    validate(c.params);
    if (doc.contains("trace")) c.trace = doc["trace"].get<TraceSummary>();
    if (doc.contains("fit")) c.quality = doc["fit"].get<FitQuality>();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(name + ": workload." + e.what());
  } catch (const json::exception& e) {
    throw std::invalid_argument(name + ": \"trace\" or \"fit\" section has a field of the wrong type (" + e.what() + ")");
  }
  return c;
}

FitConfig load_fit_config(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path.string() + ": cannot read the fit file (accepted: a file written by `allocstress fit`)");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_fit_config(text.str(), path.string());
}

void save_fit_config(const std::filesystem::path& path, const FitConfig& config) {
  const std::string text = fit_config_text(config);
  const std::filesystem::path temp = path.string() + ".partial-" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(temp, ec);
      throw std::runtime_error(temp.string() + ": cannot write the fit file");
    }
  }
  std::error_code ec;
  std::filesystem::rename(temp, path, ec);
  if (ec) {
    std::filesystem::remove(temp, ec);
    throw std::runtime_error(path.string() + ": cannot move the fit file into place (" + ec.message() + ")");
  }
}

}  // namespace allocstress
