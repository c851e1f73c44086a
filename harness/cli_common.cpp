// Thread lists, shared workload options and catalogue loading for the CLI.
#include "cli_common.hpp"

#include "../allocators/eqclass_allocator.hpp"
#include "results_journal.hpp"
#include "syscall_trace.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <iostream>
#include <sstream>

namespace allocstress {

namespace {

unsigned parse_count(const std::string& token, const std::string& whole) {
  if (token.empty() || !std::all_of(token.begin(), token.end(), [](unsigned char c) { return std::isdigit(c); }) ||
      token.size() > 6)
    throw UsageError("invalid --threads '" + whole + "': '" + token +
                     "' is not a positive whole number (accepted: 1,2,4 or 1-4)");
  const unsigned v = unsigned(std::stoul(token));
  if (v == 0) throw UsageError("invalid --threads '" + whole + "': 0 threads (accepted: counts >= 1, e.g. 1,2,4 or 1-4)");
  return v;
}

}  // namespace

// Digits only: CLI11 would otherwise read "-1" into an unsigned option as 2^64 - 1.
const CLI::Validator kWholeNumber(
    [](std::string& text) -> std::string {
      if (!text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) return "";
      return "'" + text + "' is not a whole number >= 0";
    },
    "WHOLE NUMBER");

std::vector<unsigned> parse_thread_list(const std::string& text) {
  std::vector<unsigned> out;
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    const auto dash = item.find('-');
    if (dash == std::string::npos) {
      out.push_back(parse_count(item, text));
      continue;
    }
    const unsigned lo = parse_count(item.substr(0, dash), text), hi = parse_count(item.substr(dash + 1), text);
    if (hi < lo) throw UsageError("invalid --threads '" + text + "': range " + item + " runs backwards (accepted: LOW-HIGH)");
    for (unsigned t = lo; t <= hi; ++t) out.push_back(t);
  }
  if (out.empty()) throw UsageError("invalid --threads '" + text + "': no thread counts (accepted: 1,2,4 or 1-4)");
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void WorkloadOptions::add_to(CLI::App& app) {
  tracked = {
      app.add_option("--workload", workload, "Workload: alloc-test (default), bintree, linkedlist, multilist, replay or fitted"),
      app.add_option("--slots", slots, "Total slots, split equally across threads")->check(kWholeNumber),
      app.add_option("--max-size-exp", max_size_exp, "E: block sizes are < 2^E (accepted: 3..28)")->check(kWholeNumber),
      app.add_option("--iterations", iterations, "Iterations per thread")->check(kWholeNumber),
      app.add_option("--access", access, "Memory access per block: none, write, write_read (alloc-test and fitted default write_read, replay none)"),
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

int print_cell_record(const nlohmann::json& record) {
  std::cout << json_text(record) << std::endl;
  if (record.value("status", "") == "ok") return 0;
  std::cerr << "allocstress: error: cell failed: " << record.value("reason", std::string("(no reason recorded)")) << "\n";
  return kExitCellFailed;
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

const char* const kAllocTestOptions[] = {"--slots", "--max-size-exp", "--iterations"};
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
  const bool any_alloc_test = std::find(out.begin(), out.end(), kAllocTestWorkload) != out.end();
  const bool any_structure = std::any_of(out.begin(), out.end(), [](const std::string& w) { return is_structure_workload(w); });
  const bool any_multilist = std::find(out.begin(), out.end(), kMultiListWorkload) != out.end();
  const bool any_replay = std::find(out.begin(), out.end(), kReplayWorkload) != out.end();
  for (const char* opt : kAllocTestOptions)
    if (o.given(opt) && !any_alloc_test) throw UsageError(std::string(opt) + " applies to alloc-test only, not to " + joined(out));
  const bool any_fitted = std::find(out.begin(), out.end(), kFittedWorkload) != out.end();
  if (o.given("--access") && !any_alloc_test && !any_replay && !any_fitted)
    throw UsageError("--access applies to alloc-test, replay and fitted only, not to " + joined(out));
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
