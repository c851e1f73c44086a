// MemoryCgroup with real processes: a child over its limit is OOM-killed and counted, one under it
// is not, the directory goes with the object (killing what still runs in it), a dead runner's
// cgroups are cleared, v1 refuses `high`; and where this process's cgroups are, for several
// hosts' /proc texts.  Needs root and a memory controller; skips with the reason otherwise.
#include "platform/memory/memory_cgroup.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace allocstress {
namespace {

constexpr std::size_t MiB = std::size_t(1) << 20;

// Forks a child that joins the cgroup through `attach_fd`, then (bytes > 0) writes to every page
// of `bytes` from malloc and exits 0, or (bytes == 0) says on a pipe that it has joined and sleeps
// until killed: then start_child returns once the child is in the cgroup (or has exited, failing
// to join), never sooner.  The test process has one thread, so malloc in the forked child is safe.
pid_t start_child(int attach_fd, std::size_t bytes) {
  int joined[2];
  if (pipe(joined) != 0) return -1;
  const pid_t pid = fork();
  if (pid != 0) {
    close(joined[1]);
    char byte = 0;
    if (pid > 0 && bytes == 0 && read(joined[0], &byte, 1) != 1) ADD_FAILURE() << "the child exited before it joined";
    close(joined[0]);
    return pid;
  }
  close(joined[0]);
  if (!attach_self_after_fork(attach_fd)) _exit(90);
  if (bytes == 0) {
    if (write(joined[1], "j", 1) != 1) _exit(92);
    for (;;) pause();
  }
  auto* p = static_cast<volatile char*>(std::malloc(bytes));
  if (p == nullptr) _exit(91);
  for (std::size_t i = 0; i < bytes; i += 4096) p[i] = 1;
  _exit(0);
}

int wait_for(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return status;
}

bool is_member(const std::filesystem::path& dir, pid_t pid) {
  std::ifstream in(dir / "cgroup.procs");
  for (pid_t p = 0; in >> p;)
    if (p == pid) return true;
  return false;
}

class MemoryCgroupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    support = find_memory_cgroup_support();
    if (!support.available) GTEST_SKIP() << "no memory cgroup can be made here: " << support.why_not;
  }
  MemoryCgroupSupport support;
};

TEST_F(MemoryCgroupTest, ChildOverTheLimitIsOomKilledAndCounted) {
  const auto cg = MemoryCgroup::create(support, {.max_bytes = 64 * MiB});
  const int status = wait_for(start_child(cg.attach_fd(), 256 * MiB));
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "wait status " << status;
  const MemoryCgroupReading r = cg.read();
  ASSERT_TRUE(r.oom_kills.has_value());
  EXPECT_GE(*r.oom_kills, 1u);
  ASSERT_TRUE(r.limit_hits.has_value());
  EXPECT_GT(*r.limit_hits, 0u);
  if (r.peak_bytes) { EXPECT_LE(*r.peak_bytes, 64 * MiB); }
}

TEST_F(MemoryCgroupTest, ChildUnderTheLimitRunsToTheEnd) {
  const auto cg = MemoryCgroup::create(support, {.max_bytes = 64 * MiB});
  const int status = wait_for(start_child(cg.attach_fd(), 16 * MiB));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "wait status " << status;
  const MemoryCgroupReading r = cg.read();
  ASSERT_TRUE(r.oom_kills.has_value());
  EXPECT_EQ(*r.oom_kills, 0u);
  if (r.peak_bytes) { EXPECT_GE(*r.peak_bytes, 16 * MiB) << "the child's pages were not charged here: did it join?"; }
}

TEST_F(MemoryCgroupTest, DirectoryGoesWithTheObjectAndItsProcessesAreKilled) {
  std::filesystem::path dir;
  pid_t sleeper = 0;
  {
    auto first = MemoryCgroup::create(support, {.max_bytes = 64 * MiB});
    dir = first.path();
    EXPECT_EQ(dir.parent_path(), support.parent);
    EXPECT_EQ(dir.filename().string().rfind("allocstress-" + std::to_string(getpid()) + "-", 0), 0u) << dir;
    sleeper = start_child(first.attach_fd(), 0);
    EXPECT_TRUE(is_member(dir, sleeper)) << "writing 0 to cgroup.procs did not move the writer";
    MemoryCgroup moved = std::move(first);  // the moved-from one removes nothing
    EXPECT_TRUE(first.path().empty());
    EXPECT_EQ(first.attach_fd(), -1);
    EXPECT_TRUE(std::filesystem::exists(dir));
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  const int status = wait_for(sleeper);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "wait status " << status;
}

TEST_F(MemoryCgroupTest, StaleCgroupOfADeadRunnerIsRemoved) {
  const pid_t dead = fork();  // a pid that no longer runs
  if (dead == 0) _exit(0);
  wait_for(dead);
  const auto stale = support.parent / ("allocstress-" + std::to_string(dead) + "-0");
  ASSERT_EQ(mkdir(stale.c_str(), 0755), 0) << stale << ": " << std::strerror(errno);
  const int fd = open((stale / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const pid_t orphan = start_child(fd, 0);  // left running by the "crashed" runner
  close(fd);
  EXPECT_TRUE(is_member(stale, orphan));
  const auto live = MemoryCgroup::create(support, {.max_bytes = 64 * MiB});

  const std::vector<std::string> lines = remove_stale_memory_cgroups(support);
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_TRUE(std::filesystem::exists(live.path())) << "a running runner's cgroup was removed";
  EXPECT_TRUE(std::ranges::any_of(lines, [&](const std::string& l) { return l.starts_with("removed " + stale.string()); }))
      << (lines.empty() ? "no lines" : lines.front());
  const int status = wait_for(orphan);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "wait status " << status;
}

TEST_F(MemoryCgroupTest, CgroupV1RefusesHigh) {
  if (support.controller != "cgroup v1 memory") GTEST_SKIP() << "this process uses " << support.controller;
  const auto count = [&] { return std::distance(std::filesystem::directory_iterator(support.parent), {}); };
  const auto before = count();
  try {
    MemoryCgroup::create(support, {.max_bytes = 64 * MiB, .high_bytes = 32 * MiB});
    FAIL() << "high_bytes was accepted under cgroup v1";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("memory.high"), std::string::npos) << e.what();
  }
  EXPECT_EQ(count(), before) << "a refused cgroup left a directory";
}

// Writing "0" to cgroup.procs moves the writer under v2 as under v1.  This process's v2 cgroup
// serves even without the memory controller (a MemoryCgroup with no limits writes no memory file).
TEST(MemoryCgroupV2, JoiningByWritingZeroMovesTheWriter) {
  const auto text = [](const char* file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const auto own = locate_own_cgroups(text("/proc/self/mountinfo"), text("/proc/self/cgroup"));
  if (own.v2.empty() || access(own.v2.c_str(), W_OK) != 0) GTEST_SKIP() << "no writable cgroup v2 directory of this process";
  std::filesystem::path dir;
  pid_t sleeper = 0;
  {
    const auto cg = MemoryCgroup::create({true, "cgroup v2", own.v2, ""}, {});
    dir = cg.path();
    sleeper = start_child(cg.attach_fd(), 0);
    EXPECT_TRUE(is_member(dir, sleeper)) << dir;
    EXPECT_TRUE(cg.read().oom_kills.has_value() == std::filesystem::exists(dir / "memory.events"));
  }
  EXPECT_FALSE(std::filesystem::exists(dir));
  const int status = wait_for(sleeper);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "wait status " << status;
}

TEST_F(MemoryCgroupTest, CgroupV2CountsHighEvents) {
  if (support.controller != "cgroup v2") GTEST_SKIP() << "this process uses " << support.controller;
  const auto cg = MemoryCgroup::create(support, {.max_bytes = 256 * MiB, .high_bytes = 32 * MiB});
  const int status = wait_for(start_child(cg.attach_fd(), 96 * MiB));
  EXPECT_TRUE(WIFEXITED(status) || WIFSIGNALED(status));
  const MemoryCgroupReading r = cg.read();
  ASSERT_TRUE(r.high_events.has_value());
  EXPECT_GT(*r.high_events, 0u);
}

TEST(MemoryCgroupLocation, HybridHostWithV1MemoryAndAnEmptyUnifiedHierarchy) {
  const auto own = locate_own_cgroups(
      "30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
      "34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
      "38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n"
      "40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
      "8:pids:/\n4:memory:/process_api/5edf\n0::/\n");
  EXPECT_EQ(own.v1_memory, "/sys/fs/cgroup/memory/process_api/5edf");
  EXPECT_EQ(own.v2, "/sys/fs/cgroup/unified");
}

TEST(MemoryCgroupLocation, V2OnlyHostWithOptionalFieldsAndEscapes) {
  const auto own = locate_own_cgroups(
      "25 30 0:23 / /sys/fs/cgroup rw,nosuid shared:9 master:2 - cgroup2 cgroup2 rw,nsdelegate\n"
      "26 30 0:24 / /mnt/my\\040cgroups rw - cgroup cgroup rw,cpu,memory\n",
      "0::/user.slice/user-1000.slice/session-2.scope\n");
  EXPECT_EQ(own.v2, "/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope");
  EXPECT_TRUE(own.v1_memory.empty()) << "no memory line in /proc/self/cgroup";
  EXPECT_EQ(locate_own_cgroups("26 30 0:24 / /mnt/my\\040cgroups rw - cgroup cgroup rw,cpu,memory\n", "3:cpu,memory:/a\n").v1_memory,
            "/mnt/my cgroups/a");
}

TEST(MemoryCgroupLocation, BindMountedRootsAndPathsOutsideTheNamespace) {
  const std::string mountinfo = "700 600 0:30 /docker/abc /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw\n";
  EXPECT_EQ(locate_own_cgroups(mountinfo, "0::/docker/abc\n").v2, "/sys/fs/cgroup");
  EXPECT_EQ(locate_own_cgroups(mountinfo, "0::/docker/abc/child\n").v2, "/sys/fs/cgroup/child");
  EXPECT_TRUE(locate_own_cgroups(mountinfo, "0::/docker/abcdef\n").v2.empty());
  EXPECT_TRUE(locate_own_cgroups(mountinfo, "0::/system.slice\n").v2.empty());
  EXPECT_TRUE(locate_own_cgroups("1 0 0:30 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", "0::/../../x\n").v2.empty());
}

}  // namespace
}  // namespace allocstress
