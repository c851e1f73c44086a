// fork/exec with pipes, poll-based capture, and a SIGKILL to the process group on timeout.
#include "platform/process/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace allocstress {

namespace {

volatile sig_atomic_t g_interrupted = 0;

void on_interrupt(int) { g_interrupted = 1; }

// A null-terminated char* array over strings it owns, as execve wants; built before fork, since
// the child may only make async-signal-safe calls.
class CStringArray {
 public:
  explicit CStringArray(std::vector<std::string> strings) : strings_(std::move(strings)) {
    for (auto& s : strings_) pointers_.push_back(s.data());
    pointers_.push_back(nullptr);
  }
  char** data() { return pointers_.data(); }

 private:
  std::vector<std::string> strings_;
  std::vector<char*> pointers_;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string last_nonempty_line(const std::string& text) {
  std::size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', end);
  const std::size_t from = begin == std::string::npos ? 0 : begin + 1;
  std::string line = text.substr(from, end - from + 1);
  // A failing `allocstress run` child says "allocstress: error: ..."; the caller adds its own prefix.
  const std::string own_prefix = "allocstress: error: ";
  if (line.rfind(own_prefix, 0) == 0) line.erase(0, own_prefix.size());
  return line;
}

}  // namespace

std::string shell_command_line(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& word : argv) {
    const bool plain = !word.empty() && word.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                                               "0123456789_-./=:,+@%") == std::string::npos;
    std::string quoted = "'";
    for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    line += (line.empty() ? "" : " ") + (plain ? word : quoted + "'");
  }
  return line;
}

void install_interrupt_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);  // also when a non-interactive shell started us with SIGINT ignored
  sigaction(SIGTERM, &sa, nullptr);
  struct sigaction hup {};
  sigaction(SIGHUP, nullptr, &hup);
  if (hup.sa_handler != SIG_IGN) sigaction(SIGHUP, &sa, nullptr);  // keep nohup's SIG_IGN
}

bool interrupted() { return g_interrupted != 0; }

std::vector<std::string> environment_with(const EnvironmentChanges& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    const std::string name = entry.substr(0, entry.find('='));
    if (changes.count(name) == 0) env.push_back(entry);
  }
  for (const auto& [name, value] : changes)
    if (value) env.push_back(name + "=" + *value);
  return env;
}

EnvironmentChanges unset_all_but(const std::function<bool(const std::string&)>& keep) {
  EnvironmentChanges changes;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry(*e);
    if (std::string name = entry.substr(0, entry.find('=')); !keep(name)) changes[std::move(name)] = std::nullopt;
  }
  return changes;
}

void exec_with_environment(const std::vector<std::string>& argv, const EnvironmentChanges& changes) {
  CStringArray cargv(argv), cenv(environment_with(changes));
  execve(cargv.data()[0], cargv.data(), cenv.data());
}

ChildOutcome run_child(const std::vector<std::string>& argv, const EnvironmentChanges& changes, double timeout_s,
                       const std::string& working_directory, int cgroup_procs_fd) {
  ChildOutcome r;
  const auto t0 = std::chrono::steady_clock::now();
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return r;
  }
  if (pipe2(err_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = std::string("pipe: ") + std::strerror(errno);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return r;
  }
  // Everything the child needs is built before fork: after fork only async-signal-safe calls.
  CStringArray cargv(argv), cenv(environment_with(changes));

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    r.spawn_error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return r;
  }
  if (pid == 0) {
    setpgid(0, 0);
    // Die with the matrix: an orphaned cell must not keep measuring beside a resumed matrix.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    if (!working_directory.empty() && chdir(working_directory.c_str()) != 0) _exit(127);
    if (cgroup_procs_fd >= 0 && write(cgroup_procs_fd, "0", 1) != 1) _exit(125);
    execve(cargv.data()[0], cargv.data(), cenv.data());
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_pipe[1]);
  close(err_pipe[1]);

  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  std::string* sinks[2] = {&r.out, &r.err};
  int open_fds = 2;
  bool timed_out = false;
  char buf[8192];
  // Poll in slices of at most 200 ms, so an interrupt arriving just before poll() is seen soon.
  constexpr int kSliceMs = 200;
  while (open_fds > 0 && !interrupted()) {
    int wait_ms = kSliceMs;
    if (timeout_s > 0) {
      const double left = timeout_s - seconds_since(t0);
      if (left <= 0) {
        timed_out = true;
        break;
      }
      wait_ms = left * 1000 < kSliceMs ? int(left * 1000) + 1 : kSliceMs;
    }
    const int n = poll(fds, 2, wait_ms);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        sinks[i]->append(buf, std::size_t(got));
      } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      }
    }
  }
  for (auto& f : fds)
    if (f.fd >= 0) close(f.fd);
  // The child may outlive its pipes (it could close them): wait for it under the same deadline.
  int status = 0;
  for (bool killed = false;;) {
    if (!killed && (timed_out || interrupted())) {
      kill(-pid, SIGKILL);
      killed = true;
    }
    const pid_t done = waitpid(pid, &status, killed ? 0 : WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    if (done == 0) {
      if (timeout_s > 0 && seconds_since(t0) >= timeout_s) timed_out = true;
      usleep(10'000);
    }
  }
  r.elapsed_s = seconds_since(t0);
  if (interrupted())
    r.end = ChildOutcome::End::interrupted;
  else
    set_end(r, status, timed_out);
  return r;
}

std::string describe_failure(const ChildOutcome& o, double timeout_s) {
  switch (o.end) {
    case ChildOutcome::End::spawn_failed: return "could not start the cell process: " + o.spawn_error;
    case ChildOutcome::End::interrupted: return "interrupted by the user";
    case ChildOutcome::End::timed_out:
      return "exceeded the per-cell timeout of " + std::to_string(int(timeout_s)) + " s and was killed";
    case ChildOutcome::End::signaled: {
      const char* abbrev = sigabbrev_np(o.signal);
      return "killed by signal " + std::to_string(o.signal) + " (SIG" + (abbrev ? abbrev : "?") + ")" +
             (o.err.empty() ? "" : ": " + last_nonempty_line(o.err));
    }
    case ChildOutcome::End::exited: break;
  }
  const std::string last = last_nonempty_line(o.err);
  return "exit code " + std::to_string(o.exit_code) + (last.empty() ? "" : ": " + last);
}

std::filesystem::path make_temporary_folder(const std::string& prefix, const std::filesystem::path& base) {
  std::string path = ((base.empty() ? std::filesystem::temp_directory_path() : base) / (prefix + "XXXXXX")).string();
  if (mkdtemp(path.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary folder " + path + ": " + std::strerror(errno));
  return path;
}

TemporaryFolder::~TemporaryFolder() {
  std::error_code ec;
  if (!dir.empty()) std::filesystem::remove_all(dir, ec);
}

std::filesystem::path beside_this_executable(const std::string& file) {
  std::error_code ec;
  return std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / file;
}

}  // namespace allocstress
