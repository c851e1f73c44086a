// Cell expansion and the JSON form of a plan.
#include "plan/matrix_plan.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

#include "allocators/void_allocator.hpp"
#include "cells/programs/program_workloads.hpp"
#include "cells/record_identity.hpp"
#include "cells/workload_registry.hpp"
#include "plan/cell_encoding.hpp"
#include "plan/workload_params.hpp"
#include "platform/json_numbers.hpp"
#include "workloads/heap_ageing.hpp"

namespace allocstress {

namespace {

// variant: a thp cell's mode, an aged or soak cell's spec.
MatrixCell make_cell(const MatrixPlan& plan, const std::string& workload, const AllocatorSpec& a, unsigned threads, unsigned rep,
                     CellMode mode, const std::string& variant = "") {
  Cell c;
  c.allocator = a.name;
  c.allocator_library = a.origin == "command line" ? added_allocator_value(a) : "";
  c.manifest = plan.manifest;
  c.resolved = a;  // resolved once, by the planner: the cell process runs it as it is
  c.workload = workload;
  c.threads = threads;
  c.placement = plan.placement;
  c.params = plan.params.at(workload);
  if (const auto it = plan.inputs.find(workload); it != plan.inputs.end()) c.inputs = it->second;
  c.mode = mode;
  c.profile.sample_every = plan.sample_every;
  if (mode == CellMode::aged) c.age = variant;
  if (mode == CellMode::thp) c.thp_mode = variant;
  if (mode == CellMode::soak) c.soak = variant;
  if (mode == CellMode::counts) c.params = counts_params(workload_entry(workload), c.params, plan.counts_iterations);
  // timing, aged and thp cells repeat: their keys end with the repetition
  const bool repeats = mode == CellMode::timing || mode == CellMode::aged || mode == CellMode::thp;
  const std::string key = record_name(c) + (repeats ? "/rep:" + std::to_string(rep) : "");
  return {key, std::move(c), rep};
}

// add(threads, workload, allocator) for every combination of the plan, in cell order: thread
// count, then workload, then allocator.
template <class Add>
void for_each_combination(const MatrixPlan& plan, Add add) {
  for (unsigned t : plan.thread_counts)
    for (const auto& w : plan.workloads)
      for (const auto& a : plan.allocators) add(t, w, a);
}

// A duration or a share in a plan: a finite number ≥ 0 (> 0 when `positive`).
double seconds_or_share(const nlohmann::json& v, const std::string& name, bool positive) {
  if (!v.is_number() || !(positive ? v.get<double>() > 0 : v.get<double>() >= 0) || !std::isfinite(v.get<double>()))
    throw std::invalid_argument("\"" + name + "\" must be a number " + (positive ? "> 0" : "≥ 0") + ", got " + v.dump());
  return v.get<double>();
}

}  // namespace

const SkippedPair* MatrixPlan::skipped_pair(const std::string& workload, const std::string& allocator) const {
  for (const auto& s : skipped)
    if (s.workload == workload && s.allocator == allocator) return &s;
  return nullptr;
}

std::vector<MatrixCell> MatrixPlan::cells() const {
  std::vector<MatrixCell> out;
  for (unsigned rep = 0; rep < repetitions; ++rep) {
    const std::size_t first = out.size();
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (skipped_pair(w, a.name) != nullptr) return;
      out.push_back(make_cell(*this, w, a, t, rep, CellMode::timing));
      if (!age.empty() && workload_entry(w).ages && a.name != VoidAllocator::name())
        for (const std::string& spec : {age, warmed_spec_text(age)}) out.push_back(make_cell(*this, w, a, t, rep, CellMode::aged, spec));
      for (const std::string& mode : thp_variants) out.push_back(make_cell(*this, w, a, t, rep, CellMode::thp, mode));
    });
    if (randomised_order) {
      std::mt19937_64 order(0x5eed1000u + rep);
      std::shuffle(out.begin() + std::ptrdiff_t(first), out.end(), order);
    }
  }
  if (!memory_limit.empty())
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (skipped_pair(w, a.name) == nullptr && a.name != VoidAllocator::name()) out.push_back(make_cell(*this, w, a, t, 0, CellMode::limited));
    });
  if (!soak.empty())
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (skipped_pair(w, a.name) == nullptr && a.name != VoidAllocator::name() && workload_entry(w).soaks)
        out.push_back(make_cell(*this, w, a, t, 0, CellMode::soak, soak));
    });
  // The counts tier: one cell per allocator at 1 thread for the workloads that count (at every
  // thread count for those that count per worker), and the 1-thread cache simulation of those
  // that simulate caches instead.
  if (counts)
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      const WorkloadEntry& e = workload_entry(w);
      if (skipped_pair(w, a.name) != nullptr) return;
      if (is_program_workload(w) && (!program_counts || params.at(w).at("program").value("drive", "run") == "server")) return;
      if (e.counts && (t == 1 || e.counts_threads)) out.push_back(make_cell(*this, w, a, t, 0, CellMode::counts));
      else if (t == 1 && !e.counts && e.simulates_caches && !cache_sim) out.push_back(make_cell(*this, w, a, t, 0, CellMode::simulate));
    });
  if (cache_sim)
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (workload_entry(w).simulates_caches && skipped_pair(w, a.name) == nullptr)
        out.push_back(make_cell(*this, w, a, t, 0, CellMode::simulate));
    });
  if (profile)
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (workload_entry(w).profiles && a.kind == AllocatorKind::drop_in) out.push_back(make_cell(*this, w, a, t, 0, CellMode::profile));
    });
  return out;
}

std::vector<MatrixCell> MatrixPlan::warmup_cells() const {
  std::vector<MatrixCell> out;
  for (unsigned round = 0; round < warmup_runs; ++round) {
    std::vector<MatrixCell> cells;
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (!is_program_workload(w) || skipped_pair(w, a.name) != nullptr) return;
      MatrixCell c = make_cell(*this, w, a, t, 0, CellMode::timing);
      c.key = record_name(c.cell) + "/warmup:" + std::to_string(round);
      cells.push_back(std::move(c));
    });
    std::mt19937_64 order(0x5eed2000u + round);
    std::shuffle(cells.begin(), cells.end(), order);
    if (round == 0)  // system's output is the reference the others are checked against
      std::stable_partition(cells.begin(), cells.end(), [](const MatrixCell& c) { return c.cell.allocator == kReferenceAllocator; });
    out.insert(out.end(), cells.begin(), cells.end());
  }
  return out;
}

MatrixCell MatrixPlan::timing_cell(const std::string& workload, const AllocatorSpec& allocator, unsigned threads, unsigned repetition) const {
  return make_cell(*this, workload, allocator, threads, repetition, CellMode::timing);
}

std::vector<MatrixCell> MatrixPlan::skipped_cells() const {
  std::vector<MatrixCell> out;
  for (unsigned rep = 0; rep < repetitions; ++rep)
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (skipped_pair(w, a.name) != nullptr) out.push_back(make_cell(*this, w, a, t, rep, CellMode::timing));
    });
  return out;
}

nlohmann::json MatrixPlan::to_json() const {
  nlohmann::json allocs = nlohmann::json::array(), excl = nlohmann::json::array();
  for (const auto& a : allocators) allocs.push_back(allocstress::to_json(a));
  for (const auto& e : excluded) excl.push_back({{"allocator", allocstress::to_json(e.spec)}, {"status", e.status}, {"reason", e.reason}});
  nlohmann::json structure_json = nlohmann::json::object(), skipped_json = nlohmann::json::array();
  for (const auto& [w, p] : params)  // the data structures' parameters without the seed, as results files always had them
    if (const WorkloadEntry* e = find_workload(w); e != nullptr && e->table == TableKind::structure) {
      structure_json[w] = p;
      structure_json[w].erase("seed");
    }
  for (const auto& sk : skipped) skipped_json.push_back({{"workload", sk.workload}, {"allocator", sk.allocator}, {"reason", sk.reason}});
  return {{"preset", preset},
          {"manifest", manifest},
          {"workloads", workloads},
          {"params", preset_params},
          {"structure_params", structure_json},
          {"workload_params", params},
          {"workload_inputs", inputs},
          {"cache_sim", cache_sim},
          {"profile", profile},
          {"sample_every", sample_every},
          {"counts", counts},
          {"counts_iterations", counts_iterations},
          {"program_counts", program_counts},
          {"target_ci", target_ci},
          {"time_budget_s", time_budget_s},
          {"warmup_runs", warmup_runs},
          {"randomised_order", randomised_order},
          {"memory_limit", memory_limit},
          {"thp_mode", thp_mode},
          {"age", age},
          {"soak", soak},
          {"misuse", misuse},
          {"thp_variants", thp_variants},
          {"skipped", skipped_json},
          {"placement", to_string(placement.policy)},
          {"reserve_os_pu", placement.reserve_os_pu},
          {"oversubscribe", placement.oversubscribe},
          {"thread_counts", thread_counts},
          {"repetitions", repetitions},
          {"cell_timeout_s", cell_timeout_s},
          {"allocators", allocs},
          {"excluded", excl}};
}

MatrixPlan MatrixPlan::from_json(const nlohmann::json& j) {
  try {
    if (!j.contains("workload_params"))
      throw std::runtime_error("it has no workload_params: an older allocstress wrote it (plan the matrix again)");
    MatrixPlan p;
    p.preset = j.at("preset").get<std::string>();
    p.manifest = j.at("manifest").get<std::string>();
    p.workloads = j.at("workloads").get<std::vector<std::string>>();
    declare_programs_of(j);
    for (const auto& w : p.workloads) workload_entry(w);  // a workload this allocstress knows
    p.params = j.at("workload_params").get<std::map<std::string, nlohmann::json>>();
    for (const auto& w : p.workloads)
      if (!p.params.count(w)) throw std::runtime_error("workload_params lacks " + w);
    p.inputs = j.value("workload_inputs", std::map<std::string, nlohmann::json>{});
    p.preset_params = j.at("params");
    p.cache_sim = j.at("cache_sim").get<bool>();
    p.profile = j.at("profile").get<bool>();
    p.sample_every = json_whole_number(j.at("sample_every"), "sample_every", 1);
    p.counts = j.value("counts", false);  // plans written before the counts tier have none
    p.counts_iterations = j.contains("counts_iterations") ? json_whole_number(j.at("counts_iterations"), "counts_iterations", 1) : kDefaultCountsIterations;
    p.program_counts = j.value("program_counts", false);
    p.target_ci = j.contains("target_ci") ? seconds_or_share(j.at("target_ci"), "target_ci", false) : 0.0;  // plans written before adaptive repetitions have none
    p.time_budget_s = j.contains("time_budget_s") ? seconds_or_share(j.at("time_budget_s"), "time_budget_s", false) : 0.0;
    p.warmup_runs = j.contains("warmup_runs") ? json_small_whole_number(j.at("warmup_runs"), "warmup_runs") : 0;  // plans written before warm-up runs have none
    p.randomised_order = j.value("randomised_order", false);
    p.memory_limit = j.value("memory_limit", "");
    p.thp_mode = j.value("thp_mode", "");
    p.age = j.value("age", "");
    p.soak = j.value("soak", "");
    p.misuse = j.value("misuse", false);
    p.thp_variants = j.value("thp_variants", std::vector<std::string>{});
    for (const auto& sk : j.at("skipped"))
      p.skipped.push_back({sk.at("workload").get<std::string>(), sk.at("allocator").get<std::string>(), sk.at("reason").get<std::string>()});
    p.placement.policy = parse_placement(j.at("placement").get<std::string>());
    p.placement.reserve_os_pu = j.at("reserve_os_pu").get<bool>();
    p.placement.oversubscribe = j.at("oversubscribe").get<bool>();
    const nlohmann::json& threads = j.at("thread_counts");
    if (!threads.is_array() || threads.empty())
      throw std::invalid_argument("\"thread_counts\" must be a list of whole numbers ≥ 1, got " + threads.dump());
    for (std::size_t i = 0; i < threads.size(); ++i)
      p.thread_counts.push_back(json_small_whole_number(threads[i], "thread_counts[" + std::to_string(i) + "]", 1));
    p.repetitions = json_small_whole_number(j.at("repetitions"), "repetitions", 1);
    p.cell_timeout_s = seconds_or_share(j.at("cell_timeout_s"), "cell_timeout_s", true);
    for (const auto& a : j.at("allocators")) p.allocators.push_back(allocator_spec_from_json(a));
    for (const auto& e : j.at("excluded"))
      p.excluded.push_back({allocator_spec_from_json(e.at("allocator")), e.at("status").get<std::string>(),
                            e.at("reason").get<std::string>()});
    return p;
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("not a valid matrix plan: ") + e.what());
  }
}

}  // namespace allocstress
