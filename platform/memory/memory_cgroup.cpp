// Parses /proc/self/mountinfo and /proc/self/cgroup; makes, fills, reads and removes cgroup
// directories with plain open/write/rmdir; kills a cgroup's processes by pid (v1) or cgroup.kill (v2).
#include "platform/memory/memory_cgroup.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <utility>

namespace allocstress {

namespace fs = std::filesystem;

namespace {

const std::string name_prefix = "allocstress-";

std::vector<std::string> split(std::string_view text, char sep) {
  std::vector<std::string> parts;
  std::istringstream in{std::string(text)};
  for (std::string part; std::getline(in, part, sep);) parts.push_back(part);
  return parts;
}

bool has_word(std::string text, const std::string& word, char sep) {
  std::replace(text.begin(), text.end(), '\n', sep);
  return std::ranges::count(split(text, sep), word) > 0;
}

std::optional<std::string> slurp(const fs::path& file) {
  std::ifstream in(file);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Empty, or why writing `value` to `file` failed (its errno in *error).
std::string write_value(const fs::path& file, const std::string& value, int* error = nullptr) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  const bool ok = fd >= 0 && ::write(fd, value.data(), value.size()) == ssize_t(value.size());
  const int e = ok ? 0 : errno;
  if (fd >= 0) ::close(fd);
  if (error != nullptr) *error = e;
  return ok ? "" : "writing " + value + " to " + file.string() + ": " + std::strerror(e);
}

void write_file(const fs::path& f, const std::string& v) {
  if (std::string failure = write_value(f, v); !failure.empty()) throw std::runtime_error(failure);
}

std::optional<std::uint64_t> number_in(const fs::path& file) {
  const auto text = slurp(file);
  if (!text || text->empty() || text->front() < '0' || text->front() > '9') return std::nullopt;
  return std::stoull(*text);
}

// The value on the line "<key> <value>" of a flat-keyed file (memory.events, memory.oom_control).
std::optional<std::uint64_t> keyed_number(const fs::path& file, const std::string& key) {
  std::ifstream in(file);
  std::string k;
  for (std::uint64_t v = 0; in >> k >> v;)
    if (k == key) return v;
  return std::nullopt;
}

bool swap_configured() { return split(slurp("/proc/swaps").value_or(""), '\n').size() > 1; }  // past the header

std::string unwritable(const fs::path& dir) {
  for (const fs::path& p : {dir, dir / "cgroup.procs"})
    if (const int e = ::faccessat(AT_FDCWD, p.c_str(), W_OK, AT_EACCESS) == 0 ? 0 : errno; e != 0)
      return p.string() + " is not writable by euid " + std::to_string(::geteuid()) +
             (::geteuid() == 0 ? "" : " (not root)") + ": " + std::strerror(e);
  return {};
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool octal = s[i] == '\\' && i + 3 < s.size() && s[i + 1] >= '0' && s[i + 1] <= '3';
    out += octal ? char((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0')) : s[i];
    if (octal) i += 3;
  }
  return out;
}

// The directory of cgroup `path` under a mount of `root` at `mount_point`, if that mount holds it.
std::optional<fs::path> under_mount(const std::string& mount_point, const std::string& root, const std::string& path) {
  if (root != "/" && path != root && !path.starts_with(root + "/")) return std::nullopt;
  std::string rel = root == "/" ? path : path.substr(root.size());
  if (rel.find("/..") != std::string::npos) return std::nullopt;  // outside this cgroup namespace
  rel.erase(0, rel.find_first_not_of('/'));
  return rel.empty() ? fs::path(mount_point) : fs::path(mount_point) / rel;
}

// The processes in `dir` but this one, and whether this one is there too.
std::vector<pid_t> members(const fs::path& dir, bool* self = nullptr) {
  std::ifstream in(dir / "cgroup.procs");
  std::vector<pid_t> pids;
  for (pid_t pid = 0; in >> pid;)
    if (pid != ::getpid()) pids.push_back(pid);
    else if (self != nullptr) *self = true;
  return pids;
}

// Kills what runs in `dir` (never this process: no cgroup.kill while it is there) and removes it,
// for up to 3 s.  Empty on success, else the reason; `killed` gets how many processes were signalled.
std::string kill_and_remove(const fs::path& dir, bool v2, std::size_t& killed) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  const bool has_kill_file = v2 && fs::exists(dir / "cgroup.kill");
  std::set<pid_t> seen;
  bool self = false;
  for (auto pids = members(dir, &self); !pids.empty() && std::chrono::steady_clock::now() < deadline; pids = members(dir, &self)) {
    const bool group_kill = has_kill_file && !self;
    if (group_kill) write_value(dir / "cgroup.kill", "1");
    for (const pid_t pid : pids)
      if (seen.insert(pid); !group_kill) ::kill(pid, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  killed = seen.size();
  while (::rmdir(dir.c_str()) != 0 && errno != ENOENT) {
    const int e = errno;  // EBUSY while the last tasks finish exiting
    if (e != EBUSY || self || std::chrono::steady_clock::now() > deadline)
      return "rmdir " + dir.string() + ": " + std::strerror(e) + " (" + std::to_string(members(dir, &self).size()) +
             " processes in it" + (self ? ", and this process, which is not killed)" : ")");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return {};
}

}  // namespace

OwnCgroups locate_own_cgroups(std::string_view mountinfo, std::string_view proc_self_cgroup) {
  std::vector<std::pair<std::string, std::string>> v2_mounts, v1_mounts;  // (mount point, root)
  for (const auto& line : split(mountinfo, '\n')) {
    const auto f = split(line, ' ');  // id parent dev root mount-point options [optional...] - type source super-options
    std::size_t dash = 6;
    while (dash < f.size() && f[dash] != "-") ++dash;
    if (dash + 3 >= f.size()) continue;
    if (f[dash + 1] == "cgroup2") v2_mounts.emplace_back(unescape(f[4]), unescape(f[3]));
    if (f[dash + 1] == "cgroup" && has_word(f[dash + 3], "memory", ',')) v1_mounts.emplace_back(unescape(f[4]), unescape(f[3]));
  }
  OwnCgroups own;
  for (const auto& line : split(proc_self_cgroup, '\n')) {  // hierarchy-id:controllers:path
    const auto c1 = line.find(':'), c2 = line.find(':', c1 + 1);
    if (c2 == std::string::npos) continue;
    const std::string controllers = line.substr(c1 + 1, c2 - c1 - 1), path = line.substr(c2 + 1);
    const bool is_v2 = line.starts_with("0::");
    if (!is_v2 && !has_word(controllers, "memory", ',')) continue;
    fs::path& slot = is_v2 ? own.v2 : own.v1_memory;
    for (const auto& [mount_point, root] : is_v2 ? v2_mounts : v1_mounts)
      if (const auto dir = under_mount(mount_point, root, path); dir && slot.empty()) slot = *dir;
  }
  return own;
}

MemoryCgroupSupport find_memory_cgroup_support() {
  const OwnCgroups own = locate_own_cgroups(slurp("/proc/self/mountinfo").value_or(""), slurp("/proc/self/cgroup").value_or(""));
  std::string v2_why = "no cgroup2 mount in /proc/self/mountinfo holds this process's cgroup";
  if (!own.v2.empty()) {
    const fs::path subtree = own.v2 / "cgroup.subtree_control";
    if (!has_word(slurp(own.v2 / "cgroup.controllers").value_or(""), "memory", ' ')) {
      v2_why = "no memory in " + (own.v2 / "cgroup.controllers").string();
    } else if (v2_why = unwritable(own.v2); v2_why.empty() && !has_word(slurp(subtree).value_or(""), "memory", ' ')) {
      int e = 0;
      v2_why = write_value(subtree, "+memory", &e);  // children get `memory` only through this
      if (e == EBUSY) v2_why += " (no internal processes: this process's own cgroup holds processes)";
    }
    if (v2_why.empty()) return {true, "cgroup v2", own.v2, ""};
  }
  std::string v1_why = "no mount with the memory controller in /proc/self/mountinfo holds this process's cgroup";
  if (!own.v1_memory.empty()) {
    const fs::path limit_file = own.v1_memory / "memory.limit_in_bytes";
    v1_why = fs::exists(limit_file) ? unwritable(own.v1_memory) : "no " + limit_file.string();
    if (v1_why.empty()) return {true, "cgroup v1 memory", own.v1_memory, ""};
  }
  return {false, "", {}, "cgroup v2: " + v2_why + "; cgroup v1: " + v1_why};
}

MemoryCgroup MemoryCgroup::create(const MemoryCgroupSupport& support, const MemoryLimit& limit) {
  if (!support.available)
    throw std::runtime_error("no memory cgroup can be made here: " + (support.why_not.empty() ? "support.available is false" : support.why_not));
  const bool v2 = support.controller == "cgroup v2";
  if (!v2 && limit.high_bytes != 0)
    throw std::runtime_error("cgroup v1 has no memory.high (memory.soft_limit_in_bytes acts only under global memory "
                             "pressure): set high_bytes only under cgroup v2");
  static std::atomic<unsigned> counter{0};
  MemoryCgroup cg;
  cg.v2_ = v2;
  while (cg.dir_.empty()) {  // once dir_ is set, a throw removes it (cg's destructor)
    const fs::path dir = support.parent / (name_prefix + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    const int e = ::mkdir(dir.c_str(), 0755) == 0 ? 0 : errno;
    if (e == 0) cg.dir_ = dir;
    else if (e != EEXIST) throw std::runtime_error("cannot make memory cgroup " + dir.string() + ": " + std::strerror(e));
  }
  const std::string max = std::to_string(limit.max_bytes);
  if (v2) {
    if (limit.high_bytes != 0) write_file(cg.dir_ / "memory.high", std::to_string(limit.high_bytes));
    if (limit.max_bytes != 0) write_file(cg.dir_ / "memory.max", max);
    if (limit.max_bytes != 0 && swap_configured() && fs::exists(cg.dir_ / "memory.swap.max")) write_file(cg.dir_ / "memory.swap.max", "0");
  } else if (limit.max_bytes != 0) {
    // The kernel keeps memsw >= limit (EINVAL otherwise): raising, memsw goes first; lowering, last.
    const fs::path memsw = cg.dir_ / "memory.memsw.limit_in_bytes", plain = cg.dir_ / "memory.limit_in_bytes";
    const bool with_memsw = swap_configured() && fs::exists(memsw);
    if (with_memsw && limit.max_bytes > number_in(memsw).value_or(0)) write_file(memsw, max);
    write_file(plain, max);
    if (with_memsw && number_in(memsw) != number_in(plain)) write_file(memsw, max);
  }
  cg.fd_ = ::open((cg.dir_ / "cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
  if (const int e = errno; cg.fd_ < 0) throw std::runtime_error("cannot open " + (cg.dir_ / "cgroup.procs").string() + ": " + std::strerror(e));
  return cg;
}

MemoryCgroup::MemoryCgroup(MemoryCgroup&& other) noexcept
    : dir_(std::exchange(other.dir_, {})), v2_(other.v2_), fd_(std::exchange(other.fd_, -1)) {}

MemoryCgroup& MemoryCgroup::operator=(MemoryCgroup&& other) noexcept {
  if (this != &other) {
    MemoryCgroup gone(std::move(*this));  // removed at the end of this block
    dir_ = std::exchange(other.dir_, {});
    v2_ = other.v2_;
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

MemoryCgroup::~MemoryCgroup() {
  try { remove(); } catch (const std::exception&) {}  // never from a destructor
}

MemoryCgroupReading MemoryCgroup::read() const {
  MemoryCgroupReading r;
  if (dir_.empty()) return r;
  const fs::path events = dir_ / "memory.events";
  r.oom_kills = v2_ ? keyed_number(events, "oom_kill") : keyed_number(dir_ / "memory.oom_control", "oom_kill");
  r.limit_hits = v2_ ? keyed_number(events, "max") : number_in(dir_ / "memory.failcnt");
  if (v2_) r.high_events = keyed_number(events, "high");
  r.peak_bytes = number_in(dir_ / (v2_ ? "memory.peak" : "memory.max_usage_in_bytes"));
  return r;
}

void MemoryCgroup::remove() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (dir_.empty()) return;
  std::size_t killed = 0;
  const std::string error = kill_and_remove(std::exchange(dir_, {}), v2_, killed);
  if (!error.empty()) throw std::runtime_error("cannot remove memory cgroup: " + error);
}

bool attach_self_after_fork(int attach_fd) noexcept { return ::write(attach_fd, "0", 1) == 1; }

std::vector<std::string> remove_stale_memory_cgroups(const MemoryCgroupSupport& support) {
  std::vector<std::string> lines;
  if (!support.available) return lines;
  std::error_code ec;
  std::vector<fs::path> children;  // listed first: removing entries while reading the directory is unspecified
  for (const auto& entry : fs::directory_iterator(support.parent, ec))
    if (entry.is_directory(ec) && entry.path().filename().string().starts_with(name_prefix)) children.push_back(entry.path());
  for (const fs::path& child : children) {
    const std::string name = child.filename().string();
    int pid = 0, end = 0;
    unsigned n = 0;
    if (std::sscanf(name.c_str(), "allocstress-%9d-%u%n", &pid, &n, &end) != 2 || std::size_t(end) != name.size() || pid <= 0) continue;
    if (pid == ::getpid() || ::kill(pid, 0) == 0 || errno != ESRCH) continue;  // its runner still runs
    std::size_t killed = 0;
    const std::string error = kill_and_remove(child, support.controller == "cgroup v2", killed);
    lines.push_back(error.empty() ? "removed " + child.string() + " (pid " + std::to_string(pid) + " gone; killed " + std::to_string(killed) + ")"
                                  : "could not remove " + child.string() + ": " + error);
  }
  return lines;
}

}  // namespace allocstress
