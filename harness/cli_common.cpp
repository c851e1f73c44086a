// Thread lists, shared workload options and catalogue loading for the CLI.
#include "cli_common.hpp"

#include <algorithm>
#include <cctype>
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
      app.add_option("--workload", workload, "Workload to run (accepted: alloc-test)"),
      app.add_option("--slots", slots, "Total slots, split equally across threads")->check(kWholeNumber),
      app.add_option("--max-size-exp", max_size_exp, "E: block sizes are < 2^E (accepted: 3..28)")->check(kWholeNumber),
      app.add_option("--iterations", iterations, "Iterations per thread")->check(kWholeNumber),
      app.add_option("--access", access, "Memory access per block: none, write, write_read"),
      app.add_option("--seed", seed, "Seed of the operation stream")->check(kWholeNumber),
      app.add_option("--placement", placement, "Thread placement: compact (default) or scatter"),
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

AllocatorCatalog load_catalog(const std::string& manifest_option, const std::vector<std::string>& user_libraries) {
  try {
    AllocatorCatalog catalog(manifest_option.empty() ? default_manifest_path() : std::filesystem::path(manifest_option));
    for (const auto& lib : user_libraries) catalog.add_user_library(lib);
    return catalog;
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
}

void apply_workload_options(const WorkloadOptions& o, AllocTestParams& p, PlacementRequest& placement) {
  try {
    if (o.workload != kAllocTestWorkload)
      throw UsageError("unknown workload '" + o.workload + "' (accepted: alloc-test)");
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

}  // namespace allocstress
