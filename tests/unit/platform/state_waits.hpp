// Waiting on state rather than on time, for the tests that start processes: a test waits until
// what it needs has happened (a process gone, a counter grown), polling, with an overall bound
// that only stops a hang -- it never decides a test that would pass given time.
#pragma once

#include <fcntl.h>
#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace allocstress::test {

// Far longer than anything here takes on a loaded 2-core VM: reaching it means a hang.
inline constexpr std::chrono::seconds kHangBound{120};

// Polls `done` until it holds or `bound` passed; whether it held.  The polls start a millisecond
// apart and space out to 50 ms (a wait that lasts is a hang being bounded, not a state coming).
template <class Condition>
bool wait_until(Condition done, std::chrono::steady_clock::duration bound = kHangBound) {
  const auto give_up = std::chrono::steady_clock::now() + bound;
  std::chrono::milliseconds pause{1};
  while (!done()) {
    if (std::chrono::steady_clock::now() > give_up) return done();
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return true;
}

// The whole of a /proc file, "" when it cannot be read: the process may exit between the listing
// and the read, or during it (a read then fails with ESRCH; std::ifstream would throw).
inline std::string proc_file(const std::string& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buf[4096];
  for (ssize_t got; (got = ::read(fd, buf, sizeof buf)) > 0;) text.append(buf, std::size_t(got));
  ::close(fd);
  return text;
}

// The state letter of /proc/<pid>/stat ('R', 'S', 'Z', ...), or '\0' once the pid is gone.
inline char process_state(pid_t pid) {
  const std::string line = proc_file("/proc/" + std::to_string(pid) + "/stat");
  const auto close = line.rfind(')');
  return close == std::string::npos || close + 2 >= line.size() ? '\0' : line[close + 2];
}

// The live (not zombie) processes whose command line is exactly `argv`.
inline std::vector<pid_t> processes_running(const std::vector<std::string>& argv) {
  std::string want;
  for (const auto& word : argv) want += word + '\0';
  std::vector<pid_t> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string dir = e.path().filename().string();
    if (dir.empty() || dir.find_first_not_of("0123456789") != std::string::npos) continue;
    const pid_t pid = pid_t(std::stol(dir));
    if (proc_file("/proc/" + dir + "/cmdline") != want) continue;
    const char state = process_state(pid);
    if (state != 'Z' && state != '\0') out.push_back(pid);
  }
  return out;
}

// A `sleep` no other process runs: its seconds hold this process's pid (more than a day).
inline std::vector<std::string> unique_sleep() {
  return {"sleep", std::to_string(100000 + getpid())};
}

}  // namespace allocstress::test
