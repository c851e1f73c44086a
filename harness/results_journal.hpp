// The durable journal of a matrix run: one JSON object per line, the first a header holding the
// plan and the machine context, then one line per finished cell, each written with fsync the
// moment the cell ends.  An interrupted matrix therefore loses at most the cell that was running;
// `--resume` reads the journal back and runs only the cells it lacks.  A torn last line (power
// loss mid-write) is ignored on reading.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>

namespace allocstress {

class ResultsJournal {
 public:
  // Creates a new journal holding `header`.  Throws std::runtime_error if it exists or cannot be written.
  static ResultsJournal create(const std::filesystem::path& path, const nlohmann::json& header);
  // Opens an existing journal for appending.  Throws std::runtime_error naming the file and
  // problem when it is missing or its header is unreadable.
  static ResultsJournal open_existing(const std::filesystem::path& path);

  const nlohmann::json& header() const { return header_; }
  // Finished cells by key, in the order they were written.
  const std::map<std::string, nlohmann::json>& records() const { return records_; }

  // Appends one finished cell and makes it durable (fsync) before returning.
  void append(const std::string& key, const nlohmann::json& record);

  ResultsJournal(ResultsJournal&&) noexcept;
  ~ResultsJournal();

 private:
  ResultsJournal(std::filesystem::path path, int fd) : path_(std::move(path)), fd_(fd) {}
  void write_line(const nlohmann::json& line);

  std::filesystem::path path_;
  int fd_ = -1;
  nlohmann::json header_;
  std::map<std::string, nlohmann::json> records_;
};

// JSON text with invalid UTF-8 replaced rather than thrown (paths and stderr are raw bytes).
std::string json_text(const nlohmann::json& j, int indent = -1);

// The JSON object on the last stdout line of a child that starts with '{' (a preloaded library
// may print too); a discarded (non-object) value when there is none or it does not parse.
nlohmann::json last_json_line(const std::string& out);

// Writes `text` to `path` atomically: a temporary file in the same folder, fsync, rename.
// Throws std::runtime_error naming the path on failure; never leaves a half-written `path`.
void write_file_atomically(const std::filesystem::path& path, const std::string& text);

}  // namespace allocstress
