// The comparison table's columns of one row (table_parts.hpp summary_columns): what the report's
// HTML table, summary.md/csv/tex (analysis tabulation/tables.py COLUMNS) show for a timing cell of
// a workload net of void, from the cell's aggregate entries and system's at the same threads.
//
// Model: the figures are the recorded entries' (median, interval and its relative half-width, cv,
// speed_vs_system with its interval and vs_system); the overhead ratio's quotient and verdict come
// from the two overhead intervals (quotient_interval, interval_order: no rule of its own here);
// the void baseline's net figures are 0 and its precision is that of its raw cycles/pair (an
// interval over its records).  The entries are the ones summary_rows() chose (timing_cells.hpp
// chosen_aggregates: recorded where they describe the cell's records, completed or else replaced
// by recomputed ones); a figure an entry lacks is n/a.
#include <cmath>

#include "cells/record_identity.hpp"
#include "results/results_summary.hpp"
#include "results/tables/table_parts.hpp"

namespace allocstress::table_parts {

namespace {

const char* const kRatioMethod = "the two medians' intervals divided (Bonferroni)";

const Json& field(const Json* entry, const char* name) {
  static const Json none;
  if (entry == nullptr) return none;
  const auto it = entry->find(name);
  return it == entry->end() ? none : *it;
}

const Json& interval_at(const Json* entry, const char* metric) {
  const Json& all = field(entry, "intervals");
  static const Json none;
  if (!all.is_object()) return none;
  const auto it = all.find(metric);
  return it != all.end() && it->is_object() && it->value("low", Json()).is_number() && it->value("high", Json()).is_number() &&
                 it->value("level", Json()).is_number()
             ? *it
             : none;
}

double number(const Json& v) { return v.is_number() ? v.get<double>() : NAN; }

std::size_t with_net_cost(const std::vector<const Json*>& records) {
  std::size_t n = 0;
  for (const Json* r : records) n += r->value("net_cycles_per_pair", Json()).is_number() ? 1 : 0;
  return n;
}

Json or_null(double v) { return std::isnan(v) ? Json() : Json(v); }

// "{what}: a median is <= 0 ..." unless both medians are above 0; the quotient otherwise.
double quotient(double num, double den, const char* what, std::vector<std::string>& notes) {
  if (num > 0 && den > 0) return num / den;
  notes.push_back(std::string(what) + ": a median is <= 0 or missing (cost indistinguishable from the baseline): no ratio");
  return NAN;
}

std::string order_word(const Json& mine, const Json& ref, const char* below, const char* above) {
  if (!mine.is_object() || !ref.is_object()) return "";
  const auto order = interval_order(number(mine["low"]), number(mine["high"]), number(ref["low"]), number(ref["high"]));
  if (!order) return "";
  return *order == IntervalOrder::below ? below : *order == IntervalOrder::above ? above : "indistinguishable";
}

void put_interval(Json& out, const std::string& prefix, const Json& iv, const char* level) {
  out[prefix + "_low"] = iv.is_object() ? iv.value("low", Json()) : Json();
  out[prefix + "_high"] = iv.is_object() ? iv.value("high", Json()) : Json();
  out[prefix + "_level"] = iv.is_object() ? iv.value(level, Json()) : Json();
}

}  // namespace

Json summary_columns(const TableRow& row, const Aggregates& agg, const CellRecords& records) {
  static const std::vector<const Json*> none;
  auto records_of = [&](const CellKey& key) -> const std::vector<const Json*>& {
    const auto it = records.find(key);
    return it == records.end() ? none : it->second;
  };
  const CellKey key{row.workload, row.allocator, row.threads}, ref_key{row.workload, std::string(kReferenceAllocator), row.threads};
  const Json* med = row.median;
  const Json* ref = agg.get(ref_key, "median");
  const bool has_ref = ref != nullptr && with_net_cost(records_of(ref_key)) > 0;
  const Json& net_iv = interval_at(med, "net_cycles_per_pair");
  const std::size_t reps = with_net_cost(records_of(key));

  const std::string invalid = field(med, "overhead_ratio_invalid").is_string() ? field(med, "overhead_ratio_invalid").get<std::string>() : "";
  const Json raw_iv = row.baseline ? median_interval_entry(records_of(key), Json::json_pointer("/cycles_per_pair")) : Json();
  static const Json no_interval = Json::object();
  const Json& iv = (row.baseline ? raw_iv : net_iv).is_object() ? (row.baseline ? raw_iv : net_iv) : no_interval;
  Json out = {{"reps_ok", reps}, {"net_cycles_per_pair", row.baseline ? Json(0.0) : field(med, "net_cycles_per_pair")},
              {"net_cycles_ci_low", row.baseline ? Json() : iv.value("low", Json())},
              {"net_cycles_ci_high", row.baseline ? Json() : iv.value("high", Json())},
              {"net_cycles_ci_level", row.baseline ? Json() : iv.value("level", Json())},
              {"net_cycles_ci_method", row.baseline ? "" : iv.value("method", std::string("order statistics"))},
              {"net_cycles_rel_half_width", iv.value("relative_half_width", Json())},
              {"net_cycles_cv", reps < 2 ? Json() : field(row.cv, row.baseline ? "cycles_per_pair" : "net_cycles_per_pair")},
              {"cycles_per_pair", field(med, "cycles_per_pair")}, {"net_ns_per_pair", row.baseline ? Json(0.0) : field(med, "net_ns_per_pair")},
              {"overhead_ratio", row.baseline || !invalid.empty() ? Json() : field(med, "overhead_ratio")},
              {"thp_coverage", field(med, "thp_coverage")}};
  out["unstable"] = is_unstable(iv);
  const Json& over_iv = row.baseline ? Json() : interval_at(med, "overhead_ratio");
  put_interval(out, "overhead_ratio_ci", over_iv, "level");
  std::vector<std::string> notes;
  if (row.baseline) notes.emplace_back(kBaselineNoOverheadNote);
  else if (!invalid.empty()) notes.push_back(kOverheadInvalidNote + invalid);
  double speed = NAN, over = NAN;
  Json speed_iv, over_vs;
  std::string speed_verdict, over_verdict;
  if (!row.baseline && !has_ref) {
    notes.push_back(std::string("no ok ") + std::string(kReferenceAllocator) + " cell at these threads: nothing to compare with");
  } else if (!row.baseline) {
    const bool ref_invalid = field(ref, "overhead_ratio_invalid").is_string();
    const double mine_over = invalid.empty() ? number(field(med, "overhead_ratio")) : NAN;
    const double ref_over = ref_invalid ? NAN : number(field(ref, "overhead_ratio"));
    std::vector<std::string> speed_note, over_note;
    speed = quotient(number(field(ref, "net_cycles_per_pair")), number(field(med, "net_cycles_per_pair")), "speed", speed_note);
    over = quotient(mine_over, ref_over, "overhead", over_note);
    if (field(med, "speed_vs_system").is_number()) speed = field(med, "speed_vs_system").get<double>(), speed_note.clear();
    notes.insert(notes.end(), speed_note.begin(), speed_note.end());
    if (invalid.empty()) notes.insert(notes.end(), over_note.begin(), over_note.end());
    const Json& ref_over_iv = interval_at(ref, "overhead_ratio");
    if (row.reference) {
      speed_verdict = over_verdict = "reference";
    } else {
      const Json& recorded = field(med, "speed_vs_system_interval");
      speed_iv = recorded.is_object() && recorded.value("low", Json()).is_number()
                     ? recorded
                     : quotient_interval(interval_at(ref, "net_cycles_per_pair"), net_iv, kRatioMethod);
      over_vs = quotient_interval(over_iv, ref_over_iv, kRatioMethod);
      speed_verdict = field(med, "vs_system").is_string() ? field(med, "vs_system").get<std::string>()
                                                           : order_word(net_iv, interval_at(ref, "net_cycles_per_pair"), "faster", "slower");
      over_verdict = invalid.empty() ? order_word(over_iv, ref_over_iv, "leaner", "larger") : "";
      if (std::isfinite(speed) && !speed_iv.is_object() && speed_verdict != "indistinguishable")
        notes.emplace_back("speed: no interval of the ratio (a median's interval is missing or reaches 0)");
    }
  }
  out["speed_vs_system"] = or_null(speed);
  put_interval(out, "speed_ci", speed_iv, "level_at_least");
  out["speed_vs_system_verdict"] = speed_verdict;
  out["overhead_vs_system"] = or_null(over);
  put_interval(out, "overhead_ci", over_vs, "level_at_least");
  out["overhead_vs_system_verdict"] = over_verdict;
  std::string joined;
  for (const std::string& n : notes) joined += (joined.empty() ? "" : "; ") + n;
  out["notes"] = joined;
  return out;
}

}  // namespace allocstress::table_parts
