// The trace file of this process and the block writer.
//
// Contract: the file PREFIX.<pid>.ast is created (O_EXCL; PREFIX.<pid>.1.ast, .2, ... when the
// name is taken, e.g. by the image before an exec) when the first block is written or when the
// process ends, whichever comes first, with the file header (pid, ppid, start TSC/monotonic/
// realtime, /proc/self/cmdline) in one write().  Each block - block header (check value), then
// one zstd frame with content checksum - is appended with ONE write() on the O_APPEND descriptor,
// so a process killed at any point leaves a file readable up to its last complete block.
// Compression uses static zstd contexts in mmap'd memory (no malloc), a small pool of them so
// that threads flushing at the same time rarely wait for one another.  Any failure (cannot create
// the file, disk full) is reported once and turns tracing off; nothing more is written.
#pragma once

#include <cstdint>

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

// Creates the file if no block did (a process that allocated nothing still leaves its header).
void output_ensure_file(std::uint32_t self);

}  // namespace allocstress::tracer
