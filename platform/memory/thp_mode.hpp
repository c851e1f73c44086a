// The system's transparent huge page (THP) mode as a matrix dimension: reading it, setting it as
// root, and putting it back, even after a run that was killed.
//
// Model: the PMD-level (2 MiB on x86-64) mode is the word in brackets in
// /sys/kernel/mm/transparent_hugepage/enabled ("always [madvise] never"); writing a bare word there
// changes it for every process on the machine.  The multi-size (mTHP) files
// hugepages-<N>kB/enabled are read elsewhere (hugepage_usage.hpp) and never written here.
//
// Contract: ThpModeSetting changes the system mode only after it has durably written the mode to
// restore to a state file (default /run/allocstress/thp-restore; temp + fsync + rename).  It puts
// the original back in restore(), in its destructor, in restore_thp_mode_from_signal_handler()
// (SIGINT/SIGTERM), and, after a SIGKILL, in the next run's restore_thp_mode_left_by_crashed_run().
// Errors are std::runtime_error naming the file, errno's text and what is accepted; bad mode names
// are std::invalid_argument listing the accepted ones.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

enum class ThpMode { never, madvise, always };

inline const std::filesystem::path kThpDir = "/sys/kernel/mm/transparent_hugepage";
inline const std::filesystem::path kThpRestoreFile = "/run/allocstress/thp-restore";

std::string_view to_string(ThpMode mode);

// "never", "madvise" or "always".  Throws std::invalid_argument
// "unknown THP mode 'x' (accepted: never, madvise, always)".
ThpMode parse_thp_mode(std::string_view text);

// A comma list in the order given ("never,always").  Throws std::invalid_argument for an unknown
// name, an empty item ("never,,always", "", trailing comma) or a mode named twice.
std::vector<ThpMode> parse_thp_modes(std::string_view text);

// The bracketed word of an `enabled` file's contents ("always [madvise] never" -> "madvise";
// mTHP files also offer "inherit"); nullopt when there is no single bracketed word.
std::optional<std::string_view> bracketed_choice(std::string_view contents);

// The system THP mode from <thp_dir>/enabled; nullopt when the kernel has no THP or the file
// cannot be read or parsed, with the reason in *why_not.
std::optional<ThpMode> system_thp_mode(std::string* why_not = nullptr,
                                       const std::filesystem::path& thp_dir = kThpDir);

// Whether this process may change the system mode: effective uid 0 and <thp_dir>/enabled writable
// (root in a container with a read-only /sys may not).
bool can_set_system_thp_mode(const std::filesystem::path& thp_dir = kThpDir);

// Why `mode` cannot be had without permission to write <kThpDir>/enabled ("" when `may_write`):
// without it only `never` is possible, and only per process, through prctl(PR_SET_THP_DISABLE)
// (disable_thp_for_this_process()); madvise and always need root.
std::string thp_refusal(ThpMode mode, bool may_write);

// prctl(PR_SET_THP_DISABLE, 1): no THP for this process from now on, all its threads, and every
// child it forks or execs (the flag is inherited and survives execve).  Needs no privilege and
// cannot be undone by this module.  Returns "" or the reason it failed.
std::string disable_thp_for_this_process();
// Set in a cell process's environment when it must call disable_thp_for_this_process() before it
// measures (`matrix --thp never` without root).
inline constexpr const char* kThpDisableVariable = "ALLOCSTRESS_THP_DISABLE";

// Changes the system mode and puts the original back.  One object at a time may hold a change
// (a second one's set() throws while the first has changed the mode).
class ThpModeSetting {
 public:
  explicit ThpModeSetting(std::filesystem::path thp_dir = kThpDir,
                          std::filesystem::path state_file = kThpRestoreFile);
  ~ThpModeSetting();  // restore(); never throws (a failure is one line on stderr, the state file stays)
  ThpModeSetting(const ThpModeSetting&) = delete;
  ThpModeSetting& operator=(const ThpModeSetting&) = delete;

  // Writes `mode` to <thp_dir>/enabled.  Before the first change it reads the original mode,
  // writes the state file (original, mode set, pid) and prepares the signal-handler restore;
  // before a later change it rewrites the state file.  A mode equal to the current one writes
  // nothing.  Throws std::runtime_error (with thp_refusal()'s text when permission is denied).
  void set(ThpMode mode);

  // Writes the original mode back and removes the state file; nothing when nothing was changed.
  // Throws std::runtime_error if the write fails (the state file then stays for the next run).
  void restore();

  bool changed() const { return original_.has_value(); }
  std::optional<ThpMode> original() const { return original_; }  // set once changed()
  std::optional<ThpMode> current() const { return current_; }    // the last mode written

 private:
  void write_state(ThpMode set_to) const;
  std::filesystem::path thp_dir_, state_file_;
  std::optional<ThpMode> original_, current_;
};

// For a SIGINT/SIGTERM handler: writes the original mode prepared by the ThpModeSetting holding a
// change through a descriptor opened in advance, closes it and removes the state file.  Uses only
// write(), ftruncate(), close() and unlink() (async-signal-safe); does nothing when no change is
// held or it already ran.  The ThpModeSetting's own restore() then only removes what is left.
void restore_thp_mode_from_signal_handler() noexcept;

// At the start of a run: if `state_file` was left by a run that is no longer alive (killed before
// it could restore), writes its original mode to <thp_dir>/enabled, removes the file and returns
// one line for the user, e.g. "THP mode restored to madvise (a previous run was stopped while it
// had set always)".  "" when there is no state file.  A state file whose pid is still alive (a
// concurrent run, or this process) is left alone, and the line says so.  Throws
// std::runtime_error when the file is unreadable or malformed, or the mode cannot be written.
std::string restore_thp_mode_left_by_crashed_run(const std::filesystem::path& thp_dir = kThpDir,
                                                 const std::filesystem::path& state_file = kThpRestoreFile);

}  // namespace allocstress
