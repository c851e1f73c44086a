// The fingerprint of the process's malloc (BACKGROUND §3, the MemPerf pre-run), measured in a
// fresh process where the allocator under test is the one `malloc` resolves to:
//   size classes   usable size (malloc_usable_size of the same library) of requests 8..64 KiB in
//                  8-byte steps; a class is a run of requests with the same usable size;
//   style          BiBOP (size-segregated pages) or sequential: do a 16-byte and a 48-byte block
//                  allocated one after the other share a page?  Eight pairs are tried;
//   large-object   the smallest request whose blocks lie in fresh memory mappings (not the brk
//   threshold      heap, not a mapping that existed before the call), three times in a row: once
//                  at start, once after freeing one block of four times that size (glibc's
//                  threshold moves up when an mmapped block is freed);
//   min alignment  the largest power of two dividing every address returned for 1..512 bytes.
// Probing reads /proc/self/maps without allocating, so the probe does not disturb the allocator
// it is observing.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>

namespace allocstress {

// pre: malloc in this process is the allocator to fingerprint (verified by the caller).
nlohmann::json fingerprint_process_malloc();

// malloc_usable_size of the library malloc resolves to, or nullptr when that library does not
// define one (calling glibc's on another allocator's block would be undefined).
using UsableSizeFunction = std::size_t (*)(void*);
UsableSizeFunction checked_usable_size();

}  // namespace allocstress
