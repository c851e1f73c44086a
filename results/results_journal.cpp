// Append-only JSON-lines journal with fsync per record.
#include "results/results_journal.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "platform/durable_files.hpp"
#include "platform/json_text.hpp"

namespace allocstress {

namespace fs = std::filesystem;

namespace {

// One running matrix per journal: a second one (e.g. a bare --resume) is refused.
void lock_or_refuse(int fd, const fs::path& path) {
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return;
  ::close(fd);
  throw std::runtime_error("journal " + path.string() + " is in use by another running allocstress matrix");
}

}  // namespace

ResultsJournal ResultsJournal::create(const fs::path& path, const nlohmann::json& header) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw_file_error(path, "cannot create journal");
  lock_or_refuse(fd, path);
  fsync_parent_directory(path);
  ResultsJournal j(path, fd);
  j.header_ = header;
  j.write_line({{"type", "header"}, {"header", header}});
  return j;
}

ResultsJournal ResultsJournal::open_existing(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) throw std::runtime_error("nothing to resume: no journal " + path.string());
    throw_file_error(path, "cannot open journal");
  }
  lock_or_refuse(fd, path);
  std::ifstream in(path);
  nlohmann::json header;
  std::map<std::string, nlohmann::json> records;
  std::string line;
  off_t complete_bytes = 0;  // length of the prefix made of whole, parsable lines
  try {
    for (int lineno = 1; std::getline(in, line); ++lineno) {
      nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      const bool had_newline = !in.eof();
      if (j.is_discarded() || !had_newline) {
        if (in.peek() == EOF) break;  // torn last line: cut below; the cell it held runs again
        throw std::runtime_error("journal " + path.string() + " line " + std::to_string(lineno) + " is not JSON");
      }
      if (lineno == 1) {
        if (j.value("type", "") != "header") throw std::runtime_error("journal " + path.string() + " has no header line");
        header = j.at("header");
      } else if (j.value("type", "") == "cell") {
        records[j.at("key").get<std::string>()] = j.at("record");
      }
      complete_bytes += off_t(line.size() + 1);
    }
    if (header.is_null()) throw std::runtime_error("journal " + path.string() + " is empty");
  } catch (const nlohmann::json::exception& e) {
    ::close(fd);
    throw std::runtime_error("journal " + path.string() + " is not an allocstress journal: " + e.what());
  } catch (...) {
    ::close(fd);
    throw;
  }
  if (::ftruncate(fd, complete_bytes) != 0) throw_file_error(path, "cannot cut the torn last line of journal");
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
  write_all(fd_, json_text(line) + "\n", path_);
  if (::fsync(fd_) != 0) throw_file_error(path_, "cannot fsync journal");
}

void ResultsJournal::append(const std::string& key, const nlohmann::json& record) {
  try {
    write_line({{"type", "cell"}, {"key", key}, {"record", record}});
  } catch (const std::runtime_error& e) {  // a full disk: what is recorded stays, and --resume goes on from it
    std::string results = path_.string();
    if (results.ends_with(".journal.jsonl")) results.resize(results.size() - std::string(".journal.jsonl").size());
    throw std::runtime_error(std::string(e.what()) + " (the " + std::to_string(records_.size()) +
                             " cells recorded before are safe in it: `allocstress matrix --resume --out " + results + "` continues the run)");
  }
  records_[key] = record;
}

}  // namespace allocstress
