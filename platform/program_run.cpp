// fork/exec of a measured program, its output drained by poll(), its preload read from /proc, and
// wait4() for the rusage of its whole tree (see program_run.hpp).
#include "platform/program_run.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
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

std::string read_link(const std::string& path) {
  char buf[4096];
  const ssize_t n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, std::size_t(n)) : std::string();
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

double seconds(const timeval& t) { return double(t.tv_sec) + double(t.tv_usec) / 1e6; }

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

RunningProgram::RunningProgram(const ProgramSpec& spec) : spec_(spec), own_exe_(read_link("/proc/self/exe")) {
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

// Once the child has exec'd (its /proc/PID/exe is no longer this executable) and its libc is
// mapped (the dynamic loader maps LD_PRELOAD objects before the needed ones), its maps and
// environment say whether the preload reached it.
void RunningProgram::observe() {
  if (outcome_.preload.observed || pid_ <= 0) return;
  const std::string proc = "/proc/" + std::to_string(pid_);
  const std::string exe = read_link(proc + "/exe");
  if (exe.empty() || exe == own_exe_) return;
  const std::string maps = read_text(proc + "/maps");
  if (maps.find("/libc.so") == std::string::npos) return;
  PreloadObservation& o = outcome_.preload;
  o.executable = exe;
  o.library_mapped = !spec_.watch_library.empty() && maps.find(spec_.watch_library) != std::string::npos;
  const std::string environment = read_text(proc + "/environ");
  for (std::size_t at = 0; at < environment.size();) {
    const std::size_t end = environment.find('\0', at);
    const std::string entry = environment.substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (entry.rfind("LD_PRELOAD=", 0) == 0) o.ld_preload = entry.substr(11);
    if (end == std::string::npos) break;
    at = end + 1;
  }
  o.observed = true;
}

void RunningProgram::pump(int wait_ms) {
  pollfd fds[2] = {{fds_[0], POLLIN, 0}, {fds_[1], POLLIN, 0}};
  const int n = poll(fds, 2, wait_ms);
  if (n <= 0) return;
  std::string* sinks[2] = {&outcome_.out, &outcome_.err};
  char buf[8192];
  for (int i = 0; i < 2; ++i) {
    if (fds[i].fd < 0 || fds[i].revents == 0) continue;
    const ssize_t got = read(fds[i].fd, buf, sizeof buf);
    if (got > 0) {
      if (sinks[i]->size() < kOutputCap) sinks[i]->append(buf, std::size_t(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      close(fds_[i]);
      fds_[i] = -1;
    }
  }
}

bool RunningProgram::still_running() {
  if (pid_ <= 0) return false;
  observe();
  if (fds_[0] >= 0 || fds_[1] >= 0) pump(0);
  siginfo_t info{};
  if (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return false;
  return info.si_pid == 0;
}

ProgramOutcome RunningProgram::finish(double timeout_s) {
  if (pid_ <= 0) return outcome_;
  bool timed_out = false;
  // Output first (until both pipes close), the preload read as soon as it can be: 1 ms slices
  // until it was, then 50 ms.
  for (;;) {
    observe();
    if (timeout_s > 0 && now_s() - started_ > timeout_s) {
      timed_out = true;
      break;
    }
    if (fds_[0] < 0 && fds_[1] < 0) {
      siginfo_t info{};
      if (waitid(P_PID, id_t(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(outcome_.preload.observed ? 5 : 1));
      continue;
    }
    pump(outcome_.preload.observed ? 50 : 1);
  }
  if (timed_out) kill(pid_, SIGKILL);
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
  if (timed_out) {
    outcome_.end = ChildOutcome::End::timed_out;
  } else if (WIFSIGNALED(status)) {
    outcome_.end = ChildOutcome::End::signaled;
    outcome_.signal = WTERMSIG(status);
  } else {
    outcome_.end = ChildOutcome::End::exited;
    outcome_.exit_code = WEXITSTATUS(status);
  }
  for (int& fd : fds_) {  // what is left in the pipes (a descendant may still hold them: not waited for)
    if (fd < 0) continue;
    fcntl(fd, F_SETFL, O_NONBLOCK);
    char buf[8192];
    std::string& sink = &fd == &fds_[0] ? outcome_.out : outcome_.err;
    for (ssize_t got; (got = read(fd, buf, sizeof buf)) > 0;)
      if (sink.size() < kOutputCap) sink.append(buf, std::size_t(got));
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
