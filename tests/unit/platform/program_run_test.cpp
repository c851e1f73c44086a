// platform/process/program_run.hpp: a program's exit, output (hashed whole) and wait4 rusage (children
// included); a deadline kills its whole tree.  Counts and facts, never timing.
#include "platform/process/program_run.hpp"

#include <gtest/gtest.h>

#include "state_waits.hpp"

namespace allocstress {
namespace {

TEST(ProgramRun, ExitCodeAndOutput) {
  const ProgramOutcome o = run_program({{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, "", {}});
  EXPECT_EQ(o.end, ChildOutcome::End::exited);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.out, "out\n");
  EXPECT_EQ(o.err, "err\n");
  EXPECT_EQ(o.failure(), "the program exited with code 3: err");
  EXPECT_GT(o.max_rss_kib, 0u);
}

TEST(ProgramRun, RusageIncludesWaitedForChildren) {
  // The child touches 64 MiB: the tree's peak RSS (ru_maxrss) is at least that, though sh itself is small.
  const ProgramOutcome o = run_program({{"/bin/sh", "-c", "head -c 67108864 /dev/zero | (/usr/bin/python3 -c 'import sys; b = sys.stdin.buffer.read(); print(len(b))')"}, "", {}});
  ASSERT_TRUE(o.succeeded()) << o.failure();
  EXPECT_EQ(o.out, "67108864\n");
  EXPECT_GE(o.max_rss_kib, 64u * 1024);
  EXPECT_GT(o.minor_faults, 64u * 1024 / 4 / 2);
}

TEST(ProgramRun, WorkingDirectoryAndEnvironment) {
  const ProgramOutcome o = run_program({{"/bin/sh", "-c", "pwd; echo $ALLOCSTRESS_TEST_VALUE"}, "/tmp", {{"ALLOCSTRESS_TEST_VALUE", "seven"}}});
  EXPECT_EQ(o.out, "/tmp\nseven\n");
}

TEST(ProgramRun, OutputIsHashedWholeAndStderrTailKept) {
  // 3 MiB of output: more than the 1 MiB kept, all of it hashed.
  const ProgramOutcome o = run_program({{"/bin/sh", "-c", "head -c 3145728 /dev/zero; printf 'a\\nb\\nc\\n' >&2; exit 1"}, "", {}});
  EXPECT_EQ(o.out_bytes, 3145728u);
  EXPECT_EQ(o.out.size(), 1u << 20);
  std::string zeros(3145728, '\0');
  EXPECT_EQ(o.out_hash, fnv1a(kFnvOffset, zeros.data(), zeros.size()));
  EXPECT_EQ(hash_text(o.out_hash).rfind("fnv1a64:", 0), 0u);
  EXPECT_EQ(o.stderr_tail(2), "b\nc");
  EXPECT_EQ(o.stderr_tail(8), "a\nb\nc");
  EXPECT_EQ(o.stderr_tail(8, 3), "b\nc");
}

TEST(ProgramRun, ADeadlineKillsTheWholeTree) {
  // The child sleeps for more than a day: the deadline, never the child, ends the run, however
  // slowly the machine runs it.  It must not outlive the deadline.
  const std::vector<std::string> child = test::unique_sleep();
  const ProgramOutcome o = run_program({{"/bin/sh", "-c", shell_command_line(child) + " & wait"}, "", {}}, 0.5);
  EXPECT_EQ(o.end, ChildOutcome::End::timed_out);
  EXPECT_GE(o.wall_s, 0.5);  // the deadline is never early
  EXPECT_EQ(o.failure(), "the program exceeded its deadline and was killed");
  // SIGKILL is sent by then; the orphan goes once the kernel has run its exit (or stays a zombie
  // of whatever reaps orphans here).
  EXPECT_TRUE(test::wait_until([&] { return test::processes_running(child).empty(); }))
      << "the sleeping child survived its deadline";
}

TEST(ProgramRun, MissingExecutableExits127) {
  const ProgramOutcome o = run_program({{"/nonexistent/program"}, "", {}});
  EXPECT_EQ(o.exit_code, 127);
}

TEST(ProgramRun, FindExecutableSearchesTheList) {
  EXPECT_EQ(find_executable("sh", "/nonexistent:/bin"), "/bin/sh");
  EXPECT_EQ(find_executable("no-such-program-here", "/bin:/usr/bin"), "");
}

}  // namespace
}  // namespace allocstress
