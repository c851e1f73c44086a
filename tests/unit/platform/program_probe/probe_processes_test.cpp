// platform/program_probe.*: the report library preloaded into tests/support/probe_target.c,
// which mallocs, forks, execs, spawns and _exits as told: which lines each process writes, its
// parent chain, and where its malloc resolves (libc, a preloaded allocator, its own, a non-PIE
// program's PLT stub).  Facts, never timing.
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

TEST(ProgramProbe, OneStartLinePerExecWithTheParentChain) {
  // The target spawns C1 (posix_spawn: no fork line), which execs the target again, then forks C2,
  // which execs it a third time.
  const ProbeRun r = probe_run({kTarget, "malloc", "1", "spawn", kTarget, "exec", kTarget, "fork", "exec", kTarget, "malloc", "2"}, kReport);
  ASSERT_TRUE(r.outcome.succeeded()) << describe_failure(r.outcome, 120);
  EXPECT_EQ(r.malformed, 0u) << r.log;
  EXPECT_EQ(lines_starting(r.log, "start"), 4u) << r.log;
  EXPECT_EQ(lines_starting(r.log, "fork"), 1u) << r.log;
  EXPECT_EQ(lines_starting(r.log, "exit"), 3u) << r.log;  // C1's first image exec'd away
  ASSERT_EQ(r.processes.size(), 4u) << r.log;
  const ProbedProcess &p = r.processes[0], &c1 = r.processes[1], &c1b = r.processes[2], &c2 = r.processes[3];
  for (const ProbedProcess& e : r.processes) {
    EXPECT_TRUE(e.started) << r.log;
    EXPECT_FALSE(e.forked) << r.log;
    EXPECT_EQ(e.executable, canonical(kTarget));
    EXPECT_EQ(e.malloc_object, libc_path());
    EXPECT_EQ(e.allocator_mapped, std::nullopt);  // nothing watched
    EXPECT_EQ(e.allocation_calls, std::nullopt);  // not the counting probe
  }
  EXPECT_EQ(p.ppid, long(getpid()));
  EXPECT_EQ(c1.ppid, p.pid);
  EXPECT_EQ(c1b.pid, c1.pid);
  EXPECT_EQ(c1b.ppid, p.pid);
  EXPECT_EQ(c2.ppid, c1.pid);
  EXPECT_TRUE(c1.replaced_by_exec);
  EXPECT_FALSE(c1.exited);
  EXPECT_EQ(c1.peak_rss_kib, std::nullopt);
  for (const ProbedProcess* e : {&p, &c1b, &c2}) {
    EXPECT_FALSE(e->replaced_by_exec);
    EXPECT_TRUE(e->exited);
    ASSERT_TRUE(e->peak_rss_kib.has_value());
    EXPECT_GT(*e->peak_rss_kib, 0u);
  }
}

TEST(ProgramProbe, ForkedChildLogsForkAndExit) {
  const ProbeRun r = probe_run({kTarget, "malloc", "1", "fork", "malloc", "1"}, kReport);
  ASSERT_TRUE(r.outcome.succeeded()) << describe_failure(r.outcome, 120);
  ASSERT_EQ(r.processes.size(), 2u) << r.log;
  const ProbedProcess &parent = r.processes[0], &child = r.processes[1];
  EXPECT_TRUE(parent.started);
  EXPECT_TRUE(parent.exited);
  EXPECT_FALSE(child.started);
  EXPECT_TRUE(child.forked);
  EXPECT_EQ(child.ppid, parent.pid);
  EXPECT_NE(child.pid, parent.pid);
  EXPECT_EQ(child.executable, canonical(kTarget));
  EXPECT_TRUE(child.exited);
  ASSERT_TRUE(child.peak_rss_kib.has_value());
  EXPECT_GT(*child.peak_rss_kib, 0u);
}

TEST(ProgramProbe, UnderscoreExitWritesNoExitLine) {
  const ProbeRun forked = probe_run({kTarget, "fork", "_exit"}, kReport);
  ASSERT_TRUE(forked.outcome.succeeded()) << describe_failure(forked.outcome, 120);
  ASSERT_EQ(forked.processes.size(), 2u) << forked.log;
  EXPECT_TRUE(forked.processes[0].exited);   // the parent returned from main
  EXPECT_TRUE(forked.processes[1].forked);
  EXPECT_FALSE(forked.processes[1].exited);  // the child ended by _exit
  EXPECT_EQ(forked.processes[1].peak_rss_kib, std::nullopt);
  EXPECT_EQ(lines_starting(forked.log, "exit"), 1u) << forked.log;

  const ProbeRun alone = probe_run({kTarget, "malloc", "1", "_exit"}, kReport);
  ASSERT_TRUE(alone.outcome.succeeded()) << describe_failure(alone.outcome, 120);
  ASSERT_EQ(alone.processes.size(), 1u) << alone.log;
  EXPECT_TRUE(alone.processes[0].started);
  EXPECT_FALSE(alone.processes[0].exited);
  EXPECT_EQ(lines_starting(alone.log, "exit"), 0u) << alone.log;
}

TEST(ProgramProbe, WatchedLibraryNotLoadedIsNotMapped) {
  // The counting probe exists but is not loaded in a report run.
  const ProbeRun r = probe_run({kTarget, "malloc", "1"}, kReport, canonical(kCount));
  ASSERT_TRUE(r.outcome.succeeded()) << describe_failure(r.outcome, 120);
  ASSERT_NE(r.first(), nullptr) << r.log;
  EXPECT_EQ(r.first()->allocator_mapped, std::optional<bool>(false)) << r.log;
  EXPECT_EQ(r.first()->malloc_object, libc_path()) << r.log;
  // A path that does not exist is not mapped either.
  const ProbeRun none = probe_run({kTarget}, kReport, "/nonexistent/libnothing.so");
  ASSERT_NE(none.first(), nullptr) << none.log;
  EXPECT_EQ(none.first()->allocator_mapped, std::optional<bool>(false)) << none.log;
}

TEST(ProgramProbe, PreloadedAllocatorIsMappedAndServesMalloc) {
  if (!fs::exists(kJemalloc)) GTEST_SKIP() << kJemalloc << " is not installed (Debian package libjemalloc2)";
  const std::string jemalloc = canonical(kJemalloc);
  for (const std::string& probe : {kReport, kCount}) {
    const ProbeRun r = probe_run({kTarget, "malloc", "1", "fork", "malloc", "1"}, probe + ":" + kJemalloc, jemalloc);
    ASSERT_TRUE(r.outcome.succeeded()) << describe_failure(r.outcome, 120);
    ASSERT_EQ(r.processes.size(), 2u) << r.log;
    for (const ProbedProcess& p : r.processes) {
      EXPECT_EQ(p.allocator_mapped, std::optional<bool>(true)) << r.log;
      EXPECT_EQ(p.malloc_object, jemalloc) << r.log;  // never the counting probe itself
    }
  }
  // Watched under another name of the same file: still mapped.
  const Scratch scratch;
  const fs::path link = scratch.dir / "another-name.so";
  fs::create_symlink(jemalloc, link);
  const ProbeRun other = probe_run({kTarget}, kReport + ":" + kJemalloc, link.string());
  ASSERT_NE(other.first(), nullptr) << other.log;
  EXPECT_EQ(other.first()->allocator_mapped, std::optional<bool>(true)) << other.log;
}

TEST(ProgramProbe, ProgramWithItsOwnMallocIsNamedByItsPath) {
  // Found through PATH and started from another folder: dladdr names the program by its argv[0]
  // (a bare name here), which is no path to it.
  const Scratch scratch;
  const fs::path& dir = scratch.dir;
  const fs::path target(kOwnMallocTarget);
  for (const std::string& probe : {kReport, kCount}) {
    const std::string script = "cd '" + dir.string() + "' && export PATH='" + target.parent_path().string() + "' LD_PRELOAD='" + probe +
                               "' ALLOCSTRESS_PROBE_LOG=probe.log && exec " + target.filename().string() + " malloc 5";
    const ChildOutcome o = run_child({"/bin/sh", "-c", script}, {{"LD_PRELOAD", std::nullopt}, {"ALLOCSTRESS_PROBE_LOG", std::nullopt}}, 120);
    EXPECT_TRUE(o.succeeded()) << describe_failure(o, 120);
    const std::vector<ProbedProcess> processes = read_probe_log(dir / "probe.log");
    fs::remove(dir / "probe.log");
    ASSERT_EQ(processes.size(), 1u);
    EXPECT_EQ(processes[0].executable, canonical(kOwnMallocTarget));
    EXPECT_EQ(processes[0].malloc_object, processes[0].executable);
    if (probe == kCount) {
      EXPECT_EQ(processes[0].allocation_calls, std::optional<std::uint64_t>(0)) << "its malloc is its own";
    }
  }
}

// dlsym(RTLD_DEFAULT, "malloc") names such a program (its PLT stub is malloc's canonical address);
// its calls still reach libc's malloc, or the preloaded allocator's.
TEST(ProgramProbe, ANonPieProgramTakingMallocsAddressHasNoMallocOfItsOwn) {
  const ProbeRun plain = probe_run({kNoPieTarget, "malloc", "3"}, kReport);
  ASSERT_TRUE(plain.outcome.succeeded()) << describe_failure(plain.outcome, 120);
  ASSERT_NE(plain.first(), nullptr) << plain.log;
  EXPECT_EQ(plain.first()->malloc_object, libc_path()) << plain.log;
  if (!fs::exists(kJemalloc)) GTEST_SKIP() << kJemalloc << " is not installed (Debian package libjemalloc2)";
  for (const std::string& probe : {kReport, kCount}) {
    const ProbeRun r = probe_run({kNoPieTarget, "malloc", "3"}, probe + ":" + kJemalloc, canonical(kJemalloc));
    ASSERT_NE(r.first(), nullptr) << r.log;
    EXPECT_EQ(r.first()->malloc_object, canonical(kJemalloc)) << r.log;
  }
}

#else

TEST(ProgramProbe, NeedsTheProbeLibraries) {
  GTEST_SKIP() << "sanitizer build: no probe library (a sanitizer runtime must be the first preloaded library)";
}

#endif

}  // namespace
}  // namespace allocstress
