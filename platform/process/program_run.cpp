// fork/exec of a measured program, its output drained by poll() and hashed, and wait4() for the
// rusage of its whole tree (see program_run.hpp).
#include "platform/process/program_run.hpp"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

extern char** environ;

namespace allocstress {

namespace {

constexpr std::size_t kOutputCap = 1 << 20;

double now_s() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

// The children of every process, from /proc/PID/stat (field 4 is the parent).
std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return out;
  while (const dirent* e = readdir(proc)) {
    const pid_t pid = pid_t(std::atol(e->d_name));
    if (pid <= 0) continue;
    const std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
    const std::size_t close = stat.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) continue;
    std::istringstream rest(stat.substr(close + 1));
    std::string state;
    long ppid = 0;
    rest >> state >> ppid;
    if (ppid == parent) out.push_back(pid);
  }
  closedir(proc);
  return out;
}

std::string last_line(const std::string& text) {
  const std::size_t end = text.find_last_not_of("\n\r ");
  if (end == std::string::npos) return "";
  const std::size_t begin = text.rfind('\n', end);
  return text.substr(begin == std::string::npos ? 0 : begin + 1, end - (begin == std::string::npos ? 0 : begin + 1) + 1);
}

}  // namespace

std::string ProgramOutcome::failure() const {
  switch (end) {
    case ChildOutcome::End::spawn_failed: return "could not start the program: " + spawn_error;
    case ChildOutcome::End::interrupted: return "interrupted";
    case ChildOutcome::End::timed_out: return "the program exceeded its deadline and was killed";
    case ChildOutcome::End::signaled: {
      const char* abbrev = sigabbrev_np(signal);
      return "the program was killed by signal " + std::to_string(signal) + " (SIG" + (abbrev ? abbrev : "?") + ")";
    }
    case ChildOutcome::End::exited: break;
  }
  const std::string line = last_line(err);
  return "the program exited with code " + std::to_string(exit_code) + (line.empty() ? "" : ": " + line);
}

std::string ProgramOutcome::stderr_tail(std::size_t lines, std::size_t bytes) const {
  const std::size_t last = err.find_last_not_of("\n\r ");
  if (last == std::string::npos) return "";
  std::size_t begin = last + 1, found = 0;
  while (begin > 0 && found < lines) {
    const std::size_t nl = err.rfind('\n', begin - 1);
    begin = nl == std::string::npos ? 0 : nl;
    ++found;
    if (nl == std::string::npos) break;
  }
  if (begin < err.size() && err[begin] == '\n') ++begin;
  if (last + 1 - begin > bytes) begin = last + 1 - bytes;
  return err.substr(begin, last + 1 - begin);
}

std::uint64_t fnv1a(std::uint64_t hash, const char* bytes, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    hash ^= static_cast<unsigned char>(bytes[i]);
    hash *= 1099511628211ull;
  }
  return hash;
}

std::string hash_text(std::uint64_t hash) {
  char text[32];
  std::snprintf(text, sizeof text, "fnv1a64:%016llx", static_cast<unsigned long long>(hash));
  return text;
}

void kill_process_tree(pid_t pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGSTOP);  // it cannot start more children while they are found
  for (pid_t child : children_of(pid)) kill_process_tree(child);
  ::kill(pid, SIGKILL);
}

RunningProgram::RunningProgram(const ProgramSpec& spec) : spec_(spec) {
  outcome_.out_hash = kFnvOffset;
  started_ = now_s();
  int out_pipe[2], err_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(err_pipe, O_CLOEXEC) != 0) {
    outcome_.spawn_error = std::string("pipe: ") + std::strerror(errno);
    return;
  }
  // Everything the child needs is built before fork: after fork only async-signal-safe calls.
  std::vector<std::string> env = environment_with(spec.environment), argv = spec.argv;
  std::vector<char*> cenv, cargv;
  for (auto& e : env) cenv.push_back(e.data());
  for (auto& a : argv) cargv.push_back(a.data());
  cenv.push_back(nullptr);
  cargv.push_back(nullptr);
  const char* cwd = spec.working_directory.empty() ? nullptr : spec.working_directory.c_str();
  const pid_t parent = getpid();
  const bool fixed_addresses = spec.fixed_addresses;
  pid_ = fork();
  if (pid_ < 0) {
    outcome_.spawn_error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return;
  }
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    const int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, STDIN_FILENO);
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    if (cwd != nullptr && chdir(cwd) != 0) _exit(126);
    if (fixed_addresses) {
      const int now = personality(0xffffffff);  // reads the persona without changing it
      if (now != -1) personality(static_cast<unsigned long>(now) | ADDR_NO_RANDOMIZE);
    }
    execve(cargv[0], cargv.data(), cenv.data());
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  fds_[0] = out_pipe[0];
  fds_[1] = err_pipe[0];
}

RunningProgram::~RunningProgram() {
  for (int fd : fds_)
    if (fd >= 0) close(fd);
  if (pid_ > 0) {  // never finished: do not leave it running
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void RunningProgram::pump(int wait_ms) {
  pollfd fds[2] = {{fds_[0], POLLIN, 0}, {fds_[1], POLLIN, 0}};
  const int n = poll(fds, 2, wait_ms);
  if (n <= 0) return;
  char buf[8192];
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || fds[i].revents == 0) continue;
    const ssize_t got = read(fds[i].fd, buf, sizeof buf);
    if (got > 0) {
      take(i, buf, std::size_t(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      close(fds_[i]);
      fds_[i] = -1;
    }
  }
}

void RunningProgram::take(int stream, const char* chunk, std::size_t size) {
  if (stream == 0) {
    outcome_.out_hash = fnv1a(outcome_.out_hash, chunk, size);
    outcome_.out_bytes += std::uint64_t(size);
  }
  std::string& sink = stream == 0 ? outcome_.out : outcome_.err;
  if (sink.size() < kOutputCap) sink.append(chunk, std::min(size, kOutputCap - sink.size()));
}

const std::string& RunningProgram::output_so_far() {
  if (fds_[0] >= 0 || fds_[1] >= 0) pump(0);
  return outcome_.out;
}

const std::string& RunningProgram::errors_so_far() {
  if (fds_[0] >= 0 || fds_[1] >= 0) pump(0);
  return outcome_.err;
}

void RunningProgram::send_signal(int signal) {
  if (pid_ > 0) ::kill(pid_, signal);
}

bool RunningProgram::still_running() {
  if (pid_ <= 0) return false;
  if (fds_[0] >= 0 || fds_[1] >= 0) pump(0);
  siginfo_t info{};
  if (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
  return info.si_pid == 0;
}

ProgramOutcome RunningProgram::finish(double timeout_s) {
  if (pid_ <= 0) return outcome_;
  bool timed_out = false;
  // Output first, until both pipes close (a descendant that keeps them open is waited for too:
  // the output is the whole tree's), then the exit.  The slices are short so that the deadline
  // and the end are seen within a millisecond.
  for (;;) {
    if (timeout_s > 0 && now_s() - started_ > timeout_s) {
      timed_out = true;
      break;
    }
    if (fds_[0] < 0 && fds_[1] < 0) {
      siginfo_t info{};
      if (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    pump(timeout_s > 0 ? 10 : 50);
  }
  if (timed_out) kill_process_tree(pid_);
  int status = 0;
  rusage usage{};
  while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  outcome_.wall_s = now_s() - started_;
  pid_ = -1;
  outcome_.user_s = seconds(usage.ru_utime);
  outcome_.sys_s = seconds(usage.ru_stime);
  outcome_.max_rss_kib = std::uint64_t(usage.ru_maxrss);
  outcome_.minor_faults = std::uint64_t(usage.ru_minflt);
  outcome_.major_faults = std::uint64_t(usage.ru_majflt);
  outcome_.voluntary_switches = std::uint64_t(usage.ru_nvcsw);
  outcome_.involuntary_switches = std::uint64_t(usage.ru_nivcsw);
  set_end(outcome_, status, timed_out);
  for (int& fd : fds_) {  // what is left in the pipes (a descendant may still hold them: not waited for)
    if (fd < 0) continue;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    char buf[8192];
    const int stream = &fd == &fds_[0] ? 0 : 1;
    for (ssize_t got; (got = read(fd, buf, sizeof buf)) > 0;) take(stream, buf, std::size_t(got));
    close(fd);
    fd = -1;
  }
  return outcome_;
}

ProgramOutcome run_program(const ProgramSpec& spec, double timeout_s) { return RunningProgram(spec).finish(timeout_s); }

std::string find_executable(const std::string& program, const std::string& dirs) {
  std::size_t at = 0;
  while (at <= dirs.size()) {
    const std::size_t end = dirs.find(':', at);
    const std::string dir = dirs.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (!dir.empty()) {
      const std::string path = dir + "/" + program;
      struct stat st {};
      if (stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0) return path;
    }
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return "";
}

unsigned free_loopback_port() {
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const std::string why = std::strerror(errno);
    close(s);
    throw std::runtime_error("cannot find a free loopback port: " + why);
  }
  close(s);
  return ntohs(a.sin_port);
}

namespace {
int connect_loopback(unsigned port) {
  const int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(std::uint16_t(port));
  if (connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(s);
    return -1;
  }
  return s;
}
}  // namespace

bool wait_for_loopback_port(unsigned port, double timeout_s, RunningProgram* alive) {
  const double until = now_s() + timeout_s;
  while (now_s() < until) {
    if (const int s = connect_loopback(port); s >= 0) {
      close(s);
      return true;
    }
    if (alive != nullptr && !alive->still_running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

bool send_to_loopback_port(unsigned port, const std::string& text) {
  const int s = connect_loopback(port);
  if (s < 0) return false;
  const bool sent = send(s, text.data(), text.size(), MSG_NOSIGNAL) == ssize_t(text.size());
  char buf[256];
  (void)!recv(s, buf, sizeof buf, 0);  // the server closes the connection as it shuts down
  close(s);
  return sent;
}

}  // namespace allocstress
