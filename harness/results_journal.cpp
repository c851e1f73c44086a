// Append-only JSON-lines journal with fsync per record, and atomic whole-file writes.
#include "results_journal.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace allocstress {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& what) {
  throw std::runtime_error(what + " " + path.string() + ": " + std::strerror(errno));
}

void write_all(int fd, const std::string& text, const fs::path& path) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(path, "cannot write");
    done += std::size_t(n);
  }
}

}  // namespace

ResultsJournal ResultsJournal::create(const fs::path& path, const nlohmann::json& header) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) fail(path, "cannot create journal");
  ResultsJournal j(path, fd);
  j.header_ = header;
  j.write_line({{"type", "header"}, {"header", header}});
  return j;
}

ResultsJournal ResultsJournal::open_existing(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("nothing to resume: cannot read journal " + path.string());
  nlohmann::json header;
  std::map<std::string, nlohmann::json> records;
  std::string line;
  for (int lineno = 1; std::getline(in, line); ++lineno) {
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) {
      if (in.peek() == EOF) break;  // torn last line: the cell it held will run again
      throw std::runtime_error("journal " + path.string() + " line " + std::to_string(lineno) + " is not JSON");
    }
    if (lineno == 1) {
      if (j.value("type", "") != "header") throw std::runtime_error("journal " + path.string() + " has no header line");
      header = j.at("header");
    } else if (j.value("type", "") == "cell") {
      records[j.at("key").get<std::string>()] = j.at("record");
    }
  }
  if (header.is_null()) throw std::runtime_error("journal " + path.string() + " is empty");
  const int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot append to journal");
  ResultsJournal j(path, fd);
  j.header_ = std::move(header);
  j.records_ = std::move(records);
  return j;
}

ResultsJournal::ResultsJournal(ResultsJournal&& o) noexcept
    : path_(std::move(o.path_)), fd_(o.fd_), header_(std::move(o.header_)), records_(std::move(o.records_)) {
  o.fd_ = -1;
}

ResultsJournal::~ResultsJournal() {
  if (fd_ >= 0) ::close(fd_);
}

void ResultsJournal::write_line(const nlohmann::json& line) {
  write_all(fd_, line.dump() + "\n", path_);
  if (::fsync(fd_) != 0) fail(path_, "cannot fsync journal");
}

void ResultsJournal::append(const std::string& key, const nlohmann::json& record) {
  write_line({{"type", "cell"}, {"key", key}, {"record", record}});
  records_[key] = record;
}

void write_file_atomically(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail(tmp, "cannot create");
  try {
    write_all(fd, text, tmp);
    if (::fsync(fd) != 0) fail(tmp, "cannot fsync");
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    fail(path, "cannot rename temporary file onto");
  }
}

}  // namespace allocstress
