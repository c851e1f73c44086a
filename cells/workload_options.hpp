// The command-line options of the workloads, as data.  A WorkloadOption names a flag, the field of
// the workload's parameters (JSON, cell.hpp) it sets, how its text becomes that field, and where
// `--help` lists it.  Registry entries (workload_registry.hpp) list the options they take; the CLI
// registers every option once (cli/workload_flags.hpp), and plan/workload_params.hpp applies the
// ones given to each chosen workload's defaults and rejects those no chosen workload takes.
//
// The options several workloads share are declared here; an option of one workload family is
// declared in that family's cell file.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <string_view>

namespace allocstress {

enum class OptionKind {
  count,    // a whole number >= 0, digits only (no sign, no exponent)
  number,   // a finite decimal number
  percent,  // a number 0..100, stored as the fraction 0..1
  word,     // text the workload parses (an enum name such as "fleet"); checked by the workload
  flag,     // present or not: stored as true / false
  file,     // a path to a readable file, stored absolute
};

struct WorkloadOption {
  std::string_view flag;   // "--remote-share"
  std::string_view key;    // "remote_share": its field in the workload's parameters
  OptionKind kind;
  std::string_view help;   // what it sets; `--help` adds each workload's default
  std::string_view group;  // the `--help` section that lists it
  std::string_view needed_for = {};  // file options a workload cannot do without: what to pass
                                     // ("a trace from `allocstress trace` or `allocstress import`")
  std::string_view deprecated_alias = {};  // an older spelling still accepted, with a warning
};

// The options given on a command line: flag -> its text ("true" for a flag option).
using OptionValues = std::map<std::string, std::string>;

// The value `text` gives the option's parameter field.  Throws UsageError (platform/errors.hpp)
// naming the option, the text and what is accepted.
nlohmann::json option_value(const WorkloadOption& option, const std::string& text);

// The text that gives `value` back through option_value ("" for a false flag: leave it out).
std::string option_text(const WorkloadOption& option, const nlohmann::json& value);

// Help sections, in the order `--help` shows them after the general options.
inline constexpr std::string_view kSizedGroup = "Workloads that draw sizes (alloc-test, xthread, larson, lifetime, phase-*)";
inline constexpr std::string_view kStructureGroup = "Data structures (bintree, linkedlist, multilist)";
inline constexpr std::string_view kCrossThreadGroup = "Cross-thread frees (xthread, larson)";
inline constexpr std::string_view kLifetimeGroup = "Lifetimes (lifetime; --live-bytes also phase-*)";
inline constexpr std::string_view kPhaseGroup = "Memory phases (phase-ramp, phase-plateau, phase-peak)";
inline constexpr std::string_view kFalseSharingGroup = "False sharing (false-sharing-active, false-sharing-passive)";
inline constexpr std::string_view kTraceGroup = "Traces (replay, fitted)";
inline constexpr std::string_view kProgramGroup = "Real programs (prog-*, programs files, bench)";
inline constexpr std::string_view kGeneralWorkloadGroup = "Workload";

// Shared by every workload.
extern const WorkloadOption kSeedOption;
// Shared by the workloads that draw sizes (sized_params.hpp).
extern const WorkloadOption kSlotsOption, kSizesOption, kSizeFitOption, kMaxSizeExpOption, kIterationsOption;
// Shared by the workloads that write and read their blocks (sized ones, replay, fitted).
extern const WorkloadOption kAccessOption;
// Shared by lifetime and phase-*.
extern const WorkloadOption kLiveBytesOption;

}  // namespace allocstress
