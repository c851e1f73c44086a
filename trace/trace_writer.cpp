// TraceWriter: per-thread buffers -> encoded, zstd-compressed blocks (see trace_writer.hpp).
#include "trace_writer.hpp"

#include <fcntl.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace allocstress::trace {

TraceWriter::TraceWriter(std::filesystem::path path, const TraceOrigin& origin, bool overwrite, std::uint32_t block_events, int zstd_level)
    : path_(std::move(path)), partial_(path_.string() + ".partial"), origin_(origin), block_events_(block_events), level_(zstd_level) {
  if (block_events_ == 0 || block_events_ > kMaxBlockEvents) throw std::invalid_argument("block_events out of range");
  std::error_code ec;
  if (!overwrite && std::filesystem::exists(path_, ec)) throw std::runtime_error(path_.string() + ": exists (pass --force to overwrite)");
  fd_ = ::open(partial_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error(partial_.string() + ": cannot create (" + std::strerror(errno) + ")");
  std::string args;
  for (const auto& a : origin_.command_line) args += a + '\0';
  FileHeader h{};
  std::memcpy(h.magic, kFileMagic, sizeof h.magic);
  h.version = kFormatVersion;
  h.header_bytes = kFileHeaderBytes;
  h.flags = origin_.flags;
  h.pid = origin_.pid;
  h.ppid = origin_.ppid;
  h.start_tsc = origin_.start_tsc;
  h.start_monotonic_ns = origin_.start_monotonic_ns;
  h.start_realtime_ns = origin_.start_realtime_ns;
  h.command_line_bytes = std::uint32_t(args.size());
  h.command_line_check = command_line_check(reinterpret_cast<const unsigned char*>(args.data()), args.size());
  h.header_check = file_header_check(h);
  write_bytes(&h, sizeof h);
  write_bytes(args.data(), args.size());
}

TraceWriter::~TraceWriter() {
  if (fd_ >= 0) {
    ::close(fd_);
    std::error_code ec;
    std::filesystem::remove(partial_, ec);
  }
}

void TraceWriter::write_bytes(const void* data, std::size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd_, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) throw std::runtime_error(partial_.string() + ": write failed (" + std::strerror(errno) + ")");
    p += w;
    n -= std::size_t(w);
  }
}

void TraceWriter::add(std::uint32_t thread, std::uint32_t tid, const TraceEvent& event) {
  Pending& p = pending_[thread];
  p.tid = tid;
  p.events.push_back(event);
  ++events_;
  if (p.events.size() >= block_events_) write_block(thread, p);
}

void TraceWriter::write_block(std::uint32_t thread, Pending& p) {
  if (p.events.empty()) return;
  const bool call_sites = (origin_.flags & kFlagCallSites) != 0;
  std::vector<unsigned char> encoded(p.events.size() * kMaxEncodedEventBytes);
  unsigned char* out = encoded.data();
  CodecState state;
  for (const TraceEvent& e : p.events) out = encode_event(out, state, e, call_sites);
  encoded.resize(std::size_t(out - encoded.data()));
  std::vector<unsigned char> frame(ZSTD_compressBound(encoded.size()));
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level_);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const std::size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), encoded.data(), encoded.size());
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(n)) throw std::runtime_error(std::string("zstd compression failed: ") + ZSTD_getErrorName(n));
  BlockHeader h{};
  h.magic = kBlockMagic;
  h.thread = thread;
  h.tid = p.tid;
  h.block_seq = p.next_seq++;
  h.events = std::uint32_t(p.events.size());
  h.encoded_bytes = std::uint32_t(encoded.size());
  h.compressed_bytes = std::uint32_t(n);
  h.flush_tsc = p.events.back().tsc;
  h.flush_monotonic_ns = 0;
  h.reserved = block_header_check(h);
  write_bytes(&h, sizeof h);
  write_bytes(frame.data(), n);
  blocks_ += 1;
  p.events.clear();
}

void TraceWriter::finish() {
  for (auto& [thread, p] : pending_) write_block(thread, p);
  EndRecord r{};
  r.magic = kEndMagic;
  r.cause = std::uint32_t(EndCause::written);
  r.events_written = events_;
  r.blocks_written = blocks_;
  r.check = end_record_check(r);
  write_bytes(&r, sizeof r);
  if (::fsync(fd_) != 0) throw std::runtime_error(partial_.string() + ": fsync failed (" + std::strerror(errno) + ")");
  ::close(fd_);
  fd_ = -1;
  std::error_code ec;
  std::filesystem::rename(partial_, path_, ec);
  if (ec) {
    std::filesystem::remove(partial_, ec);
    throw std::runtime_error(path_.string() + ": cannot move the finished trace into place (" + ec.message() + ")");
  }
}

}  // namespace allocstress::trace
