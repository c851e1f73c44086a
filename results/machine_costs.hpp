// The counts tier's model of the clock (docs/methodology.md, "Counts tier: estimated cycles"):
// a counts record's deterministic figures priced at this machine's measured costs
// (platform/profilers/cost_measurements.hpp, written by `allocstress calibrate --costs`).
//
//   estimated cycles = user part + kernel part, in cycle-counter ticks (the timing tier's unit)
//   user part   = CPI x Ir + (LL latency - L1 latency) x (LL hits + fresh) + (RAM latency - L1 latency) x (RAM hits - fresh)
//                 (callgrind's counts: LL hits = I1mr + D1mr + D1mw - ILmr - DLmr - DLmw, RAM hits =
//                 ILmr + DLmr + DLmw; an L1 hit is inside CPI, measured on code that hits L1)
//                 fresh = min(RAM hits, lines per page x minor faults): callgrind's caches see the
//                 first touch of a page the kernel just faulted in as a miss to RAM, but the fault's
//                 zeroing (priced in the kernel part) has just written those lines, so the model
//                 charges them as last-level hits.  (Without the correction bump, which never
//                 reuses memory, came out dearer than eqclass, the other way round from the clock.)
//   kernel part = minor faults x fault cost + sum over system calls of count x the call's cost
//                 (mmap, munmap, madvise, brk, mprotect, mremap; futex and any other: a bare syscall)
//
// Without costs measured on this host the user part is the fixed iai weights (L1 hits + 5 x LL
// hits + 35 x RAM hits over Ir + Dr + Dw, Turner-Trauring's, one cycle per instruction) and the
// kernel part is not priced (null): the records and the context say which.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace allocstress {

inline constexpr const char* kMachineCostsSchemaName = "allocstress-machine-costs";
inline constexpr int kMachineCostsSchemaVersion = 1;

struct MachineCosts {
  bool calibrated = false;
  double cycles_per_instruction = 1, l1_latency = 0, last_level_latency = 0, ram_latency = 0, lines_per_page = 0;
  std::map<std::string, double> kernel;  // minor_fault, mmap, munmap, madvise, brk, mprotect, mremap, syscall
  nlohmann::json source;                 // for the context: the file and its date, or {"n/a": why}
};

// Where `calibrate --costs` writes and matrix runs read: $ALLOCSTRESS_COSTS if set, else
// machine-costs.json beside the reproduction calibration (reproduction.hpp default_calibration_path).
std::filesystem::path default_machine_costs_path();

// Reads a machine-costs file; throws std::runtime_error naming the file and what is wrong.
nlohmann::json read_machine_costs(const std::filesystem::path& path);
// Whether `path` holds a machine-costs document, complete or not (an older one may be replaced).
bool is_machine_costs_file(const std::filesystem::path& path);
// The same checks on a document about to be written to `path`.
void check_machine_costs(const nlohmann::json& doc, const std::filesystem::path& path);

// The costs for a run on `host`: the file's when it is this host's, else uncalibrated (source
// says why: no file, another host's, unreadable).
MachineCosts machine_costs_for_host(const std::filesystem::path& path, const std::string& host);

// The model's parts for callgrind's `events` (name -> count) and a kernel_events block.
// `minor_faults`: the faults of the same op stream (0: no correction for fresh pages).
double user_cycles(const nlohmann::json& events, const MachineCosts& costs, double minor_faults = 0);
std::optional<double> kernel_cycles(const nlohmann::json& kernel_events, const MachineCosts& costs);  // nullopt: not priced
std::string estimated_cycles_formula(const MachineCosts& costs);

// Prices one record's counts block in place: estimated_cycles (and _per_unit) become the total,
// beside estimated_user_cycles and estimated_kernel_cycles (null where not priced, with
// kernel_cycles_na saying why); the allocator-calls block and each worker get their user part.
void price_counts(nlohmann::json& counts, const MachineCosts& costs);

}  // namespace allocstress
