// Runs a real program as a child of this process and measures it the way `time -v` does: wall
// time, and the kernel's wait4() rusage of the program and every descendant it waited for (the gcc
// driver's cc1 and as), so user/system time, peak RSS and minor faults are the whole tree's.
// While it runs, /proc/PID/maps and /proc/PID/environ are read once the program has exec'd and its
// libc is mapped: whether a preloaded library really reached the program (LD_PRELOAD inherited).
// The one place a cell starts a process (cells/README.md: the program cells' exception).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "platform/child_process.hpp"

namespace allocstress {

struct ProgramSpec {
  std::vector<std::string> argv;  // argv[0] an absolute path
  std::string working_directory;  // "" = this process's
  EnvironmentChanges environment; // applied to this process's environment (LD_PRELOAD is inherited)
  std::string watch_library;      // a canonical library path to look for in the program's maps ("" = none)
};

// What the program's own process said about the preload once it had exec'd (its libc mapped).
struct PreloadObservation {
  bool observed = false;            // false: the program ended before it could be read
  bool library_mapped = false;      // watch_library is in /proc/PID/maps
  std::string ld_preload;           // LD_PRELOAD in /proc/PID/environ ("" = unset)
  std::string executable;           // /proc/PID/exe when it was read
};

struct ProgramOutcome {
  ChildOutcome::End end = ChildOutcome::End::spawn_failed;
  int exit_code = -1;
  int signal = 0;
  std::string spawn_error;
  std::string out, err;            // the first 1 MiB of each
  double wall_s = 0;               // fork to reaped
  double user_s = 0, sys_s = 0;    // wait4 rusage: the program and its reaped descendants
  std::uint64_t max_rss_kib = 0;   // ru_maxrss: the largest resident set of any process of the tree
  std::uint64_t minor_faults = 0, major_faults = 0;
  PreloadObservation preload;

  bool succeeded() const { return end == ChildOutcome::End::exited && exit_code == 0; }
  // One line: how a program that did not succeed ended (exit code and last stderr line, or signal).
  std::string failure() const;
};

// A started program; finish() reaps it.  The program stays in this process's process group (a
// cell's timeout kills it with the cell) and dies with this process (PR_SET_PDEATHSIG).
class RunningProgram {
 public:
  explicit RunningProgram(const ProgramSpec& spec);
  ~RunningProgram();
  RunningProgram(const RunningProgram&) = delete;
  RunningProgram& operator=(const RunningProgram&) = delete;

  pid_t pid() const { return pid_; }
  // Reads its output and watches its preload until it ends (or, with a deadline, kills it with
  // SIGKILL after `timeout_s`); reaps it with wait4.  Call once.
  ProgramOutcome finish(double timeout_s = 0);
  // Whether it has ended (not yet reaped by finish()): polls its output meanwhile.
  bool still_running();

 private:
  void pump(int wait_ms);
  void observe();
  ProgramSpec spec_;
  ProgramOutcome outcome_;
  pid_t pid_ = -1;
  int fds_[2] = {-1, -1};
  std::string own_exe_;
  double started_ = 0;
};

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
