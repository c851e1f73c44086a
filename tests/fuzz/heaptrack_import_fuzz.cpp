// libFuzzer target for the heaptrack importer (trace/import_heaptrack.hpp): inputs are heaptrack
// text or zstd-compressed heaptrack data; the contract checked is in import_fuzz.hpp.
#include "tests/fuzz/import_fuzz.hpp"
#include "trace/import_heaptrack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  allocstress::fuzz::fuzz_import(data, size, "heaptrack.fuzz.4242", allocstress::trace::import_heaptrack);
  return 0;
}
