// platform/program_probe.*, the reader: probe logs written by hand (each kind of line, exec chains,
// malformed lines, no file) read into processes, and where the probe libraries are looked for.
// The libraries in real processes: probe_processes_test.cpp and probe_counts_test.cpp.
#include "platform/process/program_probe.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "platform/process/child_process.hpp"
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

}  // namespace
}  // namespace allocstress
