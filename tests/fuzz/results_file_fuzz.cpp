// libFuzzer target for the results reader (results/results_reader.hpp), through which every C++
// consumer of a results file reads it: `calibrate`, `programs`/`fit` comparisons, and the Python
// package's report and compare (the pybind11 module hands it the document as JSON text).
//
// Contract: read_results_file(path) on any bytes either returns a document or throws
// ResultsFileError (one line naming the file).  A returned document is what the header promises
// (an object, "schema" "allocstress-results", an integer "schema_version" in the readable range,
// an object "context" and an array "benchmarks"), turns into JSON text for Python (json_text),
// and `calibrate`'s reading of it (headline_values over "benchmarks") throws nothing.  Any other
// exception, a crash, a sanitizer report, a leak, a timeout or an allocation beyond libFuzzer's
// limit is a finding.
#include "platform/json_text.hpp"
#include "results/reproduction.hpp"
#include "results/results_file.hpp"
#include "results/results_reader.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace allocstress;
  fuzz::fresh_process_state();
  const std::filesystem::path path = fuzz::input_file(data, size, "results.json");
  nlohmann::json doc;
  if (!fuzz::within_contract<ResultsFileError>("read_results_file", [&] { doc = read_results_file(path); })) return 0;
  fuzz::require(doc.is_object() && doc.value("schema", nlohmann::json()) == kResultsSchemaName, "accepted without the results schema");
  const nlohmann::json& version = doc.at("schema_version");
  fuzz::require(version.is_number_integer() && version.get<int>() >= kOldestReadableSchemaVersion && version.get<int>() <= kResultsSchemaVersion,
                "accepted a schema_version outside the readable range");
  fuzz::require(doc.at("context").is_object() && doc.at("benchmarks").is_array(), "accepted without a context object and a benchmarks array");
  json_text(doc);
  fuzz::within_contract<>("headline_values", [&] { headline_values(doc.at("benchmarks").get_ref<const nlohmann::json::array_t&>()); });
  return 0;
}
