// The counts tier's figures (docs/methodology.md, "Counts tier"): what one measured phase executed
// under callgrind, from its profile (callgrind_profile.hpp).  Exact for the simulated machine:
// the same binary, op stream and address layout (randomisation off) give the same figures on
// every run, whatever else the host is doing.
//
// Estimated cycles: L1 hits + 5 x LL hits + 35 x RAM hits, where L1 hits = Ir + Dr + Dw - I1mr -
// D1mr - D1mw, LL hits = I1mr + D1mr + D1mw - ILmr - DLmr - DLmw and RAM hits = ILmr + DLmr + DLmw
// (callgrind's events with --cache-sim=yes).  The weights are Itamar Turner-Trauring's
// ("Consistent benchmarking in CI", pythonspeed.com), as iai and iai-callgrind use them: a rough,
// machine-independent cost that sees cache misses, which an instruction count alone does not.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/profilers/callgrind_profile.hpp"

namespace allocstress {

inline constexpr unsigned kLastLevelHitWeight = 5, kRamHitWeight = 35;

std::uint64_t estimated_cycles(const CallgrindProfile& p);
// The same weights over an `events` object (event name -> count, as the counts block keeps them).
std::uint64_t estimated_cycles(const nlohmann::json& events);

// The allocator's share of a profile: the inclusive cost of every call the workload's own code
// (`workload_object`, the allocstress executable) makes into another object, except to functions
// whose names start with one of `excluded_prefixes` (the memset/memcpy family the workload calls
// itself to write and copy blocks).  For a drop-in allocator those calls are its API calls, and
// their inclusive cost is everything it executed for them wherever the code lives (its library, a
// section callgrind cannot name, the libc wrappers it calls), with no subtraction.  In-tree
// backends are inlined into the executable: they have no such calls (n/a).
//
// A real program (program cells) has no workload object of ours: there, `allocator_object` names
// the allocator's library and the rule sums the calls into it from code outside it; for glibc's
// own malloc (`system`, whose object also holds the rest of libc) `allocator_functions` names the
// malloc family, and the rule sums the calls to those functions from anywhere.
struct OutsideCalls {
  std::string workload_object;
  std::vector<std::string> excluded_prefixes = {"memset", "memcpy", "memmove", "mempcpy",
                                                "__memset", "__memcpy", "__memmove", "__mempcpy"};
  std::string allocator_object;                  // non-empty: the program rule
  std::vector<std::string> allocator_functions;  // non-empty: by name (glibc)
};
// glibc's malloc family, for the program rule under `system`.
const std::vector<std::string>& glibc_malloc_functions();

// The summed inclusive cost of those calls, per event (in p.events order), and per callee function.
struct OutsideCost {
  std::vector<std::uint64_t> total;
  std::map<std::string, std::uint64_t> instructions_by_function;
};
OutsideCost outside_calls_cost(const CallgrindProfile& p, const OutsideCalls& rule);

// The "counts" block of a record: provenance, events, instructions, D1 and LL misses and the
// estimated cycles, in total and per `unit` (`units` of them, e.g. malloc/free pairs), and the
// allocator's instructions (its calls) where `rule` is given (else n/a with `no_rule`).
nlohmann::json instruction_count_figures(const CallgrindProfile& p, double units, const std::string& unit,
                                         const std::optional<OutsideCalls>& rule, const std::string& no_rule);

}  // namespace allocstress
