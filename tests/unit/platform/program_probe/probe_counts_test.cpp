// platform/program_probe.*: the counting library's exact allocation counts, as the difference
// of two runs that differ by N calls (malloc, threads, a forked child, operator new, a C++
// program), and a probe that writes nothing without its log variable.  Counts, never timing.
#include "platform/process/program_probe.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "platform/process/child_process.hpp"
#include "probe_runs.hpp"

namespace allocstress {
namespace {

#if defined(ALLOCSTRESS_PROBE_LIBRARY)

namespace fs = std::filesystem;
using namespace probe_testing;

TEST(ProgramProbe, CountsEveryAllocationCall) {
  const std::uint64_t ten = calls_of({"malloc", "10"});
  const std::uint64_t hundred_ten = calls_of({"malloc", "110"});
  EXPECT_GE(ten, 10u);
  EXPECT_EQ(hundred_ten - ten, 100u);
  // Threads: every call of every thread, none lost.
  EXPECT_EQ(calls_of({"threads", "4", "2500"}) - calls_of({"threads", "4", "0"}), 10000u);
  // Under another allocator, counted the same way.
  if (fs::exists(kJemalloc)) {
    EXPECT_EQ(calls_of({"malloc", "110"}, kTarget, kCount + ":" + kJemalloc) - calls_of({"malloc", "10"}, kTarget, kCount + ":" + kJemalloc), 100u);
  }
}

TEST(ProgramProbe, ForkedChildCountsItsOwnCalls) {
  const auto child_calls = [](const std::string& after_fork) {
    const ProbeRun r = probe_run({kTarget, "malloc", "100", "fork", "malloc", after_fork}, kCount);
    EXPECT_TRUE(r.outcome.succeeded()) << describe_failure(r.outcome, 120);
    const bool found = r.processes.size() == 2 && r.processes[1].forked && r.processes[1].allocation_calls;
    EXPECT_TRUE(found) << r.log;
    return found ? *r.processes[1].allocation_calls : 0;
  };
  const std::uint64_t none = child_calls("0");
  EXPECT_LT(none, 100u);  // the parent's 100 calls before the fork are not the child's
  EXPECT_EQ(child_calls("7") - none, 7u);
}

TEST(ProgramProbe, CountsOperatorNewOnce) {
  // A C program: libstdc++ arrives by dlopen after the probe resolved its functions, so its
  // new/delete fall back to malloc/free.  Linked with libstdc++: new forwards to libstdc++'s, whose
  // malloc inside is not counted again.
  EXPECT_EQ(calls_of({"new", "50"}) - calls_of({"new", "0"}), 50u);
  EXPECT_EQ(calls_of({"new", "50"}, kCxxTarget) - calls_of({"new", "0"}, kCxxTarget), 50u);
  if (fs::exists(kJemalloc)) {  // jemalloc defines operator new itself
    EXPECT_EQ(calls_of({"new", "50"}, kCxxTarget, kCount + ":" + kJemalloc) - calls_of({"new", "0"}, kCxxTarget, kCount + ":" + kJemalloc), 50u);
  }
}

TEST(ProgramProbe, CountingRunsACppProgram) {
  // This test program itself (C++, GoogleTest) under the counting probe.
  const ProbeRun r = probe_run({fs::read_symlink("/proc/self/exe").string(), "--gtest_list_tests", "--gtest_filter=ProbeLog.*"}, kCount);
  ASSERT_TRUE(r.outcome.succeeded()) << describe_failure(r.outcome, 120);
  EXPECT_NE(r.outcome.out.find("ReadsEachKindOfLine"), std::string::npos) << r.outcome.out;
  ASSERT_EQ(r.processes.size(), 1u) << r.log;
  EXPECT_EQ(r.processes[0].malloc_object, libc_path());
  ASSERT_TRUE(r.processes[0].allocation_calls.has_value()) << r.log;
  EXPECT_GT(*r.processes[0].allocation_calls, 0u);
}

TEST(ProgramProbe, WritesNothingWithoutTheLogVariable) {
  const Scratch scratch;
  const fs::path& dir = scratch.dir;
  // The target starts in `dir` (the shell before it is not probed): a relative log lands there.
  const auto run_in_dir = [&](const std::string& log_assignment, const std::string& steps = "malloc 3 fork malloc 1") {
    const std::string script = "cd '" + dir.string() + "' && export LD_PRELOAD='" + kCount + "' ALLOCSTRESS_PROBE_WATCH='" +
                               canonical(kCount) + "' " + log_assignment + " && exec '" + kTarget + "' " + steps;
    return run_child({"/bin/sh", "-c", script}, {{"LD_PRELOAD", std::nullopt}, {"ALLOCSTRESS_PROBE_LOG", std::nullopt}}, 120);
  };
  for (const std::string log : {"", "ALLOCSTRESS_PROBE_LOG="}) {
    const ChildOutcome o = run_in_dir(log);
    EXPECT_TRUE(o.succeeded()) << describe_failure(o, 120);
    EXPECT_TRUE(fs::is_empty(dir)) << "something was written with ALLOCSTRESS_PROBE_LOG " << (log.empty() ? "unset" : "empty");
  }
  // The same run with a relative log: it is written there (the check above can fail), and the
  // child's exit line finds it after the target changed its working directory.
  const ChildOutcome o = run_in_dir("ALLOCSTRESS_PROBE_LOG=probe.log", "chdir / fork malloc 1");
  EXPECT_TRUE(o.succeeded()) << describe_failure(o, 120);
  std::size_t malformed = 0;
  const std::vector<ProbedProcess> processes = read_probe_log(dir / "probe.log", &malformed);
  EXPECT_EQ(malformed, 0u);
  ASSERT_EQ(processes.size(), 2u);  // the target and its forked child
  EXPECT_EQ(processes[0].executable, canonical(kTarget));
  EXPECT_TRUE(processes[0].exited);
  EXPECT_TRUE(processes[1].forked);
  EXPECT_TRUE(processes[1].exited);
}

#endif

}  // namespace
}  // namespace allocstress
