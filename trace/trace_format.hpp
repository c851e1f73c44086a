// The allocstress trace format, version 2: what the tracer (liballocstress_trace.so) writes, the
// importers produce, and the reader, replay, fit and the Python analysis read.
//
// One file per traced process (a forked child writes its own): PREFIX.<pid>.ast, or
// PREFIX.<pid>.<n>.ast when that name is taken (an exec'd image).  All integers little-endian.
//
//   file header   kFileHeaderBytes fixed bytes (FileHeader below), then `command_line_bytes`
//                 bytes: the process's argv, each argument ended by a NUL byte.  Version 2:
//                 `header_check` covers the fixed bytes (lengths, pid, clocks), `command_line_check`
//                 the command line, so a corrupt header is blamed on the header.
//   record*       blocks and end records, in the order they were written:
//     block       the events of ONE thread, in that thread's order:
//                   BlockHeader (kBlockHeaderBytes fixed bytes, header_check covers the rest)
//                   `compressed_bytes` bytes: one zstd frame (with content checksum) whose content
//                   is `encoded_bytes` bytes of encoded events (below).
//     end record  (version 2) EndRecord: how the process's tracing ended (exit, _exit, exec,
//                   signal N), the events and blocks written before it and the events lost.  The
//                   tracer writes one when the process ends; an exec that fails is followed by a
//                   `resumed` end record and more blocks.  A trace is whole when its last record
//                   is an end record other than `resumed`; a file without one was cut short
//                   (killed by SIGKILL, tracing stopped by an output error, a static child ...).
//
// A thread's blocks appear in its own order (block_seq 0, 1, 2, ... per thread); blocks of
// different threads interleave in flush order.  A block is appended with one write(), so a trace
// cut short (crash, kill -9, disk full) is readable up to its last complete block; a block that
// is incomplete at the end of the file is reported as truncation, a block that is complete but
// inconsistent as corruption (naming the file and offset).
//
// Events inside a block, encoded one after the other; every block starts from a zero state so
// that blocks decode independently:
//   byte    op (TraceOp)
//   varint  tsc - previous tsc (zigzag)          TSC ticks when the call was made (allocations:
//                                                right after the allocator returned; frees: right
//                                                before the block is handed back).  The tracer
//                                                reads RDTSC unserialized (cheaper), so across
//                                                threads a free precedes the reuse of its address
//                                                as long as the hand-over takes longer than the
//                                                CPU's reordering window (tens of cycles), which
//                                                the allocator's own synchronisation ensures.
//                                                Imported traces (kFlagImported) store the
//                                                event's position (0, 1, 2 ...) instead.
//   then by op class (op_class() below):
//     allocation  varint size (bytes requested; calloc: nmemb*size), zigzag address delta
//                 (0 = the call failed), and for aligned ops varint alignment
//     free        zigzag address delta, and for sized ops varint size, for aligned ops varint alignment
//     realloc     varint size, zigzag address delta (the result; 0 = failed or size 0),
//                 zigzag delta of the old address (0 = realloc(NULL, n))
//   if the file header's kFlagCallSites: zigzag call-site delta (the return address of the traced
//   call: one frame, not a stack)
// "delta" = value minus the previous value of the same field in the block (addresses: the
// previous address written, old addresses included).  varint = LEB128, 7 bits per byte.
//
// This header is free-standing (no allocation, no libstdc++ beyond <cstdint>/<cstring>) so the
// preloaded tracer can use it inside malloc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace allocstress::trace {

inline constexpr char kFileMagic[8] = {'A', 'S', 'T', 'R', 'A', 'C', 'E', '1'};
inline constexpr std::uint16_t kFormatVersion = 2;         // written
inline constexpr std::uint16_t kOldestFormatVersion = 1;   // read: versions 1 (no checks, no end records) and 2
inline constexpr std::uint32_t kBlockMagic = 0x4b4c4254;  // "TBLK" as little-endian bytes
inline constexpr std::uint32_t kEndMagic = 0x444e4554;    // "TEND" as little-endian bytes
inline constexpr std::size_t kFileHeaderBytes = 64;
inline constexpr std::size_t kBlockHeaderBytes = 48;
inline constexpr std::uint32_t kFlagCallSites = 1u << 0;  // events carry a call site
inline constexpr std::uint32_t kFlagImported = 1u << 1;   // converted from another format (no real TSC)
// Limits a reader enforces, so that a corrupt header cannot make it allocate without bound.
inline constexpr std::uint32_t kMaxBlockEvents = 1u << 20;
inline constexpr std::uint32_t kMaxEncodedEventBytes = 1 + 10 * 5;
inline constexpr std::uint32_t kMaxCommandLineBytes = 1u << 20;

enum class TraceOp : std::uint8_t {
  malloc = 0, calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc, pvalloc, reallocarray,
  op_new, op_new_array, op_new_nothrow, op_new_array_nothrow,
  op_new_aligned, op_new_array_aligned, op_new_aligned_nothrow, op_new_array_aligned_nothrow,
  op_delete, op_delete_array, op_delete_sized, op_delete_array_sized,
  op_delete_aligned, op_delete_array_aligned, op_delete_sized_aligned, op_delete_array_sized_aligned,
  op_delete_nothrow, op_delete_array_nothrow, op_delete_aligned_nothrow, op_delete_array_aligned_nothrow,
  count  // not an op: the number of ops
};

enum class OpClass : std::uint8_t { allocation, free, realloc };

inline constexpr OpClass op_class(TraceOp op) {
  switch (op) {
    case TraceOp::realloc: case TraceOp::reallocarray: return OpClass::realloc;
    case TraceOp::free: case TraceOp::op_delete: case TraceOp::op_delete_array: case TraceOp::op_delete_sized:
    case TraceOp::op_delete_array_sized: case TraceOp::op_delete_aligned: case TraceOp::op_delete_array_aligned:
    case TraceOp::op_delete_sized_aligned: case TraceOp::op_delete_array_sized_aligned: case TraceOp::op_delete_nothrow:
    case TraceOp::op_delete_array_nothrow: case TraceOp::op_delete_aligned_nothrow: case TraceOp::op_delete_array_aligned_nothrow:
      return OpClass::free;
    default: return OpClass::allocation;
  }
}

// Ops whose event carries an alignment.
inline constexpr bool op_has_alignment(TraceOp op) {
  switch (op) {
    case TraceOp::posix_memalign: case TraceOp::aligned_alloc: case TraceOp::memalign: case TraceOp::valloc: case TraceOp::pvalloc:
    case TraceOp::op_new_aligned: case TraceOp::op_new_array_aligned: case TraceOp::op_new_aligned_nothrow:
    case TraceOp::op_new_array_aligned_nothrow: case TraceOp::op_delete_aligned: case TraceOp::op_delete_array_aligned:
    case TraceOp::op_delete_sized_aligned: case TraceOp::op_delete_array_sized_aligned: case TraceOp::op_delete_aligned_nothrow:
    case TraceOp::op_delete_array_aligned_nothrow:
      return true;
    default: return false;
  }
}

// Free ops whose event carries the size the program passed (sized delete).
inline constexpr bool op_has_free_size(TraceOp op) {
  return op == TraceOp::op_delete_sized || op == TraceOp::op_delete_array_sized || op == TraceOp::op_delete_sized_aligned ||
         op == TraceOp::op_delete_array_sized_aligned;
}

// The name used in text output and by the Python reader ("malloc", "new[]", "delete_sized", ...).
inline constexpr const char* op_name(TraceOp op) {
  constexpr const char* names[] = {"malloc", "calloc", "realloc", "free", "posix_memalign", "aligned_alloc", "memalign",
                                   "valloc", "pvalloc", "reallocarray", "new", "new[]", "new_nothrow", "new[]_nothrow",
                                   "new_aligned", "new[]_aligned", "new_aligned_nothrow", "new[]_aligned_nothrow",
                                   "delete", "delete[]", "delete_sized", "delete[]_sized", "delete_aligned",
                                   "delete[]_aligned", "delete_sized_aligned", "delete[]_sized_aligned",
                                   "delete_nothrow", "delete[]_nothrow", "delete_aligned_nothrow",
                                   "delete[]_aligned_nothrow"};
  const auto i = static_cast<std::size_t>(op);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

// One event as decoded.  Fields an op does not carry are 0.
struct TraceEvent {
  std::uint64_t tsc = 0;
  std::uint64_t address = 0;      // allocation/realloc: the result; free: the block freed
  std::uint64_t old_address = 0;  // realloc: the block passed in
  std::uint64_t size = 0;         // bytes requested (sized delete: bytes passed)
  std::uint64_t alignment = 0;
  std::uint64_t call_site = 0;
  TraceOp op = TraceOp::malloc;
};

// An event from its fields (importers and tests build events this way).
inline TraceEvent make_event(TraceOp op, std::uint64_t tsc, std::uint64_t address, std::uint64_t size = 0, std::uint64_t old_address = 0,
                             std::uint64_t alignment = 0) {
  TraceEvent e;
  e.op = op;
  e.tsc = tsc;
  e.address = address;
  e.size = size;
  e.old_address = old_address;
  e.alignment = alignment;
  return e;
}

// The fixed part of the file header (kFileHeaderBytes on disk, in this field order).
struct FileHeader {
  char magic[8];                    // kFileMagic
  std::uint16_t version;            // kFormatVersion
  std::uint16_t header_bytes;       // kFileHeaderBytes (readers skip what they do not know)
  std::uint32_t flags;              // kFlag*
  std::uint32_t pid, ppid;
  std::uint64_t start_tsc;          // TSC when tracing started in this process
  std::uint64_t start_monotonic_ns; // CLOCK_MONOTONIC then
  std::uint64_t start_realtime_ns;  // CLOCK_REALTIME then (wall clock, for humans)
  std::uint32_t command_line_bytes;
  std::uint32_t header_check;       // version 2: file_header_check() (version 1: 0)
  std::uint32_t command_line_check; // version 2: command_line_check() (version 1: 0)
  std::uint32_t reserved;
};
static_assert(sizeof(FileHeader) == kFileHeaderBytes);

// The fixed block header (kBlockHeaderBytes on disk, in this field order).
struct BlockHeader {
  std::uint32_t magic;             // kBlockMagic
  std::uint32_t thread;            // thread index in this process: 0, 1, 2 ... in order of first event
  std::uint32_t tid;               // the kernel's thread id
  std::uint32_t block_seq;         // 0, 1, 2 ... per thread
  std::uint32_t events;            // 1 .. kMaxBlockEvents
  std::uint32_t encoded_bytes;     // size of the decompressed content
  std::uint32_t compressed_bytes;  // size of the zstd frame that follows
  std::uint32_t reserved;
  std::uint64_t flush_tsc;         // TSC and CLOCK_MONOTONIC when the block was written: with the
  std::uint64_t flush_monotonic_ns;//   file header's start pair they give the TSC rate
};
static_assert(sizeof(BlockHeader) == kBlockHeaderBytes);

// How the tracing of a process ended (EndRecord::cause).
enum class EndCause : std::uint32_t {
  exit = 1,      // normal exit: exit(), return from main (library destructor)
  exit_now = 2,  // _exit() / _Exit()
  exec = 3,      // the process replaced its image (the new image writes a file of its own)
  signal = 4,    // a fatal signal (EndRecord::signal) whose default action ends the process
  resumed = 5,   // an exec failed: the trace goes on (not an end)
  written = 6,   // written whole by a tool (TraceWriter: import, tests)
};
inline constexpr const char* end_cause_name(std::uint32_t cause) {
  constexpr const char* names[] = {"?", "exit", "_exit", "exec", "signal", "resumed", "written"};
  return cause < sizeof(names) / sizeof(names[0]) ? names[cause] : "?";
}

// The end record (version 2; kBlockHeaderBytes on disk, in this field order).
struct EndRecord {
  std::uint32_t magic;             // kEndMagic
  std::uint32_t cause;             // EndCause
  std::uint32_t signal;            // cause signal: the signal number, else 0
  std::uint32_t check;             // end_record_check()
  std::uint64_t events_written;    // events in the blocks this process wrote before this record
  std::uint64_t blocks_written;
  std::uint64_t lost_events;       // events recorded but not written (see the tracer's README)
  std::uint64_t end_monotonic_ns;  // CLOCK_MONOTONIC when written
};
static_assert(sizeof(EndRecord) == kBlockHeaderBytes);

// FNV-1a over `n` bytes, continuing from `x`.
inline std::uint32_t fnv1a(const void* data, std::size_t n, std::uint32_t x = 2166136261u) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) x = (x ^ p[i]) * 16777619u;
  return x;
}

// Check value over the block header with `reserved` = 0, stored in `reserved`.
inline std::uint32_t block_header_check(BlockHeader h) {
  h.reserved = 0;
  return fnv1a(&h, sizeof h);
}

// Check values of the file header (version 2): the fixed bytes with header_check 0 (the
// command line's check value included: compute it first), and the command line bytes.
inline std::uint32_t file_header_check(FileHeader h) {
  h.header_check = 0;
  return fnv1a(&h, sizeof h);
}
inline std::uint32_t command_line_check(const unsigned char* bytes, std::size_t n) { return fnv1a(bytes, n, 0x9e3779b9u); }

inline std::uint32_t end_record_check(EndRecord r) {
  r.check = 0;
  return fnv1a(&r, sizeof r);
}

// --- varint coding ------------------------------------------------------------------------

inline std::uint64_t zigzag(std::int64_t v) { return (std::uint64_t(v) << 1) ^ std::uint64_t(v >> 63); }
inline std::int64_t unzigzag(std::uint64_t v) { return std::int64_t(v >> 1) ^ -std::int64_t(v & 1); }

inline unsigned char* put_varint(unsigned char* out, std::uint64_t v) {
  while (v >= 0x80) {
    *out++ = static_cast<unsigned char>(v | 0x80);
    v >>= 7;
  }
  *out++ = static_cast<unsigned char>(v);
  return out;
}

// Reads one varint from [*in, end); false when it runs past `end` or exceeds 64 bits.
inline bool get_varint(const unsigned char*& in, const unsigned char* end, std::uint64_t& v) {
  v = 0;
  for (unsigned shift = 0; shift < 64; shift += 7) {
    if (in == end) return false;
    const unsigned char b = *in++;
    v |= std::uint64_t(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return shift < 63 || b <= 1;
  }
  return false;
}

// The delta state of one block; a fresh one per block.
struct CodecState {
  std::uint64_t tsc = 0, address = 0, call_site = 0;
};

// Appends one event at `out` (room for kMaxEncodedEventBytes needed); returns the new end.
inline unsigned char* encode_event(unsigned char* out, CodecState& s, const TraceEvent& e, bool call_sites) {
  *out++ = static_cast<unsigned char>(e.op);
  out = put_varint(out, zigzag(std::int64_t(e.tsc - s.tsc)));
  s.tsc = e.tsc;
  auto address = [&](std::uint64_t a) {
    out = put_varint(out, zigzag(std::int64_t(a - s.address)));
    s.address = a;
  };
  switch (op_class(e.op)) {
    case OpClass::allocation:
      out = put_varint(out, e.size);
      address(e.address);
      break;
    case OpClass::free:
      address(e.address);
      if (op_has_free_size(e.op)) out = put_varint(out, e.size);
      break;
    case OpClass::realloc:
      out = put_varint(out, e.size);
      address(e.address);
      address(e.old_address);
      break;
  }
  if (op_has_alignment(e.op)) out = put_varint(out, e.alignment);
  if (call_sites) {
    out = put_varint(out, zigzag(std::int64_t(e.call_site - s.call_site)));
    s.call_site = e.call_site;
  }
  return out;
}

// Decodes one event from [*in, end); false (with *in unspecified) when the bytes are not a valid event.
inline bool decode_event(const unsigned char*& in, const unsigned char* end, CodecState& s, TraceEvent& e, bool call_sites) {
  if (in == end || *in >= static_cast<unsigned char>(TraceOp::count)) return false;
  e = TraceEvent{};
  e.op = static_cast<TraceOp>(*in++);
  std::uint64_t v = 0;
  if (!get_varint(in, end, v)) return false;
  e.tsc = s.tsc += std::uint64_t(unzigzag(v));
  auto address = [&](std::uint64_t& field) {
    if (!get_varint(in, end, v)) return false;
    field = s.address += std::uint64_t(unzigzag(v));
    return true;
  };
  switch (op_class(e.op)) {
    case OpClass::allocation:
      if (!get_varint(in, end, e.size) || !address(e.address)) return false;
      break;
    case OpClass::free:
      if (!address(e.address)) return false;
      if (op_has_free_size(e.op) && !get_varint(in, end, e.size)) return false;
      break;
    case OpClass::realloc:
      if (!get_varint(in, end, e.size) || !address(e.address) || !address(e.old_address)) return false;
      break;
  }
  if (op_has_alignment(e.op) && !get_varint(in, end, e.alignment)) return false;
  if (call_sites) {
    if (!get_varint(in, end, v)) return false;
    e.call_site = s.call_site += std::uint64_t(unzigzag(v));
  }
  return true;
}

}  // namespace allocstress::trace
