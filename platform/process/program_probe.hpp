// The program probe: which processes of a measured program's tree ran, under which malloc, and
// each one's own peak RSS.  wait4() (program_run.hpp) sums the tree but cannot say whether the
// allocator's LD_PRELOAD reached gcc's cc1 or a server's forked worker; a library preloaded with
// it into every process (program_probe.c) can, from inside.  This file reads what it wrote.
//
// The libraries, beside the allocstress executable (no sanitizer build has them):
//   liballocstress_probe.so        reports; allocates nothing, interposes nothing
//   liballocstress_probe_count.so  also counts the allocation calls (malloc, calloc, realloc,
//                                  reallocarray, the memalign family, operator new), forwarding
//                                  each to the next definition: first in LD_PRELOAD, for an
//                                  unmeasured verification run
// configured by ALLOCSTRESS_PROBE_LOG (the log; unset or empty: the library does nothing) and
// ALLOCSTRESS_PROBE_WATCH (the allocator's library; unset or empty: glibc's own malloc).
//
// The log: every process appends whole lines, each one write() shorter than PIPE_BUF (lines of
// a tree never interleave), space-separated, the executable last (it may hold spaces):
//   start PID PPID MAPPED MALLOC_OBJECT EXE   at load: in the first process and after every exec
//   fork PID PPID                             in a child of fork() (its handlers), before any exec
//   exit PID PEAK_RSS_KIB CALLS               at exit() or a return from main (not at _exit, a
//                                             fatal signal or an exec)
// MAPPED: 1 if the watched library is mapped in the process (the same file, under any name), 0
// if not, `-` if none is watched.  MALLOC_OBJECT: the canonical path of the object that malloc
// resolves into (dlsym(RTLD_DEFAULT); for the counting probe, what it forwards to); the
// executable's own path when the program defines malloc itself.  PEAK_RSS_KIB: VmHWM at exit,
// this process image's alone (an exec starts a new one).  CALLS: the allocation calls of the
// process from its start (__libc_start_main) on: the shared libraries' initialisation before it
// is not the program's (a forked child starts from 0; operator new counts once, not again for the
// malloc inside it), `-` without counting.  Unknown values are `-`.  Paths are percent-encoded: `%` as
// %25 and a newline as %0A, and in MALLOC_OBJECT a space as %20.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

// One process image: a process from its start (or fork) to its exit or exec.
struct ProbedProcess {
  long pid = 0, ppid = 0;
  bool started = false;           // it wrote a `start` line: the first process, or one that exec'd
  bool forked = false;            // a child of fork() that did not exec: it runs its parent's image
  bool replaced_by_exec = false;  // it exec'd: the next entry with its pid is the new image
  bool exited = false;            // an `exit` line: it ended by exit() (not killed, not _exit)
  std::optional<bool> allocator_mapped;  // nullopt: no library watched (or not known)
  std::string malloc_object;             // canonical path ("" = unknown)
  std::string executable;                // canonical path ("" = unknown)
  std::optional<std::uint64_t> peak_rss_kib;      // from its `exit` line
  std::optional<std::uint64_t> allocation_calls;  // from its `exit` line, counting probe only
};

// How lines become entries, in the order of the log:
//  - `start` whose pid's last entry is alive (no exit, not replaced) and started: an exec; that
//    entry is marked replaced_by_exec and a new one follows (sh -c 'exec xz': two entries, one pid);
//  - `start` whose pid's last entry is a live forked one: that child exec'd; the entry becomes the
//    new image in place (started, no longer forked): fork+exec is one entry, as posix_spawn is;
//  - `start` otherwise, and every `fork`: a new entry; a forked child's executable, malloc object
//    and mapping are its parent's (the parent's last entry at that point), which it runs;
//  - `exit`: completes its pid's last live entry, or is an entry of its own when there is none
//    (a process created by clone() without fork's handlers).
// A pid reused after an exit is a new entry; reused after a kill, its `start` reads as an exec.
struct ProbeLog {
  std::vector<ProbedProcess> processes;
  std::size_t malformed_lines = 0;  // skipped: unknown, bad fields, or the last line cut short
};
ProbeLog parse_probe_log(std::string_view text);
// The log at `log`; no file (no process reported) gives no process.  Never throws on its content.
std::vector<ProbedProcess> read_probe_log(const std::filesystem::path& log, std::size_t* malformed_lines = nullptr);

// The probe library beside this executable (/proc/self/exe's folder), the counting one if
// `counting`.  Throws std::runtime_error naming the missing path and the build that makes it.
std::filesystem::path probe_library(bool counting);

}  // namespace allocstress
