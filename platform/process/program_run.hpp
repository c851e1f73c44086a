// Runs a real program as a child of this process and measures it the way `time -v` does: wall
// time, and the kernel's wait4() rusage of the program and every descendant it waited for (the gcc
// driver's cc1 and as), so user/system time, faults and context switches are the whole tree's and
// peak RSS its largest process's.  Its standard output is hashed whole as it arrives (FNV-1a, 64
// bits: the output check compares runs) and kept up to 1 MiB.  Which processes of the tree ran,
// and under which malloc, is the probe's to say (program_probe.hpp), not this file's.
// The one place a cell starts a process (cells/README.md: the program cells' exception).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "platform/process/child_process.hpp"

namespace allocstress {

struct ProgramSpec {
  std::vector<std::string> argv;  // argv[0] an absolute path
  std::string working_directory;  // "" = this process's
  EnvironmentChanges environment; // applied to this process's environment (LD_PRELOAD is inherited)
  bool fixed_addresses = false;   // address randomisation off (personality ADDR_NO_RANDOMIZE), for
                                  // the whole tree: what the counts tier's runs need to repeat
};

struct ProgramOutcome {
  ChildOutcome::End end = ChildOutcome::End::spawn_failed;
  int exit_code = -1;
  int signal = 0;
  std::string spawn_error;
  std::string out, err;            // the first 1 MiB of each
  std::uint64_t out_hash = 0;      // FNV-1a (64 bits) of the whole standard output
  std::uint64_t out_bytes = 0;     // its length
  double wall_s = 0;               // fork to reaped
  double user_s = 0, sys_s = 0;    // wait4 rusage: the program and its reaped descendants
  std::uint64_t max_rss_kib = 0;   // ru_maxrss: the largest resident set of any process of the tree
  std::uint64_t minor_faults = 0, major_faults = 0;
  std::uint64_t voluntary_switches = 0, involuntary_switches = 0;  // ru_nvcsw, ru_nivcsw

  bool succeeded() const { return end == ChildOutcome::End::exited && exit_code == 0; }
  // One line: how a program that did not succeed ended (exit code and last stderr line, or signal).
  std::string failure() const;
  // The last `lines` lines of its standard error, at most `bytes` of them ("" when it wrote none).
  std::string stderr_tail(std::size_t lines = 8, std::size_t bytes = 1000) const;
};

// The FNV-1a hash of `bytes` continued from `hash` (start: kFnvOffset), and as text ("fnv1a64:...").
inline constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;
std::uint64_t fnv1a(std::uint64_t hash, const char* bytes, std::size_t n);
std::string hash_text(std::uint64_t hash);

// A started program; finish() reaps it.  The program stays in this process's process group (a
// cell's timeout kills it with the cell) and dies with this process (PR_SET_PDEATHSIG).
class RunningProgram {
 public:
  explicit RunningProgram(const ProgramSpec& spec);
  ~RunningProgram();
  RunningProgram(const RunningProgram&) = delete;
  RunningProgram& operator=(const RunningProgram&) = delete;

  pid_t pid() const { return pid_; }
  // Reads its output until it ends (or, with a deadline `timeout_s` after it started, kills it
  // and every descendant with SIGKILL); reaps it with wait4.  Call once.
  ProgramOutcome finish(double timeout_s = 0);
  // Whether it has ended (not yet reaped by finish()): polls its output meanwhile.
  bool still_running();
  // What it wrote so far (the first 1 MiB of each stream), read without waiting.
  const std::string& output_so_far();
  const std::string& errors_so_far();
  // Sends `signal` to it (not to its descendants).
  void send_signal(int signal);

 private:
  void pump(int wait_ms);
  // Hashes and counts a chunk of stdout (stream 0) whole; keeps at most kOutputCap bytes of each stream.
  void take(int stream, const char* chunk, std::size_t size);
  ProgramSpec spec_;
  ProgramOutcome outcome_;
  pid_t pid_ = -1;
  int fds_[2] = {-1, -1};
  double started_ = 0;
};

// Every descendant of `pid` (children, their children, ...) from /proc, then `pid` itself, killed
// with SIGKILL: a timed-out program leaves no process behind.
void kill_process_tree(pid_t pid);

// Starts the program and finishes it: RunningProgram(spec).finish(timeout_s).
ProgramOutcome run_program(const ProgramSpec& spec, double timeout_s = 0);

// The first absolute path NAME/program among `dirs` ("a:b:c") that is an executable file, or "".
std::string find_executable(const std::string& program, const std::string& dirs);

// A free TCP port on 127.0.0.1 (bound then released: another process may take it meanwhile).
// Throws std::runtime_error with errno's text.
unsigned free_loopback_port();
// Waits until 127.0.0.1:port accepts a connection or `timeout_s` passed; whether it did.
bool wait_for_loopback_port(unsigned port, double timeout_s, RunningProgram* alive = nullptr);
// Sends `text` over a fresh connection to 127.0.0.1:port and closes it; whether it was sent.
bool send_to_loopback_port(unsigned port, const std::string& text);

}  // namespace allocstress
