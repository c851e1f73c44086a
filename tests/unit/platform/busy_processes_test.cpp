// The environment check's busy-process sampling: the arithmetic on given snapshots and times (no
// clock), then /proc read live -- a child that spins is listed and one that sleeps is not, where
// the window ends when the spinner has used a set amount of CPU, not after a set time.
#include "platform/process/busy_processes.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "state_waits.hpp"

namespace allocstress {
namespace {

constexpr double kTicksPerSecond = 100;

TEST(BusyProcesses, PercentOfACpuOverTheWindow) {
  const ProcessSnapshot before = {{10, {"spin", 1000, 1}}, {11, {"idle", 50, 1}}, {12, {"half", 0, 1}}, {13, {"gone", 7, 1}}};
  const ProcessSnapshot after = {{10, {"spin", 1050, 1}}, {11, {"idle", 50, 1}}, {12, {"half", 10, 1}}, {14, {"new", 900, 1}}};
  // 0.5 s: 50 ticks are 100% of a CPU, 10 ticks 20%; a pid in one snapshot only is not judged.
  const auto busy = busy_between(before, after, 0.5, 99, 20.0, kTicksPerSecond);
  ASSERT_EQ(busy.size(), 2u);
  EXPECT_EQ(busy[0].pid, 10);
  EXPECT_EQ(busy[0].name, "spin");
  EXPECT_DOUBLE_EQ(busy[0].cpu_percent, 100.0);
  EXPECT_EQ(busy[1].pid, 12);
  EXPECT_DOUBLE_EQ(busy[1].cpu_percent, 20.0);  // the threshold itself is busy
  // The same ticks over a window twice as long: half the share, under the threshold.
  const auto longer = busy_between(before, after, 1.0, 99, 20.0, kTicksPerSecond);
  ASSERT_EQ(longer.size(), 1u);
  EXPECT_DOUBLE_EQ(longer[0].cpu_percent, 50.0);
  EXPECT_TRUE(busy_between(before, after, 0, 99, 20.0, kTicksPerSecond).empty());  // no window: nothing to say
}

TEST(BusyProcesses, LeavesOutItselfItsAncestorsAndReusedPids) {
  // 30 (this process) <- 20 (its shell) <- 1; 40 is a sibling; 50's pid was reused (ticks went down).
  const ProcessSnapshot before = {{20, {"sh", 0, 1}}, {30, {"self", 0, 20}}, {40, {"sib", 0, 20}}, {50, {"old", 500, 1}}};
  const ProcessSnapshot after = {{20, {"sh", 100, 1}}, {30, {"self", 100, 20}}, {40, {"sib", 100, 20}}, {50, {"new", 100, 1}}};
  std::vector<int> busy_pids;
  for (const auto& b : busy_between(before, after, 1.0, 30, 20.0, kTicksPerSecond)) busy_pids.push_back(b.pid);
  EXPECT_EQ(busy_pids, std::vector<int>{40});
}

// A child that spins, or (spin false) says so on `ready` once it is about to pause() forever.
pid_t spawn(bool spin, int ready) {
  const pid_t pid = fork();
  if (pid == 0) {
    volatile unsigned long counter = 0;
    while (spin) counter = counter + 1;
    if (write(ready, "s", 1) != 1) _exit(1);
    for (;;) pause();
  }
  return pid;
}

TEST(BusyProcesses, FindsASpinningProcessButNotASleepingOne) {
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t spinner = spawn(true, ready[1]), sleeper = spawn(false, ready[1]);
  ASSERT_GT(spinner, 0);
  ASSERT_GT(sleeper, 0);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  close(ready[1]);
  // Past its write, the sleeper's only way to block is pause(): once it sleeps, its ticks are final.
  ASSERT_TRUE(test::wait_until([&] { return test::process_state(sleeper) == 'S'; })) << "the sleeper never slept";
  const ProcessSnapshot before = snapshot_processes();
  ASSERT_TRUE(before.count(spinner) && before.count(sleeper));
  EXPECT_EQ(before.at(spinner).ppid, getpid());
  // The window ends when the spinner has used 10 more ticks, however long that takes here.
  ProcessSnapshot after;
  ASSERT_TRUE(test::wait_until([&] {
    after = snapshot_processes();
    return after.count(spinner) && after.at(spinner).ticks >= before.at(spinner).ticks + 10;
  })) << "the spinner never ran";
  kill(spinner, SIGKILL);
  kill(sleeper, SIGKILL);
  waitpid(spinner, nullptr, 0);
  waitpid(sleeper, nullptr, 0);
  EXPECT_EQ(after.at(sleeper).ticks, before.at(sleeper).ticks);
  // Over a window of those 10 ticks' length the spinner used 100% or more (it ran the whole
  // window); the sleeper 0%, and the test itself is never listed.
  const double ticks_per_second = double(sysconf(_SC_CLK_TCK));
  const auto busy = busy_between(before, after, 10 / ticks_per_second, getpid(), 20.0, ticks_per_second);
  const auto found = std::find_if(busy.begin(), busy.end(), [&](const BusyProcess& p) { return p.pid == spinner; });
  ASSERT_NE(found, busy.end());
  EXPECT_GE(found->cpu_percent, 100.0);
  for (const auto& p : busy) {
    EXPECT_NE(p.pid, sleeper);
    EXPECT_NE(p.pid, getpid());
  }
}

}  // namespace
}  // namespace allocstress
