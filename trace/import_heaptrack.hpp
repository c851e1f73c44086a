// Importer of heaptrack data files (heaptrack 1.x, file format versions 1-3; verified on the
// files heaptrack 1.4 writes, format 3) into an allocstress trace.
//
// Input: the file `heaptrack PROGRAM` writes (heaptrack.PROGRAM.PID.zst: one or more zstd
// frames of text), or that text uncompressed (`zstd -dc`).  The text is heaptrack_interpret's
// output, one record per line, numbers in lowercase hexadecimal without 0x:
//   v HEAPTRACK_VERSION FILE_VERSION   first line
//   X ARGS                             the command line, arguments joined by single spaces
//                                      (an argument with newlines runs on to the I line)
//   I PAGE_SIZE PAGES                  system information
//   s LENGTH STRING | s STRING         interned string (sized from file version 3)
//   t IP_INDEX PARENT_TRACE_INDEX      call-stack tree node
//   i IP MODULE [FUNCTION FILE LINE]*  instruction pointer
//   a SIZE TRACE_INDEX                 allocation info: the k-th a line is info k (from 0)
//   + INFO_INDEX                       an allocation of info's size at info's call stack
//   - INFO_INDEX                       a free of a block allocated through that info
//   c MILLISECONDS                     time since start (every ~10 ms and at exit)
//   R RSS_PAGES                        resident set size then
//   S SUPPRESSION, A                   leak suppression; "attached to a running process"
//   # COMMENT, empty lines
// Only v, X, a, +, - and c carry what the trace needs; the other kinds are skipped and counted.
//
// What heaptrack does not record, and what the importer does about it:
// - threads: heaptrack writes all threads' calls into one stream under one lock: the trace has
//   ONE thread (index 0, tid 0) in heaptrack's global order, so a replay is single-threaded;
// - addresses: each + gets a synthetic address, 16·n for the n-th + (n from 1), never reused;
// - op kinds: malloc, calloc, new ... are all '+' (imported as malloc), every release is '-'
//   (imported as free); a realloc is a '-' of the old block followed by a '+' of the new one
//   (heaptrack's own split), so the trace has no realloc events;
// - which block a '-' frees: only its allocation info is known.  Pairing policy: LIFO per
//   info, the most recent live block of that info.  All blocks of one info have the same size,
//   so live bytes (and their peak) are exact whatever the pairing; lifetimes are not: LIFO is
//   exact for a block freed before the next allocation of its info (heaptrack's "temporary"
//   allocations) and otherwise makes short lifetimes shorter and long ones longer than they
//   were when blocks of one call site die in allocation order;
// - time: the clock lines are milliseconds, too coarse for ordering; `tsc` is the event's index
//   in the trace (0, 1, 2 ...) and the flag kFlagImported marks the trace as having no clock.
// The process id is taken from a file name of the form heaptrack.NAME.PID[.zst] (else 0).
//
// Contract: throws std::runtime_error on bad input, one line "FILE: line N: what (accepted)"
// for the text, "FILE: offset N: what (accepted)" for the compressed bytes (a file that is
// neither zstd nor heaptrack text, a cut or corrupt zstd frame, gzip-compressed or raw
// pre-interpret data); also for a '+'/'-' naming an info that no 'a' line defined, a '-' of
// an info without a live block (heaptrack_interpret never writes one) and a file without any
// '+'.  The output then does not exist (TraceWriter renames OUT.partial only on success).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace allocstress::trace {

struct HeaptrackImport {
  std::uint64_t events = 0;
  std::uint64_t allocations = 0, frees = 0;
  std::uint64_t never_freed = 0;       // blocks still live at the end of the file
  std::uint64_t allocation_infos = 0;  // 'a' lines
  std::uint64_t skipped_lines = 0;     // lines of the other kinds (strings, stacks, clock, RSS, comments, empty)
  std::uint64_t duration_ms = 0;       // the last 'c' line
  std::uint32_t file_version = 0;
  bool compressed = false;
  std::string summary() const;         // one line for the CLI
};

// Reads `input`, writes the trace to `output` (replacing an existing file only when `overwrite`).
HeaptrackImport import_heaptrack(const std::filesystem::path& input, const std::filesystem::path& output, bool overwrite);

}  // namespace allocstress::trace
