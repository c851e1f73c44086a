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

}  // namespace allocstress
