// Cell expansion and the JSON form of a plan.
#include "plan/matrix_plan.hpp"

#include <stdexcept>

#include "cells/model_specs_json.hpp"

namespace allocstress {

namespace {

enum class Mode { timing, simulate, profile };

MatrixCell make_cell(const MatrixPlan& plan, const std::string& workload, const AllocatorSpec& a, unsigned threads,
                     unsigned rep, Mode mode) {
  CellSpec spec;
  spec.allocator = a.name;
  spec.user_library = a.origin == "command line" ? a.library_path : "";
  spec.workload = workload;
  spec.params = plan.params;
  spec.placement = plan.placement;
  spec.params.threads = spec.placement.threads = threads;
  if (const auto it = plan.structure.find(workload); it != plan.structure.end()) spec.structure = it->second;
  if (workload == kReplayWorkload) spec.replay = plan.replay;
  if (workload == kFittedWorkload) spec.fit = plan.fit;
  spec.cross_thread = plan.cross_thread;
  spec.lifetime = plan.lifetime;
  spec.phases = plan.phases;
  spec.false_sharing = plan.false_sharing;
  spec.cache_sim = mode == Mode::simulate;
  spec.profile = mode == Mode::profile;
  spec.profile_spec.sample_every = plan.sample_every;
  const std::string key = workload + "/" + a.name + "/threads:" + std::to_string(threads) +
                          (mode == Mode::simulate  ? std::string("/cache-sim")
                           : mode == Mode::profile ? std::string("/profile")
                                                   : "/rep:" + std::to_string(rep));
  return {key, spec, rep};
}

// add(threads, workload, allocator) for every combination of the plan, in cell order: thread
// count, then workload, then allocator.
template <class Add>
void for_each_combination(const MatrixPlan& plan, Add add) {
  for (unsigned t : plan.thread_counts)
    for (const auto& w : plan.workloads)
      for (const auto& a : plan.allocators) add(t, w, a);
}

}  // namespace

const SkippedPair* MatrixPlan::skipped_pair(const std::string& workload, const std::string& allocator) const {
  for (const auto& s : skipped)
    if (s.workload == workload && s.allocator == allocator) return &s;
  return nullptr;
}

std::vector<MatrixCell> MatrixPlan::cells() const {
  std::vector<MatrixCell> out;
  for (unsigned rep = 0; rep < repetitions; ++rep)
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (skipped_pair(w, a.name) == nullptr) out.push_back(make_cell(*this, w, a, t, rep, Mode::timing));
    });
  if (cache_sim)
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (is_structure_workload(w) && skipped_pair(w, a.name) == nullptr) out.push_back(make_cell(*this, w, a, t, 0, Mode::simulate));
    });
  if (profile)
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (w == kAllocTestWorkload && a.kind == AllocatorKind::drop_in) out.push_back(make_cell(*this, w, a, t, 0, Mode::profile));
    });
  return out;
}

std::vector<MatrixCell> MatrixPlan::skipped_cells() const {
  std::vector<MatrixCell> out;
  for (unsigned rep = 0; rep < repetitions; ++rep)
    for_each_combination(*this, [&](unsigned t, const std::string& w, const AllocatorSpec& a) {
      if (skipped_pair(w, a.name) != nullptr) out.push_back(make_cell(*this, w, a, t, rep, Mode::timing));
    });
  return out;
}

nlohmann::json to_json(const AllocatorSpec& s) {
  return {{"name", s.name},
          {"kind", s.kind == AllocatorKind::in_tree ? "in_tree" : "drop_in"},
          {"library", s.library},
          {"library_path", s.library_path},
          {"package", s.package},
          {"version", s.version},
          {"origin", s.origin},
          {"unavailable_reason", s.unavailable_reason}};
}

AllocatorSpec allocator_spec_from_json(const nlohmann::json& j) {
  AllocatorSpec s;
  s.name = j.at("name").get<std::string>();
  s.kind = j.at("kind") == "in_tree" ? AllocatorKind::in_tree : AllocatorKind::drop_in;
  s.library = j.at("library").get<std::string>();
  s.library_path = j.at("library_path").get<std::string>();
  s.package = j.at("package").get<std::string>();
  s.version = j.at("version").get<std::string>();
  s.origin = j.at("origin").get<std::string>();
  s.unavailable_reason = j.at("unavailable_reason").get<std::string>();
  return s;
}

nlohmann::json MatrixPlan::to_json() const {
  nlohmann::json allocs = nlohmann::json::array(), excl = nlohmann::json::array();
  for (const auto& a : allocators) allocs.push_back(allocstress::to_json(a));
  for (const auto& e : excluded) excl.push_back({{"allocator", allocstress::to_json(e.spec)}, {"status", e.status}, {"reason", e.reason}});
  nlohmann::json plan_params = params_json(params);
  plan_params.erase("slots_per_thread");  // depends on the thread count: given per cell
  nlohmann::json structure_json = nlohmann::json::object(), skipped_json = nlohmann::json::array();
  for (const auto& [w, sp] : structure) structure_json[w] = structure_params_json(w, sp);
  for (const auto& sk : skipped) skipped_json.push_back({{"workload", sk.workload}, {"allocator", sk.allocator}, {"reason", sk.reason}});
  return {{"preset", preset},
          {"manifest", manifest},
          {"workloads", workloads},
          {"params", plan_params},
          {"structure_params", structure_json},
          {"replay", {{"trace", replay.trace}, {"program", replay.program}, {"memory_access", to_string(replay.access)},
                      {"allocstats_every", replay.allocstats_every}}},
          {"fit", fit},
          {"cross_thread", cross_thread},
          {"lifetime", lifetime},
          {"phases", phases},
          {"false_sharing", false_sharing},
          {"cache_sim", cache_sim},
          {"profile", profile},
          {"sample_every", sample_every},
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
    MatrixPlan p;
    p.preset = j.at("preset").get<std::string>();
    p.manifest = j.at("manifest").get<std::string>();
    const auto& params = j.at("params");
    p.params.slots_total = params.at("slots_total").get<std::uint64_t>();
    p.params.max_size_exp = params.at("max_size_exp").get<unsigned>();
    p.params.iterations_per_thread = params.at("iterations_per_thread").get<std::uint64_t>();
    p.params.access = parse_memory_access(params.at("memory_access").get<std::string>());
    p.params.seed = params.at("seed").get<std::uint64_t>();
    p.params.sizes = parse_size_model(params.value("size_model", std::string("inverse")));
    p.workloads = j.at("workloads").get<std::vector<std::string>>();
    for (const auto& [w, sp] : j.at("structure_params").items()) {
      StructureParams s;
      s.nodes = sp.at("nodes").get<std::uint64_t>();
      s.node_size = sp.at("node_size").get<std::uint64_t>();
      s.searches = sp.at("searches").get<std::uint64_t>();
      s.interleave = sp.at("interleave").get<unsigned>();
      s.churn_percent = sp.at("churn_percent").get<unsigned>();
      s.hints = sp.at("hints").get<bool>();
      s.heads = sp.value("heads", s.heads);
      s.zipf = sp.value("zipf", s.zipf);
      p.structure[w] = s;
    }
    if (const auto r = j.find("replay"); r != j.end()) {
      p.replay.trace = r->at("trace").get<std::string>();
      p.replay.program = r->at("program").get<std::string>();
      p.replay.access = parse_memory_access(r->at("memory_access").get<std::string>());
      p.replay.allocstats_every = r->at("allocstats_every").get<std::uint64_t>();
    }
    p.fit = j.value("fit", std::string());
    // Plans written before the workloads beyond the 2018 model lack these: the defaults apply.
    if (j.contains("cross_thread")) p.cross_thread = j.at("cross_thread").get<CrossThreadSpec>();
    if (j.contains("lifetime")) p.lifetime = j.at("lifetime").get<LifetimeModelSpec>();
    if (j.contains("phases")) p.phases = j.at("phases").get<PhaseSpec>();
    if (j.contains("false_sharing")) p.false_sharing = j.at("false_sharing").get<FalseSharingSpec>();
    p.cache_sim = j.at("cache_sim").get<bool>();
    p.profile = j.at("profile").get<bool>();
    p.sample_every = j.at("sample_every").get<std::uint64_t>();
    for (const auto& sk : j.at("skipped"))
      p.skipped.push_back({sk.at("workload").get<std::string>(), sk.at("allocator").get<std::string>(), sk.at("reason").get<std::string>()});
    p.placement.policy = parse_placement(j.at("placement").get<std::string>());
    p.placement.reserve_os_pu = j.at("reserve_os_pu").get<bool>();
    p.placement.oversubscribe = j.at("oversubscribe").get<bool>();
    p.thread_counts = j.at("thread_counts").get<std::vector<unsigned>>();
    p.repetitions = j.at("repetitions").get<unsigned>();
    p.cell_timeout_s = j.at("cell_timeout_s").get<double>();
    for (const auto& a : j.at("allocators")) p.allocators.push_back(allocator_spec_from_json(a));
    for (const auto& e : j.at("excluded"))
      p.excluded.push_back({allocator_spec_from_json(e.at("allocator")), e.at("status").get<std::string>(),
                            e.at("reason").get<std::string>()});
    return p;
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("not a valid matrix plan: ") + e.what());
  }
}

std::vector<std::string> cell_command(const std::string& executable, const MatrixPlan& plan, const MatrixCell& cell) {
  std::vector<std::string> argv = {executable, "run"};
  for (auto& a : run_arguments(cell.spec)) argv.push_back(std::move(a));
  argv.push_back("--manifest");
  argv.push_back(plan.manifest);
  return argv;
}

}  // namespace allocstress
