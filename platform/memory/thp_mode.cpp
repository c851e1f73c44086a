// Reads, sets and restores the system THP mode (see thp_mode.hpp).  The signal-handler restore
// works from static storage filled in advance: a descriptor of `enabled`, the original mode's text
// and the state file's path.
#include "platform/memory/thp_mode.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace allocstress {

namespace fs = std::filesystem;

namespace {

// What restore_thp_mode_from_signal_handler() needs, prepared by the ThpModeSetting holding a change.
static_assert(std::atomic<int>::is_always_lock_free);
std::atomic<int> g_restore_fd{-1};
char g_restore_text[16];
std::size_t g_restore_length = 0;
char g_state_path[4096];
std::atomic<const void*> g_owner{nullptr};

std::string errno_text(int err = errno) { return std::strerror(err); }
std::string word(ThpMode mode) { return std::string(to_string(mode)); }

std::string read_text(const fs::path& path, std::string& why_not) {
  std::ifstream in(path);
  if (!in) why_not = "cannot open " + path.string() + ": " + errno_text();
  std::stringstream ss;
  if (in) ss << in.rdbuf();
  return ss.str();
}

// Writes "<mode>\n" over `path` (O_TRUNC: a regular-file stand-in keeps no tail; sysfs ignores it).
void write_mode(const fs::path& path, ThpMode mode) {
  const std::string text = word(mode) + "\n";
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  const bool written = fd >= 0 && ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  int err = errno;  // of open() or write(); close() runs whenever open() succeeded
  if (fd >= 0 && ::close(fd) != 0 && written) err = errno;
  else if (written) return;
  std::string what = "cannot write THP mode " + word(mode) + " to " + path.string() + ": " + errno_text(err);
  if (err == EACCES || err == EPERM || err == EROFS) what += " (" + thp_refusal(mode, false) + ")";
  throw std::runtime_error(what);
}

void remove_state_file(const fs::path& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    throw std::runtime_error("cannot remove THP state file " + path.string() + ": " + errno_text());
}

bool process_alive(long pid) {
  if (pid <= 0) return false;
  return pid == long(::getpid()) || ::kill(pid_t(pid), 0) == 0 || errno == EPERM;
}

void drop_prepared_restore() {
  const int fd = g_restore_fd.exchange(-1);
  if (fd >= 0) ::close(fd);
  g_owner.store(nullptr);
}

}  // namespace

std::string_view to_string(ThpMode mode) {
  static constexpr std::string_view kNames[] = {"never", "madvise", "always"};
  return kNames[static_cast<int>(mode)];
}

ThpMode parse_thp_mode(std::string_view text) {
  for (ThpMode m : {ThpMode::never, ThpMode::madvise, ThpMode::always})
    if (text == to_string(m)) return m;
  throw std::invalid_argument("unknown THP mode '" + std::string(text) + "' (accepted: never, madvise, always)");
}

std::vector<ThpMode> parse_thp_modes(std::string_view text) {
  const std::string list = "'" + std::string(text) + "' (accepted: a comma list of never, madvise, always, each once)";
  std::vector<ThpMode> modes;
  for (std::size_t begin = 0;;) {
    const std::size_t comma = text.find(',', begin);
    const std::string_view item = text.substr(begin, comma == text.npos ? text.npos : comma - begin);
    if (item.empty()) throw std::invalid_argument("empty item in THP mode list " + list);
    const ThpMode m = parse_thp_mode(item);
    for (ThpMode seen : modes)
      if (seen == m) throw std::invalid_argument("THP mode '" + std::string(item) + "' named twice in " + list);
    modes.push_back(m);
    if (comma == text.npos) return modes;
    begin = comma + 1;
  }
}

std::optional<std::string_view> bracketed_choice(std::string_view contents) {
  const std::size_t open = contents.find('[');
  const std::size_t close = contents.find(']', open);
  if (open == contents.npos || close == contents.npos || close == open + 1) return std::nullopt;
  if (contents.find('[', open + 1) < close || contents.find('[', close) != contents.npos) return std::nullopt;
  return contents.substr(open + 1, close - open - 1);
}

std::optional<ThpMode> system_thp_mode(std::string* why_not, const fs::path& thp_dir) {
  const fs::path path = thp_dir / "enabled";
  std::string why;
  std::error_code ec;
  const std::string text = read_text(path, why);
  if (!why.empty() && !fs::exists(thp_dir, ec)) why += " (a kernel without transparent huge pages)";
  const auto choice = bracketed_choice(text);
  for (ThpMode m : {ThpMode::never, ThpMode::madvise, ThpMode::always})
    if (why.empty() && choice && *choice == to_string(m)) return m;
  if (why.empty())
    why = "unexpected contents '" + text.substr(0, text.find('\n')) + "' of " + path.string() +
          " (expected e.g. 'always [madvise] never')";
  if (why_not) *why_not = why;
  return std::nullopt;
}

bool can_set_system_thp_mode(const fs::path& thp_dir) {
  return ::geteuid() == 0 && ::access((thp_dir / "enabled").c_str(), W_OK) == 0;
}

std::string thp_refusal(ThpMode mode, bool may_write) {
  if (may_write) return {};
  return "THP mode " + word(mode) + (mode == ThpMode::never ? " system-wide" : "") + " needs root to write " +
         (kThpDir / "enabled").string() +
         "; without root only never is possible, and only per process, through prctl(PR_SET_THP_DISABLE)";
}

std::string disable_thp_for_this_process() {
  if (::prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0) return "prctl(PR_SET_THP_DISABLE, 1) failed: " + errno_text();
  if (::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0) != 1) return "prctl(PR_GET_THP_DISABLE) does not report it set";
  return {};
}

ThpModeSetting::ThpModeSetting(fs::path thp_dir, fs::path state_file)
    : thp_dir_(std::move(thp_dir)), state_file_(std::move(state_file)) {}

ThpModeSetting::~ThpModeSetting() {
  try {
    restore();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "allocstress: warning: %s (the next run restores it from %s)\n", e.what(),
                 state_file_.c_str());
    drop_prepared_restore();
  }
}

void ThpModeSetting::write_state(ThpMode set_to) const {
  const fs::path dir = state_file_.has_parent_path() ? state_file_.parent_path() : fs::path(".");
  std::error_code ec;
  fs::create_directories(dir, ec);
  const std::string text = "# allocstress: the THP mode to write back to " + (thp_dir_ / "enabled").string() +
                           "\noriginal " + word(*original_) + "\nset " + word(set_to) + "\npid " +
                           std::to_string(::getpid()) + "\n";
  const fs::path tmp = state_file_.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error("cannot create THP state file " + tmp.string() + ": " + errno_text());
  bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size()) && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok && ::rename(tmp.c_str(), state_file_.c_str()) == 0;
  if (!ok) {
    const int err = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error("cannot write THP state file " + state_file_.string() + ": " + errno_text(err));
  }
  if (const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir_fd >= 0) {
    ::fsync(dir_fd);  // the rename itself durable
    ::close(dir_fd);
  }
}

void ThpModeSetting::set(ThpMode mode) {
  const void* owner = g_owner.load();
  if (owner != nullptr && owner != this)
    throw std::runtime_error("another ThpModeSetting holds a THP mode change (accepted: one at a time)");
  const fs::path enabled = thp_dir_ / "enabled";
  if (!original_) {
    std::string why;
    const auto now = system_thp_mode(&why, thp_dir_);
    if (!now) throw std::runtime_error("cannot change the THP mode: " + why);
    current_ = now;
    if (*now == mode) return;
    if (state_file_.string().size() >= sizeof g_state_path)
      throw std::runtime_error("THP state file path too long (accepted: under 4096 bytes): " + state_file_.string());
    if (::access(enabled.c_str(), W_OK) != 0)
      throw std::runtime_error("cannot write THP mode " + word(mode) + " to " + enabled.string() + ": " +
                               errno_text() + " (" + thp_refusal(mode, false) + ")");
    original_ = now;
  } else if (current_ == mode) {
    return;
  }
  write_state(mode);  // durable before the change
  if (g_restore_fd.load() < 0) {
    const int fd = ::open(enabled.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error("cannot open " + enabled.string() + " for writing: " + errno_text());
    const std::string text = word(*original_) + "\n";
    std::memcpy(g_restore_text, text.data(), text.size());
    g_restore_length = text.size();
    std::snprintf(g_state_path, sizeof g_state_path, "%s", state_file_.c_str());
    g_owner.store(this);
    g_restore_fd.store(fd);  // last: the handler sees a complete text and path
  }
  try {
    write_mode(enabled, mode);
  } catch (...) {
    if (current_ == original_) {  // the mode is still the original: leave nothing behind
      drop_prepared_restore();
      ::unlink(state_file_.c_str());
      original_.reset();
    }
    throw;
  }
  current_ = mode;
}

void ThpModeSetting::restore() {
  if (!original_) return;
  const int fd = g_restore_fd.exchange(-1);  // from now on the signal handler writes nothing
  if (fd >= 0) ::close(fd);
  write_mode(thp_dir_ / "enabled", *original_);
  current_ = original_;
  remove_state_file(state_file_);
  original_.reset();
  g_owner.store(nullptr);
}

void restore_thp_mode_from_signal_handler() noexcept {
  const int fd = g_restore_fd.exchange(-1);
  if (fd < 0) return;
  const int saved_errno = errno;
  (void)::ftruncate(fd, 0);  // a regular-file stand-in (tests) keeps no tail; sysfs ignores it
  ssize_t n;
  do n = ::write(fd, g_restore_text, g_restore_length);
  while (n < 0 && errno == EINTR);
  const bool closed = ::close(fd) == 0;
  if (n == ssize_t(g_restore_length) && closed) ::unlink(g_state_path);
  errno = saved_errno;
}

std::string restore_thp_mode_left_by_crashed_run(const fs::path& thp_dir, const fs::path& state_file) {
  std::error_code ec;
  if (!fs::exists(state_file, ec)) return {};
  std::string why;
  std::istringstream in(read_text(state_file, why));
  if (!why.empty()) throw std::runtime_error("cannot read THP state file: " + why);
  const std::string malformed = "malformed THP state file " + state_file.string();
  std::optional<ThpMode> original, set_to;
  long pid = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::string key, value;
    std::istringstream(line) >> key >> value;
    try {
      if (key == "original") original = parse_thp_mode(value);
      else if (key == "set") set_to = parse_thp_mode(value);
      else if (key == "pid") pid = std::stol(value);
    } catch (const std::exception& e) {
      throw std::runtime_error(malformed + ": '" + line + "': " + e.what());
    }
  }
  if (!original || !set_to)
    throw std::runtime_error(malformed + " (accepted: lines 'original <mode>', 'set <mode>', 'pid <n>'); check " +
                             (thp_dir / "enabled").string() + ", then remove it");
  if (process_alive(pid))
    return "THP mode left at " + word(*set_to) + ": the run that set it (pid " + std::to_string(pid) +
           ") is still running";
  write_mode(thp_dir / "enabled", *original);
  remove_state_file(state_file);
  return "THP mode restored to " + word(*original) + " (a previous run was stopped while it had set " +
         word(*set_to) + ")";
}

}  // namespace allocstress
