// The misuse battery's cases and their outcome classes.  A case is one heap misuse (a double free,
// an invalid free, an overflow, a use after free, an impossible size or alignment), run by the
// safety probe (safety_probe.c, `allocstress-safety-probe case NAME`) in a fresh process under a
// drop-in allocator.  The probe is the one place the cases are defined: `allocstress-safety-probe
// list` names them, and classify_case_run reads what one run of a case printed and how it ended.
//
// The probe's protocol (stdout, one line per write): `provider PATH`, then `step setup|misuse|follow|check`
// as each phase starts, and either `outcome silent|error|corrupted DETAIL` then exit 0, or
// `fault target|elsewhere STEP SIGNO ADDR` then exit 70 (its SIGSEGV/SIGBUS handler), or nothing
// more (the allocator stopped the process).  The probe never writes to stderr in a case: whatever
// is there is the allocator's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "platform/process/child_process.hpp"

namespace allocstress {

// What a misuse led to, from safest to worst; the classes are described in docs/safety.md.
enum class MisuseOutcome {
  detected,        // stopped before harm: the allocator aborted or reported it, or a guard page caught the access
  error_returned,  // the call failed cleanly: NULL (or an error code) and errno
  silent,          // ran to the end and nothing was seen
  corrupted,       // harm seen: wrong data, a block handed out twice, the attacker's address, or a crash later
  crashed,         // crashed elsewhere: a fault inside the misused call, no check of the allocator's
  hang,            // no end within the case's timeout
};
inline constexpr MisuseOutcome kAllOutcomes[] = {MisuseOutcome::detected, MisuseOutcome::error_returned, MisuseOutcome::silent,
                                                 MisuseOutcome::corrupted, MisuseOutcome::crashed, MisuseOutcome::hang};

// "detected", "error returned", "silent", "corrupted", "crashed elsewhere", "hang": the names in
// records and tables.
std::string_view outcome_name(MisuseOutcome outcome);
// The table's one-character symbol of each outcome.
std::string_view outcome_symbol(MisuseOutcome outcome);
// One sentence for the legend.
std::string_view outcome_meaning(MisuseOutcome outcome);
// Throws std::invalid_argument for a name outcome_name does not give.
MisuseOutcome outcome_from_name(std::string_view name);
// A scored case counts as caught when its outcome is detected or error returned.
inline bool is_caught(MisuseOutcome o) { return o == MisuseOutcome::detected || o == MisuseOutcome::error_returned; }

struct MisuseCase {
  std::string name, group, description;
  bool scored = true;  // false: behaviour at the edge of the API (malloc(0), realloc(p, 0)), shown, not counted
};

// The cases of `allocstress-safety-probe list` (name TAB group TAB 0|1 TAB description per line).
// Throws std::runtime_error naming the line that is not that.
std::vector<MisuseCase> parse_case_list(const std::string& list_output);

struct CaseResult {
  std::string case_name;
  MisuseOutcome outcome = MisuseOutcome::silent;
  std::string detail;   // what was seen, in words
  std::string message;  // the allocator's last line on stderr ("" for none)
};

// The outcome of one run of a case (see the protocol above), given the timeout it ran with.
CaseResult classify_case_run(const std::string& case_name, const ChildOutcome& run, double timeout_s);

// The value of the probe's `provider` line ("" when there is none).
std::string probe_provider(const std::string& probe_output);

}  // namespace allocstress
