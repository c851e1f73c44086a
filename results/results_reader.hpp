// Reads a results file back and checks that it is one this version understands, so that every
// consumer (the Python analysis through pybind11, compare, report) fails the same clear way on a
// missing, truncated, foreign or wrong-version file.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <stdexcept>

namespace allocstress {

// One line naming the file and what is wrong with it.
struct ResultsFileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// pre: none.  post: a JSON object with "schema" == kResultsSchemaName, "schema_version" in
// kOldestReadableSchemaVersion..kResultsSchemaVersion, an object "context" and an array
// "benchmarks"; else ResultsFileError.
nlohmann::json read_results_file(const std::filesystem::path& path);

}  // namespace allocstress
