// System calls counted by strace (a real tool, no guessing), two ways.
//
// A cell's measured phase (its memory system calls only):
//   strace -f --seccomp-bpf -qq -T -e trace=mmap,munmap,mremap,madvise,brk,mprotect,futex,prctl
// around the cell process.  The cell marks the start and end of its measured phase with
// prctl(PR_SET_NAME, "as-phase-go" / "as-phase-done") on the main thread; only calls between
// the two markers count.  Counts are exact.  Times are strace's -T (time in the call) and are
// inflated by tracing: reported, labelled, never subtracted from anything.
//
// A real program's whole run (every process and thread of its tree, every call):
//   strace -f -c -U calls,name -qq
// which counts without printing each call; the memory calls by kind, the rest as "other".
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace allocstress {

inline constexpr const char* kPhaseGoMarker = "as-phase-go";
inline constexpr const char* kPhaseDoneMarker = "as-phase-done";
// The system calls counted (prctl only carries the markers).
inline constexpr const char* kTracedSyscalls[] = {"mmap", "munmap", "mremap", "madvise", "brk", "mprotect", "futex"};

// Marks a phase boundary for the trace (prctl(PR_SET_NAME)); harmless when nothing traces.
void mark_phase(const char* marker);

// "" when strace is installed, else one line saying so.
std::string syscall_trace_unavailable();
// strace around `cell_argv`, writing its trace to `trace`.
std::vector<std::string> syscall_trace_command(const std::vector<std::string>& cell_argv, const std::filesystem::path& trace);

// {"tool", "counts": {name: n}, "time_ns": {name: ns}, "provenance": {...}} for the calls
// between the markers.  Throws std::runtime_error naming the file when a marker is missing.
nlohmann::json syscalls_in_phase(const std::filesystem::path& trace);

// strace counting every call of `argv`'s whole tree, its table written to `summary`.
std::vector<std::string> syscall_count_command(const std::vector<std::string>& argv, const std::filesystem::path& summary);
// {"tool", "counts": {mmap, ..., futex, "other": n}, "other_calls": {name: n}, "provenance"} from
// that table.  Throws std::runtime_error naming the file when it is unreadable or has no total.
nlohmann::json syscalls_in_summary(const std::filesystem::path& summary);

// The figures every `kernel_events` block has (cells and programs): minor and major faults,
// `syscalls` ({name: n}) and their total, each also per `unit` (`units` of them; 0 = none).
nlohmann::json kernel_event_figures(std::uint64_t minor_faults, std::uint64_t major_faults, const nlohmann::json& syscalls, double units,
                                    const char* unit);

}  // namespace allocstress
