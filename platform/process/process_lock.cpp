// Lock files naming their holder (see process_lock.hpp).
#include "platform/process/process_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

namespace allocstress {

namespace {

// The pid a holder wrote into the file `fd` (0 when it has not written it yet).
pid_t pid_in(int fd) {
  char text[32] = {};
  const ssize_t n = pread(fd, text, sizeof text - 1, 0);
  return n > 0 ? pid_t(std::strtol(text, nullptr, 10)) : 0;
}

[[noreturn]] void fail(const std::filesystem::path& path, const char* what) {
  throw std::runtime_error(std::string(what) + " " + path.string() + ": " + std::strerror(errno));
}

}  // namespace

std::optional<ProcessLock> ProcessLock::try_acquire(const std::filesystem::path& path, pid_t& holder) {
  holder = 0;
  for (;;) {
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) fail(path, "cannot create the lock file");
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int error = errno;
      if (error != EWOULDBLOCK) {
        ::close(fd);
        errno = error;
        fail(path, "cannot lock");
      }
      // A holder writes its pid just after it locks: give it a moment.
      for (int i = 0; i < 50 && (holder = pid_in(fd)) == 0; ++i) {
        const timespec pause{0, 2'000'000};
        nanosleep(&pause, nullptr);
      }
      ::close(fd);
      return std::nullopt;
    }
    // The file may have been removed (and another created) by a holder that released it between
    // our open and our lock: then this lock guards nothing, and we start again.
    struct stat opened {}, named {};
    if (::fstat(fd, &opened) != 0 || ::stat(path.c_str(), &named) != 0 || opened.st_ino != named.st_ino || opened.st_dev != named.st_dev) {
      ::close(fd);
      continue;
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) != ssize_t(pid.size())) {
      const int error = errno;
      ::unlink(path.c_str());
      ::close(fd);
      errno = error;
      fail(path, "cannot write the lock file");
    }
    return ProcessLock(path, fd);
  }
}

ProcessLock::ProcessLock(ProcessLock&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }

ProcessLock& ProcessLock::operator=(ProcessLock&& other) noexcept {
  if (this != &other) {
    release();
    path_ = std::move(other.path_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

ProcessLock::~ProcessLock() { release(); }

void ProcessLock::release() {
  if (fd_ < 0) return;
  ::unlink(path_.c_str());  // still locked: a process that opened the old file sees it gone and starts again
  ::close(fd_);
  fd_ = -1;
}

}  // namespace allocstress
