// Waiting on state rather than on time, for the tests that start processes: a test waits until
// what it needs has happened (a process gone, a counter grown), polling, with an overall bound
// that only stops a hang -- it never decides a test that would pass given time.
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
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

// The state letter of /proc/<pid>/stat ('R', 'S', 'Z', ...), or '\0' once the pid is gone.
inline char process_state(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return '\0';
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
    std::ifstream in(e.path() / "cmdline", std::ios::binary);
    const std::string cmdline((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const pid_t pid = pid_t(std::stol(dir));
    if (cmdline == want && process_state(pid) != 'Z' && process_state(pid) != '\0') out.push_back(pid);
  }
  return out;
}

// A `sleep` no other process runs: its seconds hold this process's pid (more than a day).
inline std::vector<std::string> unique_sleep() {
  return {"sleep", std::to_string(100000 + getpid())};
}

}  // namespace allocstress::test
