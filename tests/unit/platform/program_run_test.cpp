// platform/program_run.hpp: a program's exit, output and wait4 rusage (children included), and
// the preload read from its own /proc/PID/maps and environ.  Counts and facts, never timing.
#include "platform/program_run.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace allocstress {
namespace {

TEST(ProgramRun, ExitCodeAndOutput) {
  const ProgramOutcome o = run_program({{"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, "", {}, ""});
  EXPECT_EQ(o.end, ChildOutcome::End::exited);
  EXPECT_EQ(o.exit_code, 3);
  EXPECT_EQ(o.out, "out\n");
  EXPECT_EQ(o.err, "err\n");
  EXPECT_EQ(o.failure(), "the program exited with code 3: err");
  EXPECT_GT(o.max_rss_kib, 0u);
}

TEST(ProgramRun, RusageIncludesWaitedForChildren) {
  // The child touches 64 MiB: the tree's peak RSS (ru_maxrss) is at least that, though sh itself is small.
  const ProgramOutcome o = run_program({{"/bin/sh", "-c", "head -c 67108864 /dev/zero | (/usr/bin/python3 -c 'import sys; b = sys.stdin.buffer.read(); print(len(b))')"}, "", {}, ""});
  ASSERT_TRUE(o.succeeded()) << o.failure();
  EXPECT_EQ(o.out, "67108864\n");
  EXPECT_GE(o.max_rss_kib, 64u * 1024);
  EXPECT_GT(o.minor_faults, 64u * 1024 / 4 / 2);
}

TEST(ProgramRun, WorkingDirectoryAndEnvironment) {
  const ProgramOutcome o = run_program({{"/bin/sh", "-c", "pwd; echo $ALLOCSTRESS_TEST_VALUE"}, "/tmp", {{"ALLOCSTRESS_TEST_VALUE", "seven"}}, ""});
  EXPECT_EQ(o.out, "/tmp\nseven\n");
}

TEST(ProgramRun, PreloadIsReadFromTheProgramsOwnProc) {
  std::string lib;
  for (const char* candidate : {"/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6"})
    if (std::filesystem::exists(candidate)) lib = std::filesystem::canonical(candidate).string();
  if (lib.empty()) GTEST_SKIP() << "no libm.so.6 to preload";
  const ProgramOutcome o = run_program({{"/bin/sleep", "0.3"}, "", {{"LD_PRELOAD", lib}}, lib});
  ASSERT_TRUE(o.succeeded()) << o.failure();
  ASSERT_TRUE(o.preload.observed);
  EXPECT_TRUE(o.preload.library_mapped);
  EXPECT_EQ(o.preload.ld_preload, lib);
  EXPECT_EQ(o.preload.executable, std::filesystem::canonical("/bin/sleep").string());
  const ProgramOutcome without = run_program({{"/bin/sleep", "0.3"}, "", {{"LD_PRELOAD", std::nullopt}}, lib});
  ASSERT_TRUE(without.preload.observed);
  EXPECT_FALSE(without.preload.library_mapped);
  EXPECT_EQ(without.preload.ld_preload, "");
}

TEST(ProgramRun, MissingExecutableExits127) {
  const ProgramOutcome o = run_program({{"/nonexistent/program"}, "", {}, ""});
  EXPECT_EQ(o.exit_code, 127);
}

TEST(ProgramRun, FindExecutableSearchesTheList) {
  EXPECT_EQ(find_executable("sh", "/nonexistent:/bin"), "/bin/sh");
  EXPECT_EQ(find_executable("no-such-program-here", "/bin:/usr/bin"), "");
}

}  // namespace
}  // namespace allocstress
