// Runs a command as a child process with a changed environment and a deadline, capturing its
// standard output and error.  The child leads its own process group, so a timeout kills it and
// everything it started.  Used to run every matrix cell in a fresh process.
#pragma once

#include <sys/wait.h>

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace allocstress {

// Variables to set (value) or remove (nullopt) in the child's environment; the rest is inherited.
using EnvironmentChanges = std::map<std::string, std::optional<std::string>>;

struct ChildOutcome {
  enum class End { exited, signaled, timed_out, interrupted, spawn_failed };
  End end = End::spawn_failed;
  int exit_code = -1;  // End::exited
  int signal = 0;      // End::signaled
  std::string out;     // everything the child wrote to stdout
  std::string err;     // everything the child wrote to stderr
  double elapsed_s = 0;
  std::string spawn_error;

  bool succeeded() const { return end == End::exited && exit_code == 0; }
};

// pre: argv[0] is an absolute path.  timeout_s <= 0 means no deadline.  The child runs in
// `working_directory` (empty: this process's; one it cannot enter: exit code 127).  With
// `cgroup_procs_fd` >= 0 (a cgroup's cgroup.procs, open for writing: platform/memory/memory_cgroup.hpp)
// the child joins that cgroup before exec by writing "0" to it (exit code 125 if it cannot).
ChildOutcome run_child(const std::vector<std::string>& argv, const EnvironmentChanges& env, double timeout_s,
                       const std::string& working_directory = "", int cgroup_procs_fd = -1);

// After this, SIGINT/SIGTERM/SIGHUP no longer end this process: they set a flag that run_child
// checks, killing the running child; the caller then stops cleanly (see interrupted()).
void install_interrupt_handlers();
bool interrupted();

// Sets how a reaped child ended (end, and its signal or exit code) from wait's status; timed_out
// (the caller killed it at its deadline) wins over the signal the kill sent.  Outcome:
// ChildOutcome or ProgramOutcome (platform/process/program_run.hpp).
template <class Outcome>
void set_end(Outcome& o, int status, bool timed_out) {
  if (timed_out) {
    o.end = ChildOutcome::End::timed_out;
  } else if (WIFSIGNALED(status)) {
    o.end = ChildOutcome::End::signaled;
    o.signal = WTERMSIG(status);
  } else {
    o.end = ChildOutcome::End::exited;
    o.exit_code = WEXITSTATUS(status);
  }
}

// One line saying how a child that did not succeed ended: its signal, timeout, or exit code and
// the last line it wrote to stderr.
std::string describe_failure(const ChildOutcome& outcome, double timeout_s);

// A new private folder `<base>/<prefix>XXXXXX`; without a base, in the temp dir, which honours
// TMPDIR (the matrix points its cells at a folder beside the results, which it removes when it is
// done).  Throws std::runtime_error with errno's text.
std::filesystem::path make_temporary_folder(const std::string& prefix, const std::filesystem::path& base = {});

// A folder removed, with everything in it, when this object goes (none while `dir` is empty).
struct TemporaryFolder {
  std::filesystem::path dir;
  TemporaryFolder() = default;
  explicit TemporaryFolder(std::filesystem::path d) : dir(std::move(d)) {}
  TemporaryFolder(const TemporaryFolder&) = delete;
  TemporaryFolder& operator=(const TemporaryFolder&) = delete;
  ~TemporaryFolder();
};

// `file` in the folder of this executable (/proc/self/exe): where the libraries it preloads are
// built (the tracer, the probe, the counts world).
std::filesystem::path beside_this_executable(const std::string& file);

// argv as one line a POSIX shell would split back into the same words (single quotes where needed).
std::string shell_command_line(const std::vector<std::string>& argv);

// Changes that unset every variable of this process except those `keep` accepts by name: with
// what the caller then sets, a child's environment no longer depends on the caller's.
EnvironmentChanges unset_all_but(const std::function<bool(const std::string&)>& keep);

// This process's environment with `changes` applied, as NAME=VALUE strings.
std::vector<std::string> environment_with(const EnvironmentChanges& changes);

// Replaces this process with argv[0] (an absolute path), run with this process's environment
// plus `changes`.  Returns only if execve failed (errno says why).
void exec_with_environment(const std::vector<std::string>& argv, const EnvironmentChanges& changes);

}  // namespace allocstress
