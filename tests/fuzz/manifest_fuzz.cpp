// libFuzzer target for the allocator manifest (allocators/manifest.tsv; allocators/allocator_catalog.hpp),
// which every command reads through load_catalog (`--manifest FILE`, $ALLOCSTRESS_MANIFEST).
//
// Contract: load_catalog(path, {}) on any bytes either returns the catalogue or throws
// UsageError (one line naming the file and line).  A returned catalogue holds the in-tree
// backends first, then one drop-in per manifest entry, each with a valid, unique name (letters,
// digits, _-.; not "all") that find() finds, and a library path resolved or a reason why not.
// Any other exception, a crash, a sanitizer report, a leak, a timeout or an allocation beyond
// libFuzzer's limit is a finding.
#include <set>

#include "allocators/allocator_catalog.hpp"
#include "platform/errors.hpp"
#include "tests/fuzz/fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace allocstress;
  const std::filesystem::path path = fuzz::input_file(data, size, "manifest.tsv");
  std::vector<AllocatorSpec> specs;
  if (!fuzz::within_contract<UsageError>("load_catalog", [&] {
        const AllocatorCatalog catalog = load_catalog(path.string(), {});
        specs = catalog.all();
        for (const AllocatorSpec& s : specs) fuzz::require(catalog.find_or_suggest(s.name).name == s.name, "find() misses " + s.name);
      }))
    return 0;
  std::set<std::string> names;
  bool drop_ins = false;
  for (const AllocatorSpec& s : specs) {
    fuzz::require(names.insert(s.name).second, "allocator " + s.name + " is listed twice");
    fuzz::require(!s.name.empty() && s.name != kAllAllocators && s.name.find_first_not_of(
                      "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") == std::string::npos,
                  "accepted the allocator name '" + s.name + "'");
    fuzz::require(!drop_ins || s.kind == AllocatorKind::drop_in, "an in-tree backend after a drop-in");
    drop_ins = s.kind == AllocatorKind::drop_in;
    if (s.kind == AllocatorKind::drop_in)
      fuzz::require(!s.library.empty() && (s.library_path.empty() != s.unavailable_reason.empty()),
                    "drop-in " + s.name + " has no library, or neither a path nor a reason");
  }
  return 0;
}
