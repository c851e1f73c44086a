// The options that describe a cell's workload, for `run`, `matrix`, `replay` and `slurm submit`,
// registered from the workload registry: --workload, every workload option once (in its help
// section, with each workload's default), their deprecated spellings, and placement
// (--placement, --reserve-os-pu, --oversubscribe), each in its own call so that a command
// orders its --help sections.  After parsing, given() hands the workload
// options to plan/workload_params.hpp, which applies them.
#pragma once

#include <CLI/CLI.hpp>

#include <map>
#include <string>
#include <vector>

#include "cells/workload_registry.hpp"
#include "workloads/programs/program_definition.hpp"

namespace allocstress {

class WorkloadFlags {
 public:
  // Whether help texts name each workload's defaults.  Computing them builds every workload's
  // defaults for every preset: main() asks for it only when help is asked for, so that a cell
  // process starts with few allocations.
  static inline bool describe_defaults = false;

  // Offers every workload's options, --help listing those of `shown` (the others are accepted,
  // so that one given to the wrong workload gets the registry's clear error); --workload too when
  // `workload_option` (else it is accepted but not listed).
  void add_to(CLI::App& app, const std::vector<const WorkloadEntry*>& shown, bool workload_option);
  // --placement, --reserve-os-pu, --oversubscribe (their own --help section).
  void add_placement_to(CLI::App& app);
  // The deprecated spellings of workload options (call last: their --help section comes last).
  void add_deprecated_to(CLI::App& app);

  std::string workload = "alloc-test";  // --workload (a comma-separated list for matrix)
  std::string programs_file;            // --programs-file: more program workloads, by name
  // The programs of --programs-file (none without it), their names declared as workloads.
  // Throws UsageError when the file is bad.
  std::vector<ProgramDefinition> programs() const;
  std::string placement = "compact";
  bool reserve_os_pu = false, oversubscribe = false;

  // The workload options given: flag -> text ("true" for a flag option), deprecated spellings as typed.
  OptionValues given() const;
  // The first of these options (workload ones, --workload, placement) given, or "".
  std::string first_given() const;
  bool workload_given() const { return workload_option_ != nullptr && workload_option_->count() > 0; }

 private:
  std::map<std::string, std::string> text_;
  std::map<std::string, bool> flag_;
  std::vector<std::pair<std::string, CLI::Option*>> options_;  // workload options and deprecated spellings
  std::vector<CLI::Option*> general_;                           // --workload and placement
  CLI::Option* workload_option_ = nullptr;
  std::vector<std::string_view> aliases_;
  std::vector<const WorkloadEntry*> shown_;
};

}  // namespace allocstress
