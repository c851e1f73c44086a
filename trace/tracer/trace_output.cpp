// Trace file creation and block writing (see trace_output.hpp).
#include "trace_output.hpp"

#define ZSTD_STATIC_LINKING_ONLY
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zstd.h>

#include <cstring>

#include "spin_lock.hpp"
#include "trace/trace_format.hpp"
#include "tracer_clock.hpp"
#include "tracer_messages.hpp"
#include "tracer_state.hpp"

namespace allocstress::tracer {

namespace {

using trace::BlockHeader;
using trace::FileHeader;

// Everything below `lock` is changed with it held; blocks and end records are written with it
// held too, so that nothing is appended after the end record.
struct FileState {
  SpinLock lock;
  int fd = -1;
  bool failed = false;  // creation failed: never retried
  bool ended = false;   // the end record is written (until an exec fails: `resumed`)
  std::uint64_t events_written = 0, blocks_written = 0;
  FileHeader header{};  // start fields filled by output_mark_start()
  char path[kMaxPrefixBytes + 64] = "";
};
constinit FileState g_file;

// One static zstd context and the output buffer of one block (header + frame).
struct Compressor {
  SpinLock lock;
  ZSTD_CCtx* cctx = nullptr;
  unsigned char* out = nullptr;
  std::size_t out_capacity = 0;
};
constexpr unsigned kMaxCompressors = 8;
Compressor g_compressors[kMaxCompressors];
std::atomic<unsigned> g_compressor_count{0};

// Output failure: one line, tracing off for good.
void fail(const char* what, const char* path, int error) {
  if (g_tracing.exchange(false)) report_error(what, path, ": ", strerrordesc_np(error), "; tracing stopped, the trace ends here");
}

bool create_compressor(Compressor& c) {
  const ZSTD_compressionParameters params = ZSTD_getCParams(g_config.level, kBlockBytes, 0);
  const std::size_t workspace = (ZSTD_estimateCCtxSize_usingCParams(params) + 4095) & ~std::size_t(4095);
  const std::size_t out = (trace::kBlockHeaderBytes + ZSTD_compressBound(kBlockBytes) + 4095) & ~std::size_t(4095);
  void* mem = mmap(nullptr, workspace + out, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    fail("cannot map memory for a zstd context", "", errno);
    return false;
  }
  c.cctx = ZSTD_initStaticCCtx(mem, workspace);
  if (c.cctx == nullptr || ZSTD_isError(ZSTD_CCtx_setParameter(c.cctx, ZSTD_c_compressionLevel, g_config.level)) ||
      ZSTD_isError(ZSTD_CCtx_setParameter(c.cctx, ZSTD_c_checksumFlag, 1))) {
    munmap(mem, workspace + out);
    c.cctx = nullptr;
    if (g_tracing.exchange(false)) report_error("cannot set up a static zstd context at level ", g_config.level, "; tracing stopped");
    return false;
  }
  c.out = static_cast<unsigned char*>(mem) + workspace;
  c.out_capacity = out;
  return true;
}

// A free compressor, locked by `self`; nullptr when tracing stopped or only compressors held by
// `self` itself remain (re-entry from a signal handler).
Compressor* borrow_compressor(std::uint32_t self) {
  unsigned count = g_compressor_count.load(std::memory_order_acquire);
  if (count == 0) {
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned want = cpus < 2 ? 2u : cpus > long(kMaxCompressors) ? kMaxCompressors : unsigned(cpus);
    g_compressor_count.compare_exchange_strong(count, want);
    count = g_compressor_count.load(std::memory_order_acquire);
  }
  for (unsigned spins = 0;; ++spins) {
    bool others_hold_one = false;
    for (unsigned i = 0; i < count; ++i) {
      Compressor& c = g_compressors[i];
      if (c.lock.try_lock(self)) {
        if (c.cctx == nullptr && !create_compressor(c)) {
          c.lock.unlock();
          return nullptr;
        }
        return &c;
      }
      if (!c.lock.held_by(self)) others_hold_one = true;
    }
    if (!others_hold_one || !g_tracing.load(std::memory_order_relaxed)) return nullptr;
    if (spins < 64) cpu_relax();
    else sched_yield();
  }
}

// Appends "<v>" in decimal at p.
char* put_decimal(char* p, std::uint64_t v) {
  char digits[24];
  int k = 0;
  do digits[k++] = char('0' + v % 10); while ((v /= 10) != 0);
  while (k > 0) *p++ = digits[--k];
  return p;
}

// Reads /proc/self/cmdline into `out` (at most `cap` bytes, cut at an argument boundary).
std::uint32_t read_command_line(unsigned char* out, std::uint32_t cap) {
  const int fd = ::open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  std::uint32_t n = 0;
  while (n < cap) {
    const ssize_t r = ::read(fd, out + n, cap - n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    n += std::uint32_t(r);
  }
  ::close(fd);
  if (n == cap)  // possibly cut inside an argument: keep whole arguments only
    while (n > 0 && out[n - 1] != 0) --n;
  return n;
}

// Creates the file and writes its header; pre: g_file.lock held, fd < 0, !failed.
void create_file() {
  char path[kMaxPrefixBytes + 64];
  const std::size_t prefix_len = std::strlen(g_config.prefix);
  std::memcpy(path, g_config.prefix, prefix_len);
  char* const tail = path + prefix_len;
  const std::uint64_t pid = std::uint64_t(getpid());
  int fd = -1;
  for (std::uint64_t attempt = 0; fd < 0; ++attempt) {
    char* p = tail;
    *p++ = '.';
    p = put_decimal(p, pid);
    if (attempt > 0) {
      *p++ = '.';
      p = put_decimal(p, attempt);
    }
    std::memcpy(p, ".ast", 5);
    fd = ::open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 && (errno != EEXIST || attempt == 1000)) {
      g_file.failed = true;
      fail("cannot create the trace file ", path, errno);
      return;
    }
  }
  // Header and command line in one buffer, one write().
  const std::size_t cap = trace::kFileHeaderBytes + trace::kMaxCommandLineBytes;
  void* mem = mmap(nullptr, cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    g_file.failed = true;
    ::close(fd);
    ::unlink(path);
    fail("cannot map memory for the file header of ", path, errno);
    return;
  }
  auto* bytes = static_cast<unsigned char*>(mem);
  FileHeader& h = g_file.header;
  std::memcpy(h.magic, trace::kFileMagic, sizeof h.magic);
  h.version = trace::kFormatVersion;
  h.header_bytes = trace::kFileHeaderBytes;
  h.flags = g_config.call_sites ? trace::kFlagCallSites : 0;
  h.pid = std::uint32_t(pid);
  h.ppid = std::uint32_t(getppid());
  h.command_line_bytes = read_command_line(bytes + trace::kFileHeaderBytes, trace::kMaxCommandLineBytes);
  h.command_line_check = trace::command_line_check(bytes + trace::kFileHeaderBytes, h.command_line_bytes);
  h.header_check = trace::file_header_check(h);
  std::memcpy(bytes, &h, sizeof h);
  const std::size_t total = trace::kFileHeaderBytes + h.command_line_bytes;
  const ssize_t w = ::write(fd, bytes, total);
  const int error = errno;
  munmap(mem, cap);
  if (w != ssize_t(total)) {
    g_file.failed = true;
    ::close(fd);
    ::unlink(path);
    fail("cannot write the file header of ", path, w < 0 ? error : ENOSPC);
    return;
  }
  g_file.fd = fd;
  std::memcpy(g_file.path, path, sizeof path);
}

// Appends `n` bytes (one block of `events` events, or an end record) with one write(), creating
// the file first if needed.  False when nothing was written: tracing is off, this process does
// not own the trace (vfork child), the end record is already written, or g_file.lock is held by
// `self` (a signal handler interrupted this thread's own write).
bool append_record(std::uint32_t self, const void* data, std::size_t n, std::uint32_t events) {
  if (!process_owns_trace() || g_file.lock.held_by(self)) return false;
  g_file.lock.lock(self);
  if (!g_tracing.load(std::memory_order_relaxed) || g_file.ended) {
    g_file.lock.unlock();
    return false;
  }
  if (g_file.fd < 0 && !g_file.failed) create_file();
  if (g_file.fd < 0) {
    g_file.lock.unlock();
    return false;
  }
  ssize_t w;
  do w = ::write(g_file.fd, data, n);
  while (w < 0 && errno == EINTR);
  const int error = errno;
  if (w == ssize_t(n) && events > 0) {
    g_file.events_written += events;
    ++g_file.blocks_written;
  }
  g_file.lock.unlock();
  if (w != ssize_t(n)) {
    fail("cannot append a block to ", g_file.path, w < 0 ? error : ENOSPC);
    return false;
  }
  return true;
}

}  // namespace

void output_mark_start() {
  g_file.header.start_tsc = read_tsc();
  g_file.header.start_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
  g_file.header.start_realtime_ns = clock_ns(CLOCK_REALTIME);
}

void output_after_fork_child() {
  if (g_file.fd >= 0) ::close(g_file.fd);
  g_file.fd = -1;
  g_file.ended = false;
  g_file.events_written = g_file.blocks_written = 0;
  g_file.lock.reset();
  for (Compressor& c : g_compressors) c.lock.reset();
  output_mark_start();
}

bool write_block(const BlockIdentity& id, const unsigned char* encoded, std::uint32_t encoded_bytes, std::uint32_t self) {
  if (!g_tracing.load(std::memory_order_relaxed) || !process_owns_trace()) return false;
  Compressor* c = borrow_compressor(self);
  if (c == nullptr) return false;
  const std::size_t n =
      ZSTD_compress2(c->cctx, c->out + trace::kBlockHeaderBytes, c->out_capacity - trace::kBlockHeaderBytes, encoded, encoded_bytes);
  if (ZSTD_isError(n)) {
    c->lock.unlock();
    if (g_tracing.exchange(false)) report_error("zstd compression failed (", ZSTD_getErrorName(n), "); tracing stopped, the trace ends here");
    return false;
  }
  BlockHeader h{};
  h.magic = trace::kBlockMagic;
  h.thread = id.thread;
  h.tid = id.tid;
  h.block_seq = id.block_seq;
  h.events = id.events;
  h.encoded_bytes = encoded_bytes;
  h.compressed_bytes = std::uint32_t(n);
  h.flush_tsc = read_tsc();
  h.flush_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
  h.reserved = trace::block_header_check(h);
  std::memcpy(c->out, &h, sizeof h);
  const bool written = append_record(self, c->out, trace::kBlockHeaderBytes + n, id.events);
  c->lock.unlock();
  return written;
}

void output_end(trace::EndCause cause, int signal, bool create, std::uint32_t self) {
  if (!g_tracing.load(std::memory_order_relaxed) || !process_owns_trace() || g_file.lock.held_by(self)) return;
  g_file.lock.lock(self);
  const bool resumed = cause == trace::EndCause::resumed;
  if (resumed ? !g_file.ended : g_file.ended) {
    g_file.lock.unlock();
    return;
  }
  if (g_file.fd < 0 && !g_file.failed && create) create_file();
  if (g_file.fd < 0) {
    g_file.lock.unlock();
    return;
  }
  trace::EndRecord r{};
  r.magic = trace::kEndMagic;
  r.cause = std::uint32_t(cause);
  r.signal = std::uint32_t(signal);
  r.events_written = g_file.events_written;
  r.blocks_written = g_file.blocks_written;
  r.lost_events = g_lost_events.load(std::memory_order_relaxed);
  r.end_monotonic_ns = clock_ns(CLOCK_MONOTONIC);
  r.check = trace::end_record_check(r);
  ssize_t w;
  do w = ::write(g_file.fd, &r, sizeof r);
  while (w < 0 && errno == EINTR);
  const int error = errno;
  if (w == ssize_t(sizeof r)) g_file.ended = !resumed;
  g_file.lock.unlock();
  if (w != ssize_t(sizeof r)) fail("cannot append the end record to ", g_file.path, w < 0 ? error : ENOSPC);
}

}  // namespace allocstress::tracer
