// platform/program_probe.*: the log reader on written text, and the probe libraries preloaded
// into tests/support/probe_target.c, which mallocs, forks, execs, spawns and _exits as told:
// which lines each process writes, where malloc resolves, and exact allocation counts (the
// difference of two runs that differ by N calls).  Counts and facts, never timing.
#include "platform/program_probe.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "platform/child_process.hpp"
#include "platform/sanitizer_build.hpp"

namespace allocstress {
namespace {

namespace fs = std::filesystem;

// ---- the reader ---------------------------------------------------------------------------------

TEST(ProbeLog, ReadsEachKindOfLine) {
  const ProbeLog log = parse_probe_log(
      "start 100 1 1 /usr/lib/libjemalloc.so.2 /usr/bin/my program\n"
      "fork 101 100\n"
      "exit 101 2048 7\n"
      "start 102 100 0 /usr/lib/with%20space%25.so /usr/bin/a%25b%0Ac\n"
      "exit 102 - -\n"
      "exit 100 4096 -\n");
  EXPECT_EQ(log.malformed_lines, 0u);
  ASSERT_EQ(log.processes.size(), 3u);
  const ProbedProcess& first = log.processes[0];
  EXPECT_EQ(first.pid, 100);
  EXPECT_EQ(first.ppid, 1);
  EXPECT_TRUE(first.started);
  EXPECT_FALSE(first.forked);
  EXPECT_EQ(first.allocator_mapped, std::optional<bool>(true));
  EXPECT_EQ(first.malloc_object, "/usr/lib/libjemalloc.so.2");
  EXPECT_EQ(first.executable, "/usr/bin/my program");  // the rest of the line, spaces and all
  EXPECT_TRUE(first.exited);
  EXPECT_EQ(first.peak_rss_kib, std::optional<std::uint64_t>(4096));
  EXPECT_EQ(first.allocation_calls, std::nullopt);
  const ProbedProcess& child = log.processes[1];
  EXPECT_EQ(child.pid, 101);
  EXPECT_EQ(child.ppid, 100);
  EXPECT_FALSE(child.started);
  EXPECT_TRUE(child.forked);
  EXPECT_EQ(child.executable, "/usr/bin/my program");  // a forked child runs its parent's image
  EXPECT_EQ(child.malloc_object, "/usr/lib/libjemalloc.so.2");
  EXPECT_EQ(child.allocator_mapped, std::optional<bool>(true));
  EXPECT_EQ(child.peak_rss_kib, std::optional<std::uint64_t>(2048));
  EXPECT_EQ(child.allocation_calls, std::optional<std::uint64_t>(7));
  const ProbedProcess& third = log.processes[2];
  EXPECT_EQ(third.allocator_mapped, std::optional<bool>(false));
  EXPECT_EQ(third.malloc_object, "/usr/lib/with space%.so");
  EXPECT_EQ(third.executable, "/usr/bin/a%b\nc");
  EXPECT_TRUE(third.exited);
  EXPECT_EQ(third.peak_rss_kib, std::nullopt);
}

TEST(ProbeLog, ExecChainsForkExecAndReusedPids) {
  const ProbeLog log = parse_probe_log(
      "start 10 1 - /lib/libc.so.6 /usr/bin/dash\n"       // sh -c 'exec xz'
      "start 10 1 - /lib/libc.so.6 /usr/bin/xz\n"
      "fork 11 10\n"                                      // xz forks, the child execs cat
      "start 11 10 - /lib/libc.so.6 /usr/bin/cat\n"
      "exit 11 100 -\n"
      "fork 11 10\n"                                      // pid 11 again, after its exit
      "exit 11 90 -\n"
      "exit 12 80 -\n"                                    // clone() without fork's handlers
      "exit 10 200 -\n");
  EXPECT_EQ(log.malformed_lines, 0u);
  ASSERT_EQ(log.processes.size(), 5u);
  EXPECT_EQ(log.processes[0].executable, "/usr/bin/dash");
  EXPECT_TRUE(log.processes[0].replaced_by_exec);
  EXPECT_FALSE(log.processes[0].exited);
  EXPECT_EQ(log.processes[1].executable, "/usr/bin/xz");
  EXPECT_FALSE(log.processes[1].replaced_by_exec);
  EXPECT_EQ(log.processes[1].peak_rss_kib, std::optional<std::uint64_t>(200));
  EXPECT_EQ(log.processes[2].executable, "/usr/bin/cat");  // fork then exec: one entry
  EXPECT_TRUE(log.processes[2].started);
  EXPECT_FALSE(log.processes[2].forked);
  EXPECT_EQ(log.processes[2].ppid, 10);
  EXPECT_EQ(log.processes[2].peak_rss_kib, std::optional<std::uint64_t>(100));
  EXPECT_TRUE(log.processes[3].forked);
  EXPECT_EQ(log.processes[3].pid, 11);
  EXPECT_EQ(log.processes[3].executable, "/usr/bin/xz");  // forked from xz, the parent's image now
  EXPECT_EQ(log.processes[3].peak_rss_kib, std::optional<std::uint64_t>(90));
  EXPECT_EQ(log.processes[4].pid, 12);
  EXPECT_FALSE(log.processes[4].started);
  EXPECT_FALSE(log.processes[4].forked);
  EXPECT_TRUE(log.processes[4].exited);
}

TEST(ProbeLog, SkipsAndCountsMalformedLines) {
  const std::string good = "start 5 1 0 /lib/libc.so.6 /bin/true\n";
  const std::vector<std::string> bad = {
      "\n",
      "garbage\n",
      "start\n",
      "start 5 1 0 /lib/libc.so.6\n",          // no executable
      "start x 1 0 /lib/libc.so.6 /bin/true\n",
      "start 0 1 0 /lib/libc.so.6 /bin/true\n",
      "start 5 1 2 /lib/libc.so.6 /bin/true\n",  // MAPPED neither 0, 1 nor -
      "start 5  1 0 /lib/libc.so.6 /bin/true\n",
      "fork 6\n",
      "fork 6 5 extra\n",
      "exit 5 12\n",
      "exit 5 12 3 4\n",
      "exit 5 -12 3\n",
      "exit 5 12 3x\n",
      "exit 99999999999999999999999 1 1\n",
      std::string("exit 5 1\0 2\n", 12),
      "stop 5\n"};
  std::string text = good;
  for (const std::string& line : bad) text += line;
  text += "exit 5 64 -\n";
  text += "exit 5 64";  // cut short: no newline
  const ProbeLog log = parse_probe_log(text);
  EXPECT_EQ(log.malformed_lines, bad.size() + 1);
  ASSERT_EQ(log.processes.size(), 1u);
  EXPECT_EQ(log.processes[0].executable, "/bin/true");
  EXPECT_EQ(log.processes[0].peak_rss_kib, std::optional<std::uint64_t>(64));

  const ProbeLog truncated = parse_probe_log("start 7 1 - /lib/libc.so.6 /usr/bin/lo");
  EXPECT_EQ(truncated.malformed_lines, 1u);
  EXPECT_TRUE(truncated.processes.empty());
}

TEST(ProbeLog, NoFileMeansNoProcess) {
  std::size_t malformed = 99;
  EXPECT_TRUE(read_probe_log("/nonexistent/probe.log", &malformed).empty());
  EXPECT_EQ(malformed, 0u);
}

TEST(ProbeLibrary, IsBesideTheExecutableOrNamedMissing) {
  const fs::path dir = fs::read_symlink("/proc/self/exe").parent_path();
  for (const bool counting : {false, true}) {
    const fs::path expected = dir / (counting ? "liballocstress_probe_count.so" : "liballocstress_probe.so");
    if (fs::exists(expected)) {
      EXPECT_EQ(probe_library(counting), expected);
      continue;
    }
    try {
      probe_library(counting);
      ADD_FAILURE() << "no error for the missing " << expected;
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(expected.string() + " is missing"), std::string::npos) << what;
#ifndef ALLOCSTRESS_SANITIZED
      EXPECT_NE(what.find("--target allocstress"), std::string::npos) << what;
#endif
    }
  }
}

// ---- the libraries in real processes ------------------------------------------------------------

#if defined(ALLOCSTRESS_PROBE_LIBRARY)

const std::string kReport = ALLOCSTRESS_PROBE_LIBRARY;
const std::string kCount = ALLOCSTRESS_PROBE_COUNT_LIBRARY;
const std::string kTarget = ALLOCSTRESS_PROBE_TARGET;          // a C program
const std::string kCxxTarget = ALLOCSTRESS_PROBE_CXX_TARGET;   // the same, linked with libstdc++
const std::string kOwnMallocTarget = ALLOCSTRESS_PROBE_OWN_MALLOC_TARGET;  // the same, its own malloc
const std::string kNoPieTarget = ALLOCSTRESS_PROBE_NO_PIE_TARGET;  // the same, not PIE, taking malloc's address
const char* const kJemalloc = "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2";

std::string canonical(const std::string& path) { return fs::canonical(path).string(); }

// A fresh folder, removed with what it holds when the test ends (passed or not).
struct Scratch {
  fs::path dir = make_temporary_folder("allocstress-probe-test-");
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

std::string libc_path() {
  void* libc = dlopen("libc.so.6", RTLD_LAZY | RTLD_NOLOAD);
  Dl_info info{};
  const bool found = libc != nullptr && dladdr(dlsym(libc, "malloc"), &info) != 0;
  if (libc != nullptr) dlclose(libc);
  return found ? canonical(info.dli_fname) : std::string();
}

struct ProbeRun {
  ChildOutcome outcome;
  std::string log;  // its text
  std::vector<ProbedProcess> processes;
  std::size_t malformed = 0;
  const ProbedProcess* first() const { return processes.empty() ? nullptr : &processes.front(); }
};

// Runs argv with LD_PRELOAD=preload and the probe's variables (`watch` nullopt: unset).
ProbeRun probe_run(const std::vector<std::string>& argv, const std::string& preload,
                   const std::optional<std::string>& watch = std::nullopt) {
  const Scratch scratch;
  const fs::path log = scratch.dir / "probe.log";
  ProbeRun r;
  r.outcome = run_child(argv, {{"LD_PRELOAD", preload}, {"ALLOCSTRESS_PROBE_LOG", log.string()}, {"ALLOCSTRESS_PROBE_WATCH", watch}}, 120);
  std::ifstream in(log);
  std::ostringstream text;
  text << in.rdbuf();
  r.log = text.str();
  r.processes = read_probe_log(log, &r.malformed);
  return r;
}

std::size_t lines_starting(const std::string& text, const std::string& tag) {
  std::size_t n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += line.rfind(tag + " ", 0) == 0;
  return n;
}

// The CALLS of the first process's exit line (the one process of these runs).
std::uint64_t calls_of(const std::vector<std::string>& steps, const std::string& target = kTarget,
                       const std::string& preload = kCount) {
  std::vector<std::string> argv = {target};
  argv.insert(argv.end(), steps.begin(), steps.end());
  const ProbeRun r = probe_run(argv, preload);
  EXPECT_TRUE(r.outcome.succeeded()) << describe_failure(r.outcome, 120);
  EXPECT_EQ(r.processes.size(), 1u) << r.log;
  if (r.processes.size() != 1 || !r.processes[0].allocation_calls) {
    ADD_FAILURE() << "no count in " << r.log;
    return 0;
  }
  return *r.processes[0].allocation_calls;
}

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

#else

TEST(ProgramProbe, NeedsTheProbeLibraries) {
  GTEST_SKIP() << "sanitizer build: no probe library (a sanitizer runtime must be the first preloaded library)";
}

#endif

}  // namespace
}  // namespace allocstress
