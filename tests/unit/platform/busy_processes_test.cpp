// The environment check's busy-process sampling finds a child that spins and ignores one that sleeps.
#include "platform/busy_processes.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

namespace allocstress {
namespace {

pid_t spawn(bool spin) {
  const pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned long counter = 0;
    while (spin) counter = counter + 1;
    pause();
    _exit(0);
  }
  return pid;
}

TEST(BusyProcesses, FindsASpinningProcessButNotASleepingOne) {
  const pid_t spinner = spawn(true), sleeper = spawn(false);
  ASSERT_GT(spinner, 0);
  ASSERT_GT(sleeper, 0);
  // The spinner is a child of this test, not an ancestor: it must be listed.
  const auto busy = busy_processes(300, 20.0);
  kill(spinner, SIGKILL);
  kill(sleeper, SIGKILL);
  waitpid(spinner, nullptr, 0);
  waitpid(sleeper, nullptr, 0);
  bool found_spinner = false;
  for (const auto& p : busy) {
    EXPECT_NE(p.pid, sleeper);
    EXPECT_NE(p.pid, getpid());
    if (p.pid == spinner) {
      found_spinner = true;
      EXPECT_GE(p.cpu_percent, 20.0);
    }
  }
  EXPECT_TRUE(found_spinner);
}

}  // namespace
}  // namespace allocstress
