// The trace file of this process and the block writer.
//
// Contract: the file PREFIX.<pid>.ast (the pid of the process that owns the trace, never a vfork
// child's) is created (O_EXCL; PREFIX.<pid>.1.ast, .2, ... when the
// name is taken, e.g. by the image before an exec) when the first block is written or when the
// process ends, whichever comes first, with the file header (pid, ppid, start TSC/monotonic/
// realtime, /proc/self/cmdline) in one write().  Each block - block header (check value), then
// one zstd frame with content checksum - is appended with ONE write() on the O_APPEND descriptor,
// so a process killed at any point leaves a file readable up to its last complete block; the
// end record (output_end) says the process ended and how.
// Compression uses static zstd contexts in mmap'd memory (no malloc), a small pool of them so
// that threads flushing at the same time rarely wait for one another.  Any failure (cannot create
// the file, disk full) is reported once and turns tracing off; nothing more is written.
#pragma once

#include <cstdint>

#include "trace/trace_format.hpp"

namespace allocstress::tracer {

// Largest encoded block: the per-thread buffer capacity.
inline constexpr std::uint32_t kBlockBytes = 64 * 1024;

// Records the start of tracing in this process (file header fields).  Called at set-up and in a
// fork child (which traces into a file of its own).
void output_mark_start();
// In a fork child: forgets the parent's file (closes the inherited descriptor) and every lock
// holder (they are threads of the parent), then output_mark_start().
void output_after_fork_child();

struct BlockIdentity {
  std::uint32_t thread, tid, block_seq, events;
};
// Compresses and appends one block.  `self` is the calling thread's id (lock ownership).
// Returns false when nothing was written (tracing is off, or the block was dropped because a
// compressor is held by this very thread: a signal arrived in the middle of its own flush).
bool write_block(const BlockIdentity& id, const unsigned char* encoded, std::uint32_t encoded_bytes, std::uint32_t self);

// Writes the end record (trace_format.hpp): `cause` exit, _exit, exec or signal (`signal` its
// number) with the counts of events and blocks written and g_lost_events; nothing is appended
// after it.  `resumed` (an exec failed) writes a resumed record and lets blocks follow again.
// `create`: create the file if no block did (a process that ends having allocated nothing still
// leaves its header); an exec does not (its image may have recorded nothing).  Does nothing in a
// process that does not own the trace (process_owns_trace()).
void output_end(trace::EndCause cause, int signal, bool create, std::uint32_t self);

}  // namespace allocstress::tracer
