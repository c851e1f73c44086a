// libFuzzer target for the heaptrack importer (trace/import_heaptrack.hpp): inputs are heaptrack
// text or zstd-compressed heaptrack data.  Contract: see fuzz_import in fuzz_common.hpp (imports a
// trace that reads back whole, or throws std::runtime_error and leaves no output).
#include "tests/fuzz/fuzz_common.hpp"
#include "trace/import_heaptrack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  allocstress::fuzz::fuzz_import(data, size, "heaptrack.fuzz.4242", allocstress::trace::import_heaptrack);
  return 0;
}
