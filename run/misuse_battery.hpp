// The misuse battery (`allocstress misuse`, `matrix --misuse`): every case of the safety probe
// (allocators/safety/misuse_cases.hpp) in a fresh process under each drop-in allocator, with a
// timeout; the safety properties over many processes (allocators/safety/safety_properties.hpp);
// and the conformance check (allocators/safety/conformance.hpp).  Only drop-ins run it: the
// in-tree backends are not mallocs a program can call.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "allocators/allocator_catalog.hpp"
#include "allocators/safety/misuse_cases.hpp"
#include "allocators/safety/safety_properties.hpp"

namespace allocstress {

struct MisuseOptions {
  unsigned property_processes = 30;  // processes that sample the properties (0 = none)
  double timeout_s = 5;              // per process
};

struct AllocatorSafety {
  AllocatorSpec allocator;
  std::string not_run;        // why the battery could not run under it ("" = it ran)
  std::string nonconforming;  // the conformance check's failure ("" = it conforms)
  std::vector<CaseResult> outcomes;  // in the order of SafetyReport::cases
  std::optional<SafetyProperties> properties;
  std::string properties_na;  // why there are none
  unsigned caught = 0, scored = 0;  // scored cases detected or refused with an error, of the scored cases run
};

struct SafetyReport {
  std::vector<MisuseCase> cases;
  std::vector<AllocatorSafety> allocators;
  MisuseOptions options;
  double elapsed_s = 0;
};

// The probe, built beside the allocstress executable.  Throws UsageError when it is missing.
std::filesystem::path safety_probe_path();

// The probe's cases named in `names` (empty: all), in the probe's order.  Throws UsageError for a
// name it does not list, std::runtime_error when it cannot list them.
std::vector<MisuseCase> select_misuse_cases(const std::vector<std::string>& names);

// The conformance check of `allocator` in a fresh process: `failure` "" when it conforms, else
// why not; `ended_early` when it crashed or hung before its verdict (the failure then says where).
// `preload_not_taken`: malloc did not resolve into the allocator's library there (one line
// saying where it came from); the failure of a check that ran to its end is then "", left to the
// preload check, which says it better.
struct ConformanceCheck {
  std::string failure;
  bool ended_early = false;
  std::string preload_not_taken;
};
ConformanceCheck run_conformance_check(const AllocatorSpec& allocator, double timeout_s);

// Runs `cases` under each allocator in turn (drop-ins only; the caller filters), calling
// `progress` with one line per allocator.  Stops early (returning what it has) when interrupted()
// (platform/process/child_process.hpp).
SafetyReport run_misuse_battery(const std::vector<AllocatorSpec>& allocators, const std::vector<MisuseCase>& cases,
                                const MisuseOptions& options, const std::function<void(const std::string&)>& progress);

// The results file's `safety` section (results/README.md).
nlohmann::json to_json(const SafetyReport& report);

}  // namespace allocstress
