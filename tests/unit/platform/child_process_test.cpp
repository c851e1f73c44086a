// run_child(): exit codes, signals, timeouts and environment changes, with real processes.
#include "platform/process/child_process.hpp"

#include <gtest/gtest.h>

#include <csignal>

#include "state_waits.hpp"

namespace allocstress {
namespace {

ChildOutcome sh(const std::string& script, const EnvironmentChanges& env = {}, double timeout_s = 30) {
  return run_child({"/bin/sh", "-c", script}, env, timeout_s);
}

TEST(ChildProcess, CapturesOutputAndExitCode) {
  const auto o = sh("echo out; echo first >&2; echo 'last words' >&2; exit 3");
  EXPECT_EQ(o.end, ChildOutcome::End::exited);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.out, "out\n");
  EXPECT_FALSE(o.succeeded());
  EXPECT_EQ(describe_failure(o, 30), "exit code 3: last words");
}

TEST(ChildProcess, ReportsTheSignalThatKilledIt) {
  const auto o = sh("kill -SEGV $$");
  EXPECT_EQ(o.end, ChildOutcome::End::signaled);
  EXPECT_EQ(o.signal, SIGSEGV);
  EXPECT_EQ(describe_failure(o, 30), "killed by signal 11 (SIGSEGV)");
}

TEST(ChildProcess, KillsTheWholeGroupOnTimeout) {
  // The child and its grandchild sleep for more than a day: the deadline, never the child, ends
  // the run, however slowly the machine runs it.  The grandchild holds the pipes open; it must
  // not outlive the run (only killing the whole group ends it).
  const std::vector<std::string> grandchild = test::unique_sleep();
  const std::string nap = shell_command_line(grandchild);
  const auto o = sh(nap + " & " + nap, {}, 1);
  EXPECT_EQ(o.end, ChildOutcome::End::timed_out);
  EXPECT_GE(o.elapsed_s, 1.0);  // the deadline is never early (one monotonic clock)
  EXPECT_EQ(describe_failure(o, 1), "exceeded the per-cell timeout of 1 s and was killed");
  // SIGKILL is sent by then; the processes go once the kernel has run their exit.
  EXPECT_TRUE(test::wait_until([&] { return test::processes_running(grandchild).empty(); }))
      << "a sleep of the timed-out group survived it";
}

TEST(ChildProcess, AppliesEnvironmentChanges) {
  setenv("ALLOCSTRESS_TEST_REMOVE_ME", "x", 1);
  const auto o = sh("echo \"$ALLOCSTRESS_TEST_SET:${ALLOCSTRESS_TEST_REMOVE_ME:-gone}\"",
                    {{"ALLOCSTRESS_TEST_SET", "yes"}, {"ALLOCSTRESS_TEST_REMOVE_ME", std::nullopt}});
  EXPECT_TRUE(o.succeeded());
  EXPECT_EQ(o.out, "yes:gone\n");
}

TEST(ChildProcess, MissingExecutableIsAFailureNotACrash) {
  const auto o = run_child({"/nonexistent/program"}, {}, 10);
  EXPECT_EQ(o.end, ChildOutcome::End::exited);
  EXPECT_EQ(o.exit_code, 127);
}

}  // namespace
}  // namespace allocstress
