// From what a user typed to each workload's parameters, through the workload registry: which
// workloads --workload names, which given options apply to none of them, and a workload's
// parameters (its defaults for the preset, with the options it takes applied).  The same rules
// serve `run` (one workload) and `matrix` (a list); every error is a UsageError naming the option.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "cells/workload_options.hpp"
#include "cells/workload_registry.hpp"
#include "workloads/programs/program_definition.hpp"
#include "workloads/alloc_test.hpp"

namespace allocstress {

// The workloads `text` names ("alloc-test,bintree"), in order, duplicates dropped; one only
// unless `allow_list`.  Throws UsageError naming an unknown workload and the accepted ones.
std::vector<std::string> selected_workloads(const std::string& text, bool allow_list);

// Rewrites deprecated spellings in `given` to the options of the chosen workloads that take them
// (e.g. --rounds: --larson-rounds for larson, --fs-rounds for false-sharing-*).  Returns one
// warning per spelling rewritten.  Throws UsageError when no chosen workload takes it.
std::vector<std::string> resolve_deprecated_options(const std::vector<std::string>& workloads, OptionValues& given);

// Throws UsageError when an option given applies to none of `workloads` ("--slots applies to
// alloc-test, xthread and larson only, not to linkedlist"), or a chosen workload lacks an option
// it cannot do without ("--workload replay needs --trace FILE ...").
void check_option_scope(const std::vector<std::string>& workloads, const OptionValues& given);

// The parameters of `entry`: its defaults for `preset`, the options given that it takes applied
// (option_value), and the seed its inputs give where --seed is not given.  Not validated for a
// thread count (entry.check does that).  Throws UsageError on a bad option value.
nlohmann::json workload_params(const WorkloadEntry& entry, const AllocTestParams& preset, const OptionValues& given);
// The same for workload `name`, a program workload too: its definition (from `programs` first,
// else the shipped programs file: plan/programs_file.hpp) in `program`, its threads in
// `program_threads`, then the options.  Throws UsageError when a program has no definition.
nlohmann::json workload_params(const std::string& name, const AllocTestParams& preset, const OptionValues& given,
                               const std::vector<ProgramDefinition>& programs);

// The parameters of `entry`'s counts cell (CellMode::counts): `params` with its counts_prefix
// parameter (alloc-test's iterations) lowered to at most `cap`, so that the counts run a prefix of
// the timing cells' op stream in bounded time under callgrind; unchanged for workloads without one.
// pre: cap >= 1.
nlohmann::json counts_params(const WorkloadEntry& entry, nlohmann::json params, std::uint64_t cap);

// The options that give `params` back: {"--slots", "65536", "--hints", ...} (flags alone).
std::vector<std::string> option_arguments(const WorkloadEntry& entry, const nlohmann::json& params);

// "alloc-test, xthread and larson", with a whole family sharing a prefix written "phase-*".
std::string workload_list_text(const std::vector<const WorkloadEntry*>& entries);

}  // namespace allocstress
