// libFuzzer target for the importer of Steve's ops text (trace/import_steve.hpp); the contract
// checked is in import_fuzz.hpp.
#include "tests/fuzz/import_fuzz.hpp"
#include "trace/import_steve.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  allocstress::fuzz::fuzz_import(data, size, "input.ops", allocstress::trace::import_steve);
  return 0;
}
