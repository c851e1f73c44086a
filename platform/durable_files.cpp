// Atomic whole-file writes and journal helpers (see durable_files.hpp).
#include "platform/durable_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace allocstress {

namespace fs = std::filesystem;

void throw_file_error(const fs::path& path, const std::string& what) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

void fsync_parent_directory(const fs::path& path) {
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  ::fsync(fd);
  ::close(fd);
}

void write_all(int fd, const std::string& text, const fs::path& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw_file_error(path, "cannot write");
    done += std::size_t(n);
  }
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw_file_error(tmp, "cannot create");
  try {
    write_all(fd, text, tmp);
    if (::fsync(fd) != 0) throw_file_error(tmp, "cannot fsync");
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw_file_error(path, "cannot rename temporary file onto");
  }
  fsync_parent_directory(path);
}

void write_through_partial(const fs::path& path, const std::string& what, const std::function<void(std::ostream&)>& write) {
  const fs::path partial = path.string() + ".partial";
  {
    std::ofstream out(partial, std::ios::binary | std::ios::trunc);
    write(out);
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(partial, ec);
      throw std::runtime_error(partial.string() + ": cannot write " + what);
    }
  }
  fs::rename(partial, path);
}

}  // namespace allocstress
