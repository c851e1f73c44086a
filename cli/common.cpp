// Thread lists, shared workload options and catalogue loading for the CLI.
#include "cli/common.hpp"

#include "allocators/eqclass_allocator.hpp"
#include "results/results_journal.hpp"
#include "platform/syscall_trace.hpp"
#include "platform/json_text.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <sstream>

namespace allocstress {


// Digits only: CLI11 would otherwise read "-1" into an unsigned option as 2^64 - 1.
const CLI::Validator kWholeNumber(
    [](std::string& text) -> std::string {
      if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) return "";
      return "'" + text + "' is not a whole number >= 0";
    },
    "WHOLE NUMBER");

namespace {
std::string workload_list() {
  std::string out;
  for (const auto& w : workload_names()) out += (out.empty() ? "" : ", ") + w;
  return out;
}
}  // namespace

void WorkloadOptions::add_to(CLI::App& app) {
  tracked = {
      app.add_option("--workload", workload, "Workload: " + workload_list() + " (default alloc-test)"),
      app.add_option("--slots", slots, "alloc-test/xthread/larson: total slots, split equally across threads")->check(kWholeNumber),
      app.add_option("--sizes", sizes, "Block sizes of alloc-test, xthread, larson, lifetime, phase-*: inverse (p ~ 1/size below 2^E, default) or fleet (published fleet mix)"),
      app.add_option("--max-size-exp", max_size_exp, "E: --sizes inverse draws sizes < 2^E (accepted: 3..28)")->check(kWholeNumber),
      app.add_option("--iterations", iterations, "Iterations (operations) per thread of alloc-test, xthread, larson, phase-*; allocations per thread of lifetime")->check(kWholeNumber),
      app.add_option("--access", access, "Memory access per block: none, write, write_read (default write_read; replay none)"),
      app.add_option("--seed", seed, "Seed of the operation stream")->check(kWholeNumber),
      app.add_option("--placement", placement, "Thread placement: " + placement_names() + " (default compact; one-per-core = SMT off, smt-pairs = both SMT siblings of a core)"),
      app.add_option("--nodes", nodes, "bintree/linkedlist/multilist: nodes (multilist: sub-list nodes)")->check(kWholeNumber),
      app.add_option("--node-size", node_size, "bintree/linkedlist/multilist: bytes per node, a multiple of 8")->check(kWholeNumber),
      app.add_option("--searches", searches, "bintree/linkedlist/multilist: queries per thread")->check(kWholeNumber),
      app.add_option("--interleave", interleave, "bintree/linkedlist/multilist: other-sized live blocks after each node (0..64)")->check(kWholeNumber),
      app.add_option("--churn", churn, "bintree/linkedlist/multilist: percent of nodes deleted and re-inserted before searching")->check(kWholeNumber),
      app.add_option("--heads", heads, "multilist: head nodes")->check(kWholeNumber),
      app.add_option("--zipf", zipf, "multilist: key1 popularity ~ 1/rank^ZIPF (0..10, 0 = uniform)"),
      app.add_flag("--hints", hints, "bintree/linkedlist/multilist: pass hot/cold placement hints to the allocator"),
      app.add_option("--trace", trace, "replay: the trace file (allocstress trace, or allocstress import)"),
      app.add_option("--allocstats-every", allocstats_every, "replay: an allocstats row every K operations of a thread (default: ~200 rows, K >= 10000)")
          ->check(kWholeNumber),
      app.add_option("--replay-program", replay_program, "(internal) the trace's replay program, built beforehand")->group(""),
      app.add_option("--fit", fit, "fitted: the fit file written by `allocstress fit` (its threads and seed unless --threads/--seed)"),
      app.add_option("--remote-share", remote_share, "xthread: percent of frees handed to the next thread (0..100, default 50)"),
      app.add_option("--queue-capacity", queue_capacity, "xthread: blocks one hand-off queue holds (default 1024)")->check(kWholeNumber),
      app.add_option("--rounds", rounds, "larson: rounds the iterations are split into, the slot arrays passing to the next thread between rounds (default 16); false-sharing-*: rounds (default 1000)")->check(kWholeNumber),
      app.add_option("--lifetime", lifetime, "lifetime: exponential (default), pareto or size-classes"),
      app.add_option("--live-bytes", live_bytes, "lifetime, phase-*: target live heap of all threads together, bytes (default 64 MiB)")->check(kWholeNumber),
      app.add_option("--drop-share", drop_share, "phase-peak: percent of the live bytes freed at each drop (default 90)"),
      app.add_option("--peaks", peaks, "phase-peak: grow-and-drop cycles before the final growth (default 2)")->check(kWholeNumber),
      app.add_option("--drop-order", drop_order, "phase-peak: which blocks a drop frees: newest (the document closed, default) or random"),
      app.add_option("--drop-pause-ms", pause_ms, "phase-peak: untimed pause after each drop while RSS is sampled (default 100)")->check(kWholeNumber),
      app.add_option("--object-size", object_size, "false-sharing-*: bytes per object (default 8)")->check(kWholeNumber),
      app.add_option("--objects", objects, "false-sharing-*: objects per thread per round (default 16)")->check(kWholeNumber),
      app.add_option("--writes", writes, "false-sharing-*: writes to each object per round (default 1000)")->check(kWholeNumber),
  };
  app.add_flag("--reserve-os-pu", reserve_os_pu, "Leave the last PU free for the OS");
  app.add_flag("--oversubscribe", oversubscribe, "Allow more worker threads than usable PUs");
  app.add_option("--manifest", manifest, "Drop-in allocator manifest (default: allocators/manifest.tsv)");
}

bool WorkloadOptions::given(const std::string& long_name) const {
  for (const CLI::Option* o : tracked)
    if (o->get_name() == long_name) return o->count() > 0;
  return false;
}

void check_profile_request(const CellSpec& cell, const AllocatorSpec& allocator, bool cache_sim) {
  if (cache_sim) throw UsageError("--profile and --cache-sim are separate runs: pass one of them");
  if (cell.workload != kAllocTestWorkload)
    throw UsageError("--profile applies to alloc-test, not to " + cell.workload + " (accepted: --workload alloc-test)");
  if (allocator.kind != AllocatorKind::drop_in)
    throw UsageError("--profile measures malloc libraries; '" + allocator.name + "' is an in-tree backend (accepted: drop-in allocators)");
  if (cell.profile_spec.sample_every == 0) throw UsageError("--sample-every must be at least 1, got 0");
  const std::string& pass = cell.profile_spec.pass;
  if (!pass.empty() && pass != "sample" && pass != "syscalls")
    throw UsageError("unknown --profile-pass '" + pass + "' (accepted: sample, syscalls)");
  if (const std::string missing = syscall_trace_unavailable(); !missing.empty()) throw UsageError(missing);
}

void check_new_output_file(const std::filesystem::path& path, bool force) {
  if (path.extension() != ".json") throw UsageError("--out " + path.string() + " must end in .json");
  const std::filesystem::path folder = path.has_parent_path() ? path.parent_path() : ".";
  if (!std::filesystem::is_directory(folder)) throw UsageError("output folder " + folder.string() + " does not exist");
  if (access(folder.c_str(), W_OK) != 0) throw UsageError("output folder " + folder.string() + " is not writable");
  if (std::filesystem::exists(path) && !force)
    throw UsageError("output file " + path.string() + " already exists (pass --force to overwrite, or choose another --out)");
}

AllocatorCatalog load_catalog(const std::string& manifest_option, const std::vector<std::string>& user_libraries) {
  try {
    EqClassAllocator::hot_blocks_from_environment();  // a bad tuning variable is bad input, before anything runs
    AllocatorCatalog catalog(manifest_option.empty() ? default_manifest_path() : std::filesystem::path(manifest_option));
    for (const auto& lib : user_libraries) catalog.add_user_library(lib);
    return catalog;
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

namespace {

// Options that apply to some workloads only: the option, the workloads it applies to (as said in
// the error), and whether a workload takes it.
struct OptionScope {
  const char* option;
  const char* workloads;
  bool (*applies)(const std::string& workload);
};

bool is_larson_or_false_sharing(const std::string& w) { return w == kLarsonWorkload || is_false_sharing_workload(w); }
bool is_xthread(const std::string& w) { return w == kXThreadWorkload; }
bool is_lifetime(const std::string& w) { return w == kLifetimeWorkload; }
bool is_phase_peak(const std::string& w) { return w == kPhasePeakWorkload; }
bool has_live_target(const std::string& w) { return w == kLifetimeWorkload || is_phase_workload(w); }
bool is_false_sharing(const std::string& w) { return is_false_sharing_workload(w); }
bool takes_access(const std::string& w) { return draws_sizes(w) || w == kReplayWorkload || w == kFittedWorkload; }

const OptionScope kScopedOptions[] = {
    {"--slots", "alloc-test, xthread and larson", uses_slots},
    {"--sizes", "alloc-test, xthread, larson, lifetime and phase-*", draws_sizes},
    {"--max-size-exp", "alloc-test, xthread, larson, lifetime and phase-*", draws_sizes},
    {"--iterations", "alloc-test, xthread, larson, lifetime and phase-*", draws_sizes},
    {"--access", "alloc-test, xthread, larson, lifetime, phase-*, replay and fitted", takes_access},
    {"--remote-share", "xthread", is_xthread},
    {"--queue-capacity", "xthread", is_xthread},
    {"--rounds", "larson and false-sharing-*", is_larson_or_false_sharing},
    {"--lifetime", "lifetime", is_lifetime},
    {"--live-bytes", "lifetime and phase-*", has_live_target},
    {"--drop-share", "phase-peak", is_phase_peak},
    {"--peaks", "phase-peak", is_phase_peak},
    {"--drop-pause-ms", "phase-peak", is_phase_peak},
    {"--drop-order", "phase-peak", is_phase_peak},
    {"--object-size", "false-sharing-*", is_false_sharing},
    {"--objects", "false-sharing-*", is_false_sharing},
    {"--writes", "false-sharing-*", is_false_sharing},
};
const char* const kReplayOptions[] = {"--trace", "--allocstats-every", "--replay-program"};
const char* const kStructureOptions[] = {"--nodes", "--node-size", "--searches", "--interleave", "--churn", "--hints", "--heads", "--zipf"};

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

}  // namespace

std::vector<std::string> selected_workloads(const WorkloadOptions& o, bool allow_list) {
  std::vector<std::string> out;
  std::stringstream items(o.workload);
  std::string item;
  while (std::getline(items, item, ','))
    if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  const std::string accepted = joined(workload_names());
  if (out.empty()) throw UsageError("--workload '" + o.workload + "' names no workload (accepted: " + accepted + ")");
  if (out.size() > 1 && !allow_list)
    throw UsageError("run takes one workload, got '" + o.workload + "' (accepted: one of " + accepted + ")");
  for (const auto& w : out)
    if (std::find(workload_names().begin(), workload_names().end(), w) == workload_names().end())
      throw UsageError("unknown workload '" + w + "' (accepted: " + accepted + ")");
  const bool any_structure = std::any_of(out.begin(), out.end(), [](const std::string& w) { return is_structure_workload(w); });
  const bool any_multilist = std::find(out.begin(), out.end(), kMultiListWorkload) != out.end();
  const bool any_replay = std::find(out.begin(), out.end(), kReplayWorkload) != out.end();
  for (const OptionScope& scope : kScopedOptions)
    if (o.given(scope.option) && std::none_of(out.begin(), out.end(), scope.applies))
      throw UsageError(std::string(scope.option) + " applies to " + scope.workloads + " only, not to " + joined(out));
  const bool any_fitted = std::find(out.begin(), out.end(), kFittedWorkload) != out.end();
  if (o.given("--fit") && !any_fitted) throw UsageError("--fit applies to fitted only, not to " + joined(out));
  if (any_fitted && o.fit.empty()) throw UsageError("--workload fitted needs --fit FILE (written by `allocstress fit TRACE -o FILE`)");
  for (const char* opt : kReplayOptions)
    if (o.given(opt) && !any_replay) throw UsageError(std::string(opt) + " applies to replay only, not to " + joined(out));
  if (any_replay && out.size() > 1)
    throw UsageError("replay runs the trace's own threads and cannot share a matrix with " + joined(out) + " (run it alone)");
  if (any_replay && o.trace.empty()) throw UsageError("--workload replay needs --trace FILE (a trace from `allocstress trace` or `allocstress import`)");
  for (const char* opt : kStructureOptions) {
    const bool multilist_only = std::string(opt) == "--heads" || std::string(opt) == "--zipf";
    if (o.given(opt) && (multilist_only ? !any_multilist : !any_structure))
      throw UsageError(std::string(opt) + " applies to " + (multilist_only ? "multilist" : "bintree, linkedlist and multilist") +
                       " only, not to " + joined(out));
  }
  return out;
}

StructureParams structure_params_for(const WorkloadOptions& o, const std::string& workload) {
  StructureParams p = default_structure_params(workload);
  if (o.given("--nodes")) p.nodes = o.nodes;
  if (o.given("--node-size")) p.node_size = o.node_size;
  if (o.given("--searches")) p.searches = o.searches;
  if (o.given("--interleave")) p.interleave = o.interleave;
  if (o.given("--churn")) p.churn_percent = o.churn;
  if (o.given("--hints")) p.hints = o.hints;
  if (workload == kMultiListWorkload) {
    if (o.given("--heads")) p.heads = o.heads;
    if (o.given("--zipf")) p.zipf = o.zipf;
  }
  try {
    validate(workload, p);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return p;
}

void apply_workload_options(const WorkloadOptions& o, AllocTestParams& p, PlacementRequest& placement) {
  try {
    if (o.given("--slots")) p.slots_total = o.slots;
    if (o.given("--max-size-exp")) p.max_size_exp = o.max_size_exp;
    if (o.given("--iterations")) p.iterations_per_thread = o.iterations;
    if (o.given("--access")) p.access = parse_memory_access(o.access);
    if (o.given("--sizes")) p.sizes = parse_size_model(o.sizes);
    if (o.given("--seed")) p.seed = o.seed;
    placement.policy = parse_placement(o.placement);
    placement.reserve_os_pu = o.reserve_os_pu;
    placement.oversubscribe = o.oversubscribe;
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

FitConfig load_fit_option(const WorkloadOptions& o, std::string& path) {
  try {
    FitConfig fit = load_fit_config(o.fit);
    path = std::filesystem::absolute(o.fit).string();
    return fit;
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

void apply_model_options(const WorkloadOptions& o, CrossThreadSpec& cross_thread, LifetimeModelSpec& lifetime, PhaseSpec& phases,
                         FalseSharingSpec& false_sharing) {
  auto percent = [&](const char* option, double value) {
    if (!(value >= 0 && value <= 100))
      throw UsageError(std::string(option) + " " + nlohmann::json(value).dump() + " is out of range (accepted: a percentage 0..100)");
    return value / 100;
  };
  try {
    if (o.given("--remote-share")) cross_thread.remote_share = percent("--remote-share", o.remote_share);
    if (o.given("--queue-capacity")) cross_thread.queue_capacity = o.queue_capacity;
    if (o.given("--rounds")) cross_thread.rounds = false_sharing.rounds = o.rounds;
    if (o.given("--lifetime")) lifetime.shape = parse_lifetime_shape(o.lifetime);
    if (o.given("--live-bytes")) lifetime.live_bytes = phases.live_bytes = o.live_bytes;
    if (o.given("--drop-share")) phases.drop_share = percent("--drop-share", o.drop_share);
    if (o.given("--peaks")) phases.peaks = o.peaks > 0xffff'ffffu ? 0xffff'ffffu : unsigned(o.peaks);
    if (o.given("--drop-pause-ms")) phases.pause_ms = o.pause_ms;
    if (o.given("--drop-order")) phases.drop_order = parse_phase_drop_order(o.drop_order);
    if (o.given("--object-size")) false_sharing.object_size = o.object_size;
    if (o.given("--objects")) false_sharing.objects = o.objects;
    if (o.given("--writes")) false_sharing.writes = o.writes;
    const std::vector<std::string> chosen = selected_workloads(o, true);
    auto any = [&](bool (*applies)(const std::string&)) { return std::any_of(chosen.begin(), chosen.end(), applies); };
    if (any(is_xthread) || any([](const std::string& w) { return w == kLarsonWorkload; })) validate(cross_thread);
    if (any(is_lifetime)) validate(lifetime);
    if (any([](const std::string& w) { return is_phase_workload(w); })) validate(phases);
    if (any(is_false_sharing)) validate(false_sharing);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

void validate_sized_workload(const CellSpec& c) {
  try {
    if (draws_sizes(c.workload)) validate(c.params);
    if (c.workload == kLarsonWorkload) validate_larson_rounds(c.cross_thread.rounds, c.params.iterations_per_thread);
    if (c.workload == kLifetimeWorkload) validate(c.lifetime, c.params);
    if (is_phase_workload(c.workload)) validate(phase_shape_of(c.workload), c.phases, c.params);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

ReplaySpec replay_spec_for(const WorkloadOptions& o) {
  ReplaySpec spec;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(o.trace, ec)) throw UsageError("trace file " + o.trace + " does not exist or is not a file");
  if (::access(o.trace.c_str(), R_OK) != 0) throw UsageError("trace file " + o.trace + " is not readable");
  spec.trace = std::filesystem::absolute(o.trace).string();
  spec.program = o.replay_program;
  spec.allocstats_every = o.allocstats_every;
  try {
    if (o.given("--access")) spec.access = parse_memory_access(o.access);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  return spec;
}

}  // namespace allocstress
