// Results-file reading with one-line diagnostics.
#include "results/results_reader.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cells/programs/program_workloads.hpp"
#include "results/results_file.hpp"

namespace allocstress {

nlohmann::json read_results_file(const std::filesystem::path& path) {
  const std::string name = path.string();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) throw ResultsFileError(name + ": no such results file");
  if (std::filesystem::is_directory(path, ec)) throw ResultsFileError(name + ": is a directory, not a results file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ResultsFileError(name + ": cannot read: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    const bool truncated = std::string(e.what()).find("unexpected end of input") != std::string::npos;
    throw ResultsFileError(name + ": not valid JSON at byte " + std::to_string(e.byte) +
                           (truncated ? " (the file is truncated)" : " (the file is corrupt)"));
  } catch (const nlohmann::json::out_of_range& e) {  // a number beyond double, e.g. 1e999 (found by fuzzing the calibration)
    throw ResultsFileError(name + ": not valid JSON (the file is corrupt: " + e.what() + ")");
  }
  const auto schema = j.is_object() ? j.find("schema") : j.end();
  if (!j.is_object() || schema == j.end() || !schema->is_string() || schema->get<std::string>() != kResultsSchemaName)
    throw ResultsFileError(name + ": not an allocstress results file (it lacks \"schema\": \"" +
                           std::string(kResultsSchemaName) + "\")");
  const auto version = j.find("schema_version");
  if (version == j.end() || !version->is_number_integer() || version->get<int>() < kOldestReadableSchemaVersion ||
      version->get<int>() > kResultsSchemaVersion)
    throw ResultsFileError(name + ": schema_version " + (version == j.end() ? std::string("(missing)") : version->dump()) +
                           " is not supported (this allocstress reads versions " + std::to_string(kOldestReadableSchemaVersion) +
                           ".." + std::to_string(kResultsSchemaVersion) + ")");
  if (!j.contains("context") || !j["context"].is_object())
    throw ResultsFileError(name + ": has no \"context\" object");
  if (!j.contains("benchmarks") || !j["benchmarks"].is_array())
    throw ResultsFileError(name + ": has no \"benchmarks\" array");
  declare_programs_of(j);  // its program workloads resolve by name (cells/programs/program_workloads.hpp)
  return j;
}

}  // namespace allocstress
