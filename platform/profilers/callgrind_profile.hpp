// A callgrind profile (the file --callgrind-out-file writes) read into what the counts tier and
// the cache simulation need: the event names, the totals, and the self cost of every function
// by the object (executable or shared library) its code lives in.
//
// The format (valgrind's "Callgrind Format Specification"): `events:` names the columns;
// `ob=`/`fn=` set the object and function the following cost lines belong to, with name
// compression `(id) name` on first use and `(id)` after it (ob/cob share ids, fn/cfn share ids);
// a cost line is the `positions:` columns (absolute, `+n`/`-n` relative, or `*` same) followed by
// one count per event, trailing zeros left out; the cost line right after a `calls=` line is the
// inclusive cost of that call, which belongs to the callee, not to the caller's self cost.  The
// callee is named by the `cfn=` (and, when its object is another, `cob=`) lines before `calls=`.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <compare>
#include <utility>
#include <vector>

namespace allocstress {

struct CallgrindProfile {
  std::string creator;                   // "callgrind-3.19.0" (the `creator:` line; "" if absent)
  std::vector<std::string> events;       // "Ir", "Dr", ... in the file's order
  std::vector<std::uint64_t> totals;     // per event (the `totals:` line, else `summary:`)
  // Self cost per (object path, function name), per event.  Their sum is `totals`.
  std::map<std::pair<std::string, std::string>, std::vector<std::uint64_t>> self;
  // Inclusive cost of the calls made from code in one object to one function, per event:
  // (caller object, callee object, callee function) -> the callee's cost with everything it called.
  struct Call {
    std::string caller_object, callee_object, callee_function;
    auto operator<=>(const Call&) const = default;
  };
  std::map<Call, std::vector<std::uint64_t>> calls;

  // The event's total; 0 when the profile has no such event.
  std::uint64_t total(const std::string& event) const;
};

// Throws std::runtime_error naming the file (and the line where it can) when the file cannot
// be read or is not a callgrind profile with events and totals.
CallgrindProfile read_callgrind_profile(const std::filesystem::path& path);

// One profile holding the sum of `parts` (e.g. the per-thread profiles of one process): totals,
// self and call costs added up.  The creator is the first part's.  Throws std::runtime_error when
// `parts` is empty or their events differ.
CallgrindProfile summed_profiles(const std::vector<CallgrindProfile>& parts);

}  // namespace allocstress
