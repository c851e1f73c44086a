// run_child(): exit codes, signals, timeouts and environment changes, with real processes.
#include "platform/child_process.hpp"

#include <gtest/gtest.h>

#include <csignal>

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
  EXPECT_NE(describe_failure(o, 30).find("SIGSEGV"), std::string::npos) << describe_failure(o, 30);
}

TEST(ChildProcess, KillsTheWholeGroupOnTimeout) {
  // The grandchild (sleep) holds the pipes open: only killing the group ends the wait.
  const auto o = sh("sleep 30 & sleep 30", {}, 0.5);
  EXPECT_EQ(o.end, ChildOutcome::End::timed_out);
  EXPECT_LT(o.elapsed_s, 10.0);
  EXPECT_NE(describe_failure(o, 0.5).find("timeout"), std::string::npos);
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
