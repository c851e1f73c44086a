// A lock file that says which process holds it: flock(LOCK_EX | LOCK_NB) on the file, which holds
// the holder's pid as text.  The kernel releases the lock when its holder exits, however it exits
// (a killed run leaves a file that nobody holds: the next run takes it).  The lock is held while
// the ProcessLock lives; its destructor removes the file and releases the lock.  The descriptor is
// close-on-exec: child processes do not hold it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>

namespace allocstress {

class ProcessLock {
 public:
  // Takes the lock on `path` (creating the file; its folder must exist).  When another process
  // holds it: nullopt, and `holder` is that process's pid (0 when it has not written it yet).
  // Throws std::runtime_error naming the path when the file cannot be created or locked.
  static std::optional<ProcessLock> try_acquire(const std::filesystem::path& path, pid_t& holder);

  ProcessLock(ProcessLock&& other) noexcept;
  ProcessLock& operator=(ProcessLock&& other) noexcept;
  ProcessLock(const ProcessLock&) = delete;
  ProcessLock& operator=(const ProcessLock&) = delete;
  ~ProcessLock();

 private:
  ProcessLock(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void release();
  std::filesystem::path path_;
  int fd_ = -1;
};

}  // namespace allocstress
