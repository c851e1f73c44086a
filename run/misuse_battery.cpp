// Running the misuse battery (see misuse_battery.hpp).
#include "run/misuse_battery.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "allocators/drop_in/malloc_provider.hpp"
#include "allocators/safety/conformance.hpp"
#include "platform/process/child_process.hpp"
#include "platform/errors.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

constexpr const char* kProbeName = "allocstress-safety-probe";

ChildOutcome run_probe(const AllocatorSpec* allocator, const std::vector<std::string>& args, double timeout_s) {
  std::vector<std::string> argv = {safety_probe_path().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  // Nothing preloaded for the case list: it is the probe's own table.
  const EnvironmentChanges env = allocator != nullptr ? preload_environment(*allocator) : EnvironmentChanges{{"LD_PRELOAD", std::nullopt}};
  return run_child(argv, env, timeout_s);
}

// "" when the probe's malloc came from the allocator's library, else one line saying where it came from.
std::string provider_mismatch(const AllocatorSpec& a, const ChildOutcome& run) {
  const std::string provider = probe_provider(run.out), expected = expected_malloc_provider(a);
  if (provider == expected) return "";
  return "malloc resolves to " + (provider.empty() ? std::string("(the probe printed no provider)") : provider) + ", expected " + expected +
         " (the preload did not take effect)";
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

void sample_properties(AllocatorSafety& out, const MisuseOptions& options) {
  std::vector<PropertySample> samples;
  for (unsigned i = 0; i < options.property_processes && !interrupted(); ++i) {
    const ChildOutcome run = run_probe(&out.allocator, {"properties"}, options.timeout_s);
    if (!run.succeeded()) {
      out.properties_na = "a properties process failed: " + describe_failure(run, options.timeout_s);
      return;
    }
    try {
      samples.push_back(parse_property_sample(run.out));
    } catch (const std::runtime_error& e) {
      out.properties_na = e.what();
      return;
    }
  }
  if (samples.empty()) {
    out.properties_na = options.property_processes == 0 ? "not sampled (--processes 0)" : "interrupted";
    return;
  }
  out.properties = summarise_properties(samples);
}

AllocatorSafety battery_on(const AllocatorSpec& a, const std::vector<MisuseCase>& cases, const MisuseOptions& options) {
  AllocatorSafety out{a};
  const ConformanceCheck conformance = run_conformance_check(a, options.timeout_s);
  if (!conformance.preload_not_taken.empty()) {
    out.not_run = conformance.preload_not_taken;
    return out;
  }
  out.nonconforming = conformance.failure;
  for (const MisuseCase& c : cases) {
    if (interrupted()) return out;
    const ChildOutcome run = run_probe(&a, {"case", c.name}, options.timeout_s);
    out.outcomes.push_back(classify_case_run(c.name, run, options.timeout_s));
    if (c.scored) {
      ++out.scored;
      out.caught += is_caught(out.outcomes.back().outcome) ? 1 : 0;
    }
  }
  sample_properties(out, options);
  return out;
}

}  // namespace

fs::path safety_probe_path() {
  const fs::path probe = beside_this_executable(kProbeName);
  if (!fs::exists(probe))
    throw UsageError(std::string("the safety probe ") + probe.string() + " is missing (build the " + kProbeName +
                     " target; sanitizer builds have none, since no allocator can be preloaded under a sanitizer)");
  return probe;
}

std::vector<MisuseCase> select_misuse_cases(const std::vector<std::string>& names) {
  const ChildOutcome run = run_probe(nullptr, {"list"}, 30);
  if (!run.succeeded()) throw std::runtime_error("the safety probe could not list its cases: " + describe_failure(run, 30));
  const std::vector<MisuseCase> listed = parse_case_list(run.out);
  for (const std::string& name : names)
    if (std::none_of(listed.begin(), listed.end(), [&](const MisuseCase& c) { return c.name == name; })) {
      std::string accepted;
      for (const MisuseCase& c : listed) accepted += (accepted.empty() ? "" : ", ") + c.name;
      throw UsageError("unknown misuse case '" + name + "' (accepted: " + accepted + ")");
    }
  std::vector<MisuseCase> chosen;
  for (const MisuseCase& c : listed)
    if (names.empty() || std::find(names.begin(), names.end(), c.name) != names.end()) chosen.push_back(c);
  return chosen;
}

ConformanceCheck run_conformance_check(const AllocatorSpec& a, double timeout_s) {
  const ChildOutcome run = run_probe(&a, {"conformance"}, timeout_s);
  ConformanceCheck c;
  c.preload_not_taken = provider_mismatch(a, run);
  c.ended_early = !run.succeeded() && run.out.find("\nfail ") == std::string::npos;
  if (c.ended_early || c.preload_not_taken.empty()) c.failure = conformance_failure(run, timeout_s);
  return c;
}

SafetyReport run_misuse_battery(const std::vector<AllocatorSpec>& allocators, const std::vector<MisuseCase>& cases,
                                const MisuseOptions& options, const std::function<void(const std::string&)>& progress) {
  const auto start = std::chrono::steady_clock::now();
  SafetyReport report{cases, {}, options};
  for (const AllocatorSpec& a : allocators) {
    if (interrupted()) break;
    const auto began = std::chrono::steady_clock::now();
    report.allocators.push_back(battery_on(a, report.cases, options));
    const AllocatorSafety& s = report.allocators.back();
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    progress("  " + a.name + ": " +
             (s.not_run.empty() ? "catches " + std::to_string(s.caught) + " of " + std::to_string(s.scored) + " scored cases" +
                                      (s.nonconforming.empty() ? "" : "; NON-CONFORMING: " + s.nonconforming)
                                : "not run: " + s.not_run) +
             " (" + seconds_text(took) + " s)");
  }
  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

nlohmann::json to_json(const SafetyReport& report) {
  nlohmann::json cases = nlohmann::json::array(), allocators = nlohmann::json::array();
  for (const MisuseCase& c : report.cases)
    cases.push_back({{"name", c.name}, {"group", c.group}, {"description", c.description}, {"scored", c.scored}});
  for (const AllocatorSafety& s : report.allocators) {
    nlohmann::json outcomes = nlohmann::json::array();
    for (const CaseResult& r : s.outcomes)
      outcomes.push_back({{"case", r.case_name}, {"outcome", outcome_name(r.outcome)}, {"detail", r.detail}, {"message", r.message}});
    nlohmann::json entry = {{"allocator", s.allocator.name}, {"outcomes", outcomes}};
    if (!s.not_run.empty()) entry["not_run"] = s.not_run;
    entry["conforming"] = s.not_run.empty() ? nlohmann::json(s.nonconforming.empty()) : nlohmann::json();
    if (!s.nonconforming.empty()) entry["nonconforming"] = s.nonconforming;
    entry["caught"] = s.caught;
    entry["scored"] = s.scored;
    entry["properties"] = s.properties ? to_json(*s.properties) : nlohmann::json{{"n/a", s.not_run.empty() ? s.properties_na : s.not_run}};
    allocators.push_back(std::move(entry));
  }
  nlohmann::json classes = nlohmann::json::array();
  for (MisuseOutcome o : kAllOutcomes)
    classes.push_back({{"name", outcome_name(o)}, {"symbol", outcome_symbol(o)}, {"meaning", outcome_meaning(o)}, {"caught", is_caught(o)}});
  return {{"probe", kProbeName},
          {"outcome_classes", classes},
          {"timeout_s", report.options.timeout_s},
          {"property_processes", report.options.property_processes},
          {"elapsed_s", report.elapsed_s},
          {"cases", cases},
          {"allocators", allocators}};
}

}  // namespace allocstress
