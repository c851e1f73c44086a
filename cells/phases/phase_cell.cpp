// Phase cells (workloads/phases/memory_phases.hpp states the model): the worker threads, the checkpoints
// where they meet, the RSS-over-time series and the record.
// The worker and how it times its work: phase_worker.hpp.
#include "cells/workload_registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <thread>

#include "allocators/in_tree_registry.hpp"
#include "workloads/phases/memory_phases.hpp"
#include "cells/cell_record.hpp"
#include "cells/params_json.hpp"
#include "cells/metrics/record_metrics.hpp"
#include "cells/phases/phase_checkpoints.hpp"
#include "cells/phases/phase_worker.hpp"
#include "cells/alloc_test/sized_params.hpp"
#include "platform/memory/process_memory.hpp"
#include "cells/slot_array.hpp"

namespace allocstress {

namespace {

// TSC -> milliseconds since the first worker began.
struct Clock {
  std::uint64_t origin;
  double hz;
  double ms(std::uint64_t tsc) const { return hz > 0 ? (double(tsc) - double(origin)) / hz * 1e3 : 0.0; }
};

nlohmann::json plan_json(const PhasePlan& plan) {
  nlohmann::json legs = nlohmann::json::array();
  for (const PhaseLeg& l : plan.legs)
    legs.push_back({{"stage", to_string(l.stage)}, {"end_op", l.end}, {"to_bytes", l.to_bytes}, {"checkpoint", to_string(l.checkpoint)}});
  return {{"ops_per_thread", plan.ops},
          {"target_bytes_per_thread", plan.target_bytes},
          {"low_bytes_per_thread", plan.low_bytes},
          {"mean_block_bytes", plan.mean_block_bytes},
          {"sample_every", plan.sample_every},
          {"block_capacity", plan.block_capacity},
          {"drop_order", to_string(plan.drop_order)},
          {"legs", legs},
          {"legs_mean", "per thread: each leg runs from the previous leg's end to end_op, its target rising linearly to to_bytes; "
                        "a drop leg frees down below to_bytes and ends there (end_op is its planned end)"}};
}

nlohmann::json series_json(const std::vector<PhaseWorkerResult>& results, const PhaseShared& shared, const Clock& clock, std::uint64_t every,
                           std::uint64_t rss_before) {
  auto growth = [&](std::uint64_t rss) { return nlohmann::json(std::int64_t(rss) - std::int64_t(rss_before)); };
  std::vector<std::pair<double, nlohmann::json>> rows;
  for (std::size_t i = 0; i < results.size(); ++i)
    for (const SeriesRow& r : results[i].rows)
      rows.emplace_back(clock.ms(r.tsc), nlohmann::json{i, r.op, clock.ms(r.tsc), r.live, r.rss != 0 ? growth(r.rss) : nullptr, to_string(r.stage)});
  for (const CheckpointReading& c : shared.readings())
    for (std::size_t j = c.pause_begin; j < c.pause_end; ++j) {
      const PauseSample& s = shared.pauses()[j];
      rows.emplace_back(clock.ms(s.tsc), nlohmann::json{-1, nullptr, clock.ms(s.tsc), c.live, growth(s.rss), to_string(PhaseStage::pause)});
    }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  nlohmann::json out = nlohmann::json::array();
  for (auto& r : rows) out.push_back(std::move(r.second));
  return {{"every", every},
          {"columns", {"thread", "op_index", "elapsed_ms", "live_bytes", "rss_bytes", "stage"}},
          {"rows", out},
          {"means", "rows of every thread in time order. thread: worker index, or -1 for a row taken in a pause after a drop; op_index: "
                    "operations that thread had done (null in a pause); elapsed_ms: since the first worker began, pauses included; "
                    "live_bytes: that thread's live requested bytes (pause rows: all threads'); rss_bytes: process RSS growth since "
                    "before the measured phase, read by worker 0 at its rows and in pauses (null on rows of other threads); stage: "
                    "the leg (grow, hold, drop, final) or pause. A row every `every` ops of each thread, and at its end"}};
}

nlohmann::json checkpoints_json(const PhaseShared& shared, const Clock& clock, std::uint64_t rss_before) {
  nlohmann::json out = nlohmann::json::array();
  for (const CheckpointReading& c : shared.readings())
    out.push_back({{"kind", to_string(c.kind)}, {"ordinal", c.ordinal}, {"elapsed_ms", clock.ms(c.tsc)}, {"live_bytes", c.live},
                   {"rss_bytes", std::int64_t(c.rss) - std::int64_t(rss_before)}, {"pause_rows", c.pause_end - c.pause_begin}});
  return out;
}

const CheckpointReading* find_reading(const PhaseShared& shared, CheckpointKind kind, unsigned ordinal) {
  for (const CheckpointReading& c : shared.readings())
    if (c.kind == kind && c.ordinal == ordinal) return &c;
  return nullptr;
}

// The metrics (defined with the registry entries below); null where a reading is missing
// (a failed cell) or a denominator is not positive, and every RSS figure null on void (it takes
// no memory: its RSS moves by noise only).
nlohmann::json phase_metrics(const Cell& cell, const PhaseSpec& spec, const PhaseShared& shared, const Clock& clock, const PhaseMeasurement& m,
                             std::uint64_t end_live) {
  auto growth = [&](std::uint64_t rss) { return double(rss) - double(m.rss_before); };
  const double rss_end = growth(m.rss_end);
  nlohmann::json out = {{"rss_per_live_at_end", nullable_ratio(rss_end, double(end_live))}};
  auto per_live = [&](const CheckpointReading* c) { return c ? nullable_ratio(growth(c->rss), double(c->live)) : nlohmann::json(nullptr); };
  switch (phase_shape_of(cell.workload)) {
    case PhaseShape::ramp:
      out["rss_per_live_at_half"] = per_live(find_reading(shared, CheckpointKind::half, 1));
      break;
    case PhaseShape::plateau: {
      const CheckpointReading* rise = find_reading(shared, CheckpointKind::rise_end, 1);
      out["rss_per_live_after_rise"] = per_live(rise);
      out["hold_rss_growth_share"] = rise ? nullable_ratio(rss_end - growth(rise->rss), growth(rise->rss)) : nlohmann::json(nullptr);
      break;
    }
    case PhaseShape::peak: {
      const unsigned last = spec.peaks;
      const CheckpointReading *peak = find_reading(shared, CheckpointKind::peak, last), *drop = find_reading(shared, CheckpointKind::drop, last),
                              *first = find_reading(shared, CheckpointKind::peak, 1);
      for (const char* key : {"rss_at_peak_ratio", "rss_after_drop_ratio", "rss_after_pause_ratio", "freed_share", "returned_share_after_drop",
                              "returned_share_after_pause", "return_ms", "drop_ms", "regrowth_rss_ratio"})
        out[key] = nullptr;
      if (!peak || !drop || !first) break;
      const double rss_peak = growth(peak->rss), rss_drop = growth(drop->rss), live_peak = double(peak->live), live_drop = double(drop->live);
      const double rss_pause = growth(shared.pauses()[drop->pause_end - 1].rss);
      out["rss_at_peak_ratio"] = nullable_ratio(rss_peak, live_peak);
      out["rss_after_drop_ratio"] = nullable_ratio(rss_drop, live_drop);
      out["rss_after_pause_ratio"] = nullable_ratio(rss_pause, live_drop);
      out["freed_share"] = nullable_ratio(live_peak - live_drop, live_peak);
      out["returned_share_after_drop"] = nullable_ratio(rss_peak - rss_drop, rss_peak);
      out["returned_share_after_pause"] = nullable_ratio(rss_peak - rss_pause, rss_peak);
      out["drop_ms"] = clock.ms(drop->tsc) - clock.ms(peak->tsc);
      out["regrowth_rss_ratio"] = nullable_ratio(rss_end, growth(first->rss));
      const double returned = rss_peak - rss_pause;
      if (rss_peak > 0 && returned >= 0.05 * rss_peak)
        for (std::size_t j = drop->pause_begin; j < drop->pause_end; ++j)
          if (growth(shared.pauses()[j].rss) - rss_pause <= 0.1 * returned) {
            out["return_ms"] = clock.ms(shared.pauses()[j].tsc) - clock.ms(drop->tsc);
            break;
          }
      break;
    }
  }
  return out;
}

// What each workload_metrics figure means, as the record has always said: the catalogue's definitions.
nlohmann::json metrics_means(const std::string& workload) {
  nlohmann::json means = nlohmann::json::object();
  for (const Metric* m : workload_entry(workload).metrics)
    if (m->place == MetricPlace::workload_metrics) means[std::string(m->name)] = m->definition;
  return means;
}

nlohmann::json phase_record(const Cell& cell, const PhaseSpec& spec, const AllocatorSpec& allocator, const std::vector<unsigned>& pus, PhaseMeasurement m,
                            const PhasePlan& plan, const PhaseShared& shared, const std::vector<PhaseWorkerResult>& results) {
  std::vector<AllocTestThreadOutcome> outcomes;
  std::uint64_t full_array_frees = 0, late_drops = 0, origin = 0;
  for (std::size_t i = 0; i < results.size(); ++i) {
    m.workers[i].cycles = results[i].cycles;  // the work segments instead of the whole run()
    outcomes.push_back(results[i].outcome.ops);
    full_array_frees += results[i].outcome.full_array_frees;
    late_drops += results[i].outcome.late_drops;
    if (results[i].start_tsc != 0 && (origin == 0 || results[i].start_tsc < origin)) origin = results[i].start_tsc;
  }
  nlohmann::json rec = alloc_family_record(cell, allocator, pus, m, outcomes);
  if (full_array_frees > 0)
    rec["warnings"].push_back("the block array was full " + std::to_string(full_array_frees) + " times: those ops freed instead of allocating");
  if (late_drops > 0)
    rec["warnings"].push_back(std::to_string(late_drops) + " drop(s) ended after the next growth's planned end: those growths were steeper");
  const Clock clock{origin, measured_tsc_hz(m)};
  rec["timing_means"] = "cycles: each thread's work segments only (TSC at each boundary); checkpoint barriers, pauses and the series' RSS "
                        "readings are excluded. wall_time_ns, cpu_time, rusage and peak RSS cover the whole measured phase, pauses included";
  rec["phase_plan"] = plan_json(plan);
  rec["phase_checkpoints"] = checkpoints_json(shared, clock, m.rss_before);
  rec["phase_series"] = series_json(results, shared, clock, plan.sample_every, m.rss_before);
  rec["workload_metrics"] = phase_metrics(cell, spec, shared, clock, m, rec.at("end_live_requested_bytes").get<std::uint64_t>());
  if (allocator.name == VoidAllocator::name())
    for (auto& [key, value] : rec["workload_metrics"].items())
      if (key != "drop_ms") value = nullptr;
  rec["workload_metrics_means"] = metrics_means(cell.workload);
  return rec;
}

PhaseSpec phase_spec(const nlohmann::json& params) {
  PhaseSpec s;
  s.live_bytes = count_field(params, "live_bytes");
  s.drop_share = number_field(params, "drop_share");
  s.peaks = small_count_field(params, "peaks");
  s.pause_ms = count_field(params, "pause_ms");
  s.drop_order = parse_phase_drop_order(word_field(params, "drop_order"));
  return s;
}

nlohmann::json run_phase_cell(const Cell& cell, const AllocatorSpec& allocator, const Topology& topology, const std::vector<unsigned>& pus) {
  const AllocTestParams p = sized_params(cell.params, cell.threads);
  const PhaseSpec spec = phase_spec(cell.params);
  return with_size_sampler(p.sizes, p.max_size_exp, p.size_table, [&]<class Sizes>(const Sizes& sizes) {
    const PhasePlan plan = make_phase_plan(phase_shape_of(cell.workload), spec, p, sizes.mean_size(), sizes.max_size());
    PhaseShared shared(plan, phase_shape_of(cell.workload) == PhaseShape::peak ? spec.pause_ms : 0, pus.size());
    std::vector<PhaseWorkerResult> results(pus.size());
    const PhaseMeasurement m = visit_allocator_type(allocator.name, [&]<class A>() {
      return run_measured_phase<PhaseWorker<A, Sizes>>(
          topology, pus, PhaseHooks{}, [&](std::size_t i, PhaseWorker<A, Sizes>& w) { results[i] = std::move(w.result); }, plan, sizes, p,
          &shared);
    });
    return phase_record(cell, spec, allocator, pus, m, plan, shared, results);
  });
}

template <PhaseShape Shape>
void check(const nlohmann::json& params, unsigned threads) {
  const AllocTestParams p = sized_params(params, threads);
  validate(p);
  const PhaseSpec spec = phase_spec(params);
  validate(spec);
  validate(Shape, spec, p);
}

std::string describe(const nlohmann::json& p) {
  char text[256];
  std::snprintf(text, sizeof text, "; live target %.1f MiB", double(count_field(p, "live_bytes")) / 1048576.0);
  return describe_sized(p) + text;
}

std::string describe_peak(const nlohmann::json& p) {
  char text[256];
  std::snprintf(text, sizeof text, ", %s peaks, %.0f%% freed at each drop, %s ms pause after it, %s blocks freed first",
                p.at("peaks").dump().c_str(), number_field(p, "drop_share") * 100, p.at("pause_ms").dump().c_str(),
                word_field(p, "drop_order").c_str());
  return describe(p) + text;
}

template <PhaseShape Shape>
std::string refuse(const AllocatorSpec& a, const nlohmann::json& p, unsigned threads) {
  const char* name = Shape == PhaseShape::ramp ? kPhaseRampWorkload : Shape == PhaseShape::plateau ? kPhasePlateauWorkload : kPhasePeakWorkload;
  return bump_budget_refusal(name, a, p, threads, 0.5);
}

nlohmann::json defaults(const AllocTestParams& preset) {
  nlohmann::json j = sized_defaults(preset, false);
  j["iterations_per_thread"] = std::max(preset.iterations_per_thread, kLiveHeapLeastIterations);
  const PhaseSpec d;
  j.update({{"live_bytes", d.live_bytes},
            {"drop_share", d.drop_share},
            {"peaks", d.peaks},
            {"pause_ms", d.pause_ms},
            {"drop_order", std::string(to_string(d.drop_order))}});
  return j;
}

constexpr Metric kRssPerLiveAtEnd = workload_metric("rss_per_live_at_end", "ratio", "RSS/live at end", 2,
                                                    "RSS growth (RSS - RSS before the measured phase) at the end of the loop / "
                                                    "live requested bytes then, all threads; null on void (no RSS).");
constexpr Metric kRssPerLiveAtHalf = workload_metric("rss_per_live_at_half", "ratio", "RSS/live at half", 2,
                                                     "RSS growth / live requested bytes at the checkpoint halfway through.");
constexpr Metric kRssPerLiveAfterRise = workload_metric("rss_per_live_after_rise", "ratio", "RSS/live after rise", 2,
                                                        "RSS growth / live requested bytes when the target is first reached.");
constexpr Metric kHoldRssGrowth = workload_metric("hold_rss_growth_share", "fraction", "RSS growth in hold", 3,
                                                  "(RSS growth at the end - after the rise) / after the rise: how much the "
                                                  "footprint creeps while the live heap holds steady.");
constexpr Metric kRssAtPeak = workload_metric("rss_at_peak_ratio", "ratio", "RSS/live at peak", 2,
                                              "RSS growth at the last peak / live requested bytes then.", false);
constexpr Metric kFreedShare = workload_metric("freed_share", "fraction", "freed share", 2,
                                               "1 - live bytes after the last drop / at the last peak: what returning "
                                               "everything freed would give back.");
constexpr Metric kReturnedAfterDrop = workload_metric("returned_share_after_drop", "fraction", "returned after drop", 2,
                                                      "(RSS growth at the last peak - right after its drop) / RSS growth at "
                                                      "the peak.");
constexpr Metric kReturnedAfterPause = workload_metric("returned_share_after_pause", "fraction", "returned after pause", 2,
                                                       "(RSS growth at the last peak - at the end of the untimed pause after its "
                                                       "drop) / RSS growth at the peak (memory a decay timer returns late shows here).");
constexpr Metric kReturnMs = workload_metric("return_ms", "ms", "return ms", 0,
                                             "ms from the end of the last drop until RSS came within 10% of its end-of-pause "
                                             "value (0: already back when the drop ended; null: less than 5% returned).");
constexpr Metric kRssAfterDrop = workload_metric("rss_after_drop_ratio", "ratio", "RSS/live after drop", 2,
                                                 "RSS growth right after the last drop / live requested bytes after it.");
constexpr Metric kRssAfterPause = workload_metric("rss_after_pause_ratio", "ratio", "RSS/live after pause", 2,
                                                  "RSS growth at the end of the pause after the last drop / live requested "
                                                  "bytes after the drop.",
                                                  false);
constexpr Metric kDropMs = workload_metric("drop_ms", "ms", "drop ms", 1, "ms from the last peak to the end of its drop.", false);
constexpr Metric kRegrowthRss = workload_metric("regrowth_rss_ratio", "ratio", "regrowth RSS", 2,
                                                "RSS growth at the end / at the first peak; above 1: the regrowth did not fit "
                                                "in the memory kept.");

const WorkloadOption kDropShareOption{"--drop-share", "drop_share", OptionKind::percent,
                                      "phase-peak: percent of the live bytes freed at each drop", kPhaseGroup};
const WorkloadOption kPeaksOption{"--peaks", "peaks", OptionKind::count, "phase-peak: grow-and-drop cycles before the final growth",
                                  kPhaseGroup};
const WorkloadOption kDropPauseOption{"--drop-pause-ms", "pause_ms", OptionKind::count,
                                      "phase-peak: untimed pause after each drop while RSS is sampled", kPhaseGroup};
const WorkloadOption kDropOrderOption{"--drop-order", "drop_order", OptionKind::word,
                                      "phase-peak: which blocks a drop frees: newest (the document closed) or random", kPhaseGroup};

std::vector<const WorkloadOption*> phase_options(std::vector<const WorkloadOption*> own) {
  std::vector<const WorkloadOption*> o = sized_options(false);
  own.insert(own.begin(), &kLiveBytesOption);
  o.insert(o.end() - 1, own.begin(), own.end());
  return o;
}

template <PhaseShape Shape>
WorkloadEntry phase_entry(std::string_view name, std::string_view summary, std::string (*describe_fn)(const nlohmann::json&),
                          std::vector<const WorkloadOption*> own, std::vector<const Metric*> metrics) {
  WorkloadEntry entry{.name = name,
          .family = "phases",
          .summary = summary,
          .options = phase_options(std::move(own)),
          .metrics = pair_cost_metrics_and(std::move(metrics)),
          .defaults = defaults,
          .check = check<Shape>,
          .describe = describe_fn,
          .run = run_phase_cell,
          .refusal = refuse<Shape>};  // no counts: its measured phase samples RSS and pauses
  entry.soaks = Shape == PhaseShape::plateau;  // the hold is a steady state; a ramp and peaks are not
  return entry;
}

}  // namespace

extern const WorkloadEntry kPhaseRampEntry, kPhasePlateauEntry, kPhasePeakEntry;
const WorkloadEntry kPhaseRampEntry = phase_entry<PhaseShape::ramp>(
    kPhaseRampWorkload, "the live heap grows steadily to a target; RSS over time recorded", describe, {},
    {&kRssPerLiveAtHalf, &kRssPerLiveAtEnd});
const WorkloadEntry kPhasePlateauEntry = phase_entry<PhaseShape::plateau>(
    kPhasePlateauWorkload, "the live heap rises to a target, then holds it", describe, {},
    {&kRssPerLiveAfterRise, &kHoldRssGrowth, &kRssPerLiveAtEnd});
const WorkloadEntry kPhasePeakEntry = phase_entry<PhaseShape::peak>(
    kPhasePeakWorkload, "peaks: grow to the target, free most of it, pause; does the allocator give memory back?", describe_peak,
    {&kDropShareOption, &kPeaksOption, &kDropPauseOption, &kDropOrderOption},
    {&kFreedShare, &kReturnedAfterDrop, &kReturnedAfterPause, &kReturnMs, &kRssAfterDrop, &kRegrowthRss, &kRssAtPeak, &kRssAfterPause,
     &kDropMs, &kRssPerLiveAtEnd});

}  // namespace allocstress
