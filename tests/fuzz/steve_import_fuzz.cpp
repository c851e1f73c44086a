// libFuzzer target for the importer of Steve's ops text (trace/import_steve.hpp).  Contract: see
// fuzz_import in fuzz_common.hpp (imports a trace that reads back whole, or throws
// std::runtime_error and leaves no output).
#include "tests/fuzz/fuzz_common.hpp"
#include "trace/import_steve.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  allocstress::fuzz::fuzz_import(data, size, "input.ops", allocstress::trace::import_steve);
  return 0;
}
