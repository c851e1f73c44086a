// libFuzzer target for the cell JSON (plan/cell_encoding.hpp: what `allocstress run --cell FILE`
// reads, as every backend writes it).
//
// Contract: read_cell_file(path), then -- as `run --cell` does before it measures anything --
// check_cell against an in-tree and a drop-in allocator, either accept the cell or throw
// UsageError (platform/errors.hpp: one line, exit 2).  An accepted cell encodes back into a cell
// that decodes to the same JSON (cell_to_json / cell_from_json: the plan file's and the backends'
// form).  Any other exception, a crash, a sanitizer report, a leak, a timeout or an allocation
// beyond libFuzzer's limit is a finding.
#include "cells/workload_registry.hpp"
#include "plan/cell_encoding.hpp"
#include "platform/errors.hpp"
#include "tests/fuzz/fuzz_common.hpp"

namespace {

using namespace allocstress;

// The allocators a cell is checked against: what load_catalog would give for "bump" (in-tree)
// and for a drop-in of the manifest (the library need not exist: check_cell does not load it).
const AllocatorSpec kInTree{"bump", AllocatorKind::in_tree, "", "", "-", "allocstress", "in-tree", "", {}};
const AllocatorSpec kDropIn{"jemalloc", AllocatorKind::drop_in, "libjemalloc.so.2", "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2",
                            "libjemalloc2", "", "manifest", "", {}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  fuzz::fresh_process_state();
  const std::filesystem::path path = fuzz::input_file(data, size, "cell.json");
  Cell cell;
  if (!fuzz::within_contract<UsageError>("read_cell_file", [&] { cell = read_cell_file(path.string()); })) return 0;
  const nlohmann::json encoded = cell_to_json(cell);
  Cell again;
  fuzz::within_contract<>("cell_from_json of cell_to_json", [&] { again = cell_from_json(encoded); });
  fuzz::require(cell_to_json(again) == encoded, "a decoded cell does not encode back to the same JSON");
  for (const AllocatorSpec* spec : {&kInTree, &kDropIn})
    fuzz::within_contract<UsageError>("check_cell", [&] { check_cell(cell, *spec); });
  return 0;
}
