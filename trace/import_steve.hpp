// Importer of Steve's ops text format into an allocstress trace.
//
// The input, one operation per line (fields separated by spaces or tabs):
//   HANDLE N ADDRESS SIZE     a new block of SIZE bytes, named HANDLE from now on
//   HANDLE F [ADDRESS [SIZE]] free the block HANDLE names
//   HANDLE L ... / HANDLE U   lock / unlock (for compacting allocators): skipped and counted
//   blank lines and lines whose first non-blank character is '#': skipped and counted
// HANDLE is any token; ADDRESS and SIZE are decimal or 0x-hexadecimal numbers.
//
// Model: handles, not addresses, identify blocks (a compacting allocator moves blocks, so an
// address can name different blocks over time).  ADDRESS is checked to be a number and otherwise
// not used; F's optional fields likewise.  A handle may be reused once its block is freed.
//
// Output: one thread (index 0, tid 0) of malloc and free events in file order, flag
// kFlagImported, no process id or command line.  Each block gets a synthetic address, 16·n for
// the n-th N line (n from 1), never reused, so an address names exactly one block.  `tsc` is the
// event's index in the trace (0, 1, 2 ...): imported traces have no clock.
//
// Contract: throws std::runtime_error "FILE: line N: what was wrong (what is accepted)" on bad
// input, including F of a handle that is not live (never allocated or already freed), N of a
// handle that is still live, and a file without any N line; the output then does not exist
// (TraceWriter writes OUT.partial and renames it only on success).  Blocks never freed are fine.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace allocstress::trace {

struct SteveImport {
  std::uint64_t events = 0;
  std::uint64_t allocations = 0, frees = 0;
  std::uint64_t never_freed = 0;        // blocks still live at the end of the file
  std::uint64_t lock_unlock_lines = 0;  // L and U lines (skipped)
  std::uint64_t blank_or_comment_lines = 0;
  std::string summary() const;          // one line for the CLI
};

// Reads `input`, writes the trace to `output` (replacing an existing file only when `overwrite`).
SteveImport import_steve(const std::filesystem::path& input, const std::filesystem::path& output, bool overwrite);

}  // namespace allocstress::trace
