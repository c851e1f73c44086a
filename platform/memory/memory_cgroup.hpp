// A memory cgroup of its own for a measured child: a hard limit (and, under cgroup v2, a throttling
// `high`) that the kernel enforces by reclaim and then by its OOM killer, and the counters that say
// whether the limit was met.  Model: the runner makes `<parent>/allocstress-<runner pid>-<n>`, a
// child of its own cgroup, then forks; the forked child joins before exec by writing "0" to the
// cgroup.procs descriptor opened at creation (the kernel reads 0 as "the writer" under v1 and v2:
// one write(2), async-signal-safe).  Contract: cgroup v2 is used when this process's v2 cgroup
// offers `memory` and can hand it to its children, else the v1 memory hierarchy.  Errors are
// std::runtime_error naming the file and errno's text.  A MemoryCgroup that goes kills what still
// runs in it and removes its directory; remove_stale_memory_cgroups() clears a crashed runner's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

struct MemoryCgroupSupport {
  bool available = false;
  std::string controller;        // "cgroup v2" or "cgroup v1 memory"
  std::filesystem::path parent;  // this process's own cgroup: where children are made
  std::string why_not;           // when !available, one line: what was looked for and missing
};

// This process's own cgroup directories, from the text of /proc/self/mountinfo and
// /proc/self/cgroup; an empty path where no mount holds it (split out so layouts can be tested).
struct OwnCgroups {
  std::filesystem::path v2;         // under the cgroup2 mount
  std::filesystem::path v1_memory;  // under the cgroup (v1) mount whose options include `memory`
};
OwnCgroups locate_own_cgroups(std::string_view mountinfo, std::string_view proc_self_cgroup);

// Where this process may create a child memory cgroup.  Under v2 it may write "+memory" to its
// own cgroup.subtree_control (refused with EBUSY while that cgroup holds processes, unless it is
// the root: v2's "no internal processes" rule; why_not then says so).
MemoryCgroupSupport find_memory_cgroup_support();

struct MemoryLimit {
  // 0 = unset.  v2: memory.max (and memory.swap.max = 0 when swap is on, so the cap is on RAM and
  // swap together, as under v1).  v1: memory.limit_in_bytes, and memory.memsw.limit_in_bytes
  // with it when that file exists and swap is on.
  std::uint64_t max_bytes = 0;
  // 0 = unset.  v2 memory.high (reclaim and throttling above it).  v1 has none: refused.
  std::uint64_t high_bytes = 0;
};

// What the kernel counted; nullopt where this kernel or version has no such file or line.
struct MemoryCgroupReading {
  std::optional<std::uint64_t> oom_kills;    // v1 memory.oom_control `oom_kill`; v2 memory.events `oom_kill`
  std::optional<std::uint64_t> limit_hits;   // v1 memory.failcnt; v2 memory.events `max`
  std::optional<std::uint64_t> high_events;  // v2 memory.events `high`; v1: none
  std::optional<std::uint64_t> peak_bytes;   // v1 memory.max_usage_in_bytes; v2 memory.peak (Linux >= 5.19)
};

class MemoryCgroup {
 public:
  // pre: support.available.  Makes `<parent>/allocstress-<pid>-<n>` and writes `limit`; throws
  // std::runtime_error with the reason (nothing is left behind then).  high_bytes under v1 is
  // refused before anything is made.
  static MemoryCgroup create(const MemoryCgroupSupport& support, const MemoryLimit& limit);

  MemoryCgroup() = default;  // none: path() is empty, attach_fd() is -1
  MemoryCgroup(MemoryCgroup&& other) noexcept;
  MemoryCgroup& operator=(MemoryCgroup&& other) noexcept;
  MemoryCgroup(const MemoryCgroup&) = delete;
  MemoryCgroup& operator=(const MemoryCgroup&) = delete;
  ~MemoryCgroup();  // remove(), errors ignored

  const std::filesystem::path& path() const { return dir_; }
  // cgroup.procs, open for writing and close-on-exec: a child forked by the caller joins with
  // attach_self_after_fork(fd) (or write(fd, "0", 1)) before exec.
  int attach_fd() const { return fd_; }
  MemoryCgroupReading read() const;
  // SIGKILLs every process still in the cgroup but this one (cgroup.kill under v2), waits until it
  // is empty, then rmdirs it, retrying while the kernel answers EBUSY (3 s at most).  Throws
  // std::runtime_error if the directory stays; afterwards this object holds none either way.
  void remove();

 private:
  std::filesystem::path dir_;
  bool v2_ = false;
  int fd_ = -1;
};

// Moves the calling process into the cgroup whose cgroup.procs `attach_fd` is: writes "0".  Only
// async-signal-safe calls (for a child between fork and exec).  False on failure (errno set).
bool attach_self_after_fork(int attach_fd) noexcept;

// Removes the children `allocstress-<pid>-<n>` of support.parent whose <pid> no longer runs,
// killing their processes first.  One line per stale cgroup found: "removed <path> (...)" or
// "could not remove <path>: <reason>".  None when !support.available.
std::vector<std::string> remove_stale_memory_cgroups(const MemoryCgroupSupport& support);

}  // namespace allocstress
