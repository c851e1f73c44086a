// Trace reader: walks the blocks, checks each header, decompresses and decodes (see trace_reader.hpp).
#include "trace_reader.hpp"

#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

namespace allocstress::trace {

namespace {

const char* const kAccepted = "accepted: an allocstress trace (format version 1 or 2) written by liballocstress_trace.so or `allocstress import`";

// " (SIGSEGV)" for the signals a trace usually ends with, else "".
std::string signal_name(std::uint32_t sig) {
  switch (sig) {
    case 1: return " (SIGHUP)";
    case 2: return " (SIGINT)";
    case 3: return " (SIGQUIT)";
    case 4: return " (SIGILL)";
    case 6: return " (SIGABRT)";
    case 7: return " (SIGBUS)";
    case 8: return " (SIGFPE)";
    case 11: return " (SIGSEGV)";
    case 15: return " (SIGTERM)";
    case 24: return " (SIGXCPU)";
    case 25: return " (SIGXFSZ)";
    case 31: return " (SIGSYS)";
    default: return "";
  }
}

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

FileHeader read_file_header(std::span<const unsigned char> bytes, const std::string& name) {
  FileHeader h{};
  if (bytes.empty()) throw TraceError(name, 0, std::string("empty file (") + kAccepted + ")");
  // A file shorter than the magic is foreign unless its bytes are the magic's beginning.
  if (std::memcmp(bytes.data(), kFileMagic, std::min(bytes.size(), sizeof kFileMagic)) != 0)
    throw TraceError(name, 0, std::string("not an allocstress trace (no ASTRACE1 magic; ") + kAccepted +
                                  "; other formats: `allocstress import --format steve|heaptrack`)");
  if (bytes.size() < kFileHeaderBytes)
    throw TraceError(name, bytes.size(), "file ends inside the " + std::to_string(kFileHeaderBytes) + "-byte file header");
  std::memcpy(&h, bytes.data(), sizeof h);
  if (h.version < kOldestFormatVersion || h.version > kFormatVersion)
    throw TraceError(name, offsetof(FileHeader, version),
                     "format version " + std::to_string(h.version) + " (accepted: versions " + std::to_string(kOldestFormatVersion) + " to " +
                         std::to_string(kFormatVersion) + ")");
  // Version 2 covers the fixed fields with a check value: a corrupt length, pid or clock is
  // blamed on the header, before any length is used.
  if (h.version >= 2 && h.header_check != file_header_check(h))
    throw TraceError(name, offsetof(FileHeader, header_check),
                     "file header check value mismatch: corrupt file header (its lengths, pid and clocks cannot be trusted)");
  if (h.header_bytes < kFileHeaderBytes)
    throw TraceError(name, offsetof(FileHeader, header_bytes),
                     "header size " + std::to_string(h.header_bytes) + " is below " + std::to_string(kFileHeaderBytes));
  if (h.command_line_bytes > kMaxCommandLineBytes)
    throw TraceError(name, offsetof(FileHeader, command_line_bytes), "command line of " + std::to_string(h.command_line_bytes) + " bytes (limit " +
                                   std::to_string(kMaxCommandLineBytes) + ")");
  if (bytes.size() < std::uint64_t(h.header_bytes) + h.command_line_bytes)
    throw TraceError(name, bytes.size(), "file ends inside the command line of the file header");
  if (h.version >= 2 && h.command_line_check != command_line_check(bytes.data() + h.header_bytes, h.command_line_bytes))
    throw TraceError(name, h.header_bytes, "file header check value mismatch: corrupt command line");
  return h;
}

std::vector<std::string> split_command_line(std::span<const unsigned char> raw) {
  std::vector<std::string> args;
  std::string current;
  for (unsigned char c : raw) {
    if (c == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(char(c));
    }
  }
  if (!current.empty()) args.push_back(current);
  return args;
}

// An end record at `at` (version 2): checked, and its counts against the blocks before it.
void read_end_record(const unsigned char* p, std::uint64_t at, std::uint64_t events, TraceContents& out, const std::string& name) {
  EndRecord r{};
  std::memcpy(&r, p, sizeof r);
  if (r.check != end_record_check(r)) throw TraceError(name, at, "end record check value mismatch: corrupt end record");
  if (r.cause < std::uint32_t(EndCause::exit) || r.cause > std::uint32_t(EndCause::written))
    throw TraceError(name, at, "end record cause " + std::to_string(r.cause) + " (accepted: 1..6)");
  if (r.events_written != events || r.blocks_written != out.blocks)
    throw TraceError(name, at, "end record counts " + std::to_string(r.events_written) + " events in " + std::to_string(r.blocks_written) +
                                   " blocks, the file holds " + std::to_string(events) + " in " + std::to_string(out.blocks) +
                                   " before it: blocks missing");
  out.end = r;
  out.end_offset = at;
  out.blocks_after_end = 0;
  ++out.end_records;
}

}  // namespace

TraceError::TraceError(const std::string& file_, std::uint64_t offset_, const std::string& what)
    : std::runtime_error(file_ + ": offset " + std::to_string(offset_) + ": " + what), file(file_), offset(offset_) {}

std::uint64_t TraceContents::events() const {
  std::uint64_t n = 0;
  for (const auto& t : threads) n += t.events.size();
  return n;
}

bool TraceContents::end_recorded() const { return end.magic == kEndMagic; }

std::string TraceContents::end_text() const {
  if (header.version < 2) return "not recorded (format version " + std::to_string(header.version) + " has no end record)";
  if (!end_recorded()) return "no end record";
  const auto cause = EndCause(end.cause);
  std::string text = cause == EndCause::exit       ? "exit"
                     : cause == EndCause::exit_now ? "_exit"
                     : cause == EndCause::exec     ? "exec (the new image traces into a file of its own)"
                     : cause == EndCause::signal   ? "signal " + std::to_string(end.signal) + signal_name(end.signal)
                     : cause == EndCause::resumed  ? "none: an exec failed and the trace went on"
                                                   : "written whole by a tool";
  return text;
}

std::string TraceContents::cut_short() const {
  if (!truncation.empty()) return "the file ends inside a record: " + truncation;
  if (header.version < 2) return "";
  if (!end_recorded() || EndCause(end.cause) == EndCause::resumed)
    return "no end record: the process was killed (e.g. SIGKILL) or tracing stopped (an output error) before it ended";
  if (blocks_after_end > 0) return std::to_string(blocks_after_end) + " blocks after the end record";
  if (end.lost_events > 0) return std::to_string(end.lost_events) + " events recorded but not written (lost)";
  return "";
}

bool looks_like_trace(std::span<const unsigned char> first_bytes) {
  return first_bytes.size() >= sizeof kFileMagic && std::memcmp(first_bytes.data(), kFileMagic, sizeof kFileMagic) == 0;
}

TraceContents read_trace_bytes(std::span<const unsigned char> bytes, const std::string& name) {
  TraceContents out;
  out.file = name;
  out.file_bytes = bytes.size();
  out.header = read_file_header(bytes, name);
  out.command_line = split_command_line(bytes.subspan(out.header.header_bytes, out.header.command_line_bytes));
  const bool call_sites = out.call_sites();

  std::map<std::uint32_t, ThreadEvents> threads;
  std::map<std::uint32_t, std::uint32_t> next_seq;
  std::vector<unsigned char> encoded;
  BlockHeader last{};
  std::uint64_t events_read = 0;
  std::uint64_t at = std::uint64_t(out.header.header_bytes) + out.header.command_line_bytes;
  while (at < bytes.size()) {
    if (bytes.size() - at < kBlockHeaderBytes) {
      out.truncation = "file ends inside a block header (" + std::to_string(bytes.size() - at) + " of " +
                       std::to_string(kBlockHeaderBytes) + " bytes)";
      out.truncated_at = at;
      break;
    }
    BlockHeader h{};
    std::memcpy(&h, bytes.data() + at, sizeof h);
    if (h.magic == kEndMagic && out.header.version >= 2) {
      read_end_record(bytes.data() + at, at, events_read, out, name);
      at += kBlockHeaderBytes;
      continue;
    }
    if (h.magic != kBlockMagic)
      throw TraceError(name, at, "no block magic (" + hex32(h.magic) + "): corrupt or not a trace block" +
                                     (out.header.version >= 2 ? " or end record" : ""));
    if (h.reserved != block_header_check(h)) throw TraceError(name, at, "block header check value mismatch: corrupt block header");
    if (h.events == 0 || h.events > kMaxBlockEvents)
      throw TraceError(name, at, "block claims " + std::to_string(h.events) + " events (accepted: 1.." + std::to_string(kMaxBlockEvents) + ")");
    if (h.encoded_bytes < 2u * h.events || std::uint64_t(h.encoded_bytes) > std::uint64_t(h.events) * kMaxEncodedEventBytes)
      throw TraceError(name, at, "block claims " + std::to_string(h.encoded_bytes) + " encoded bytes for " + std::to_string(h.events) +
                                     " events: corrupt block header");
    if (bytes.size() - at - kBlockHeaderBytes < h.compressed_bytes) {
      out.truncation = "file ends inside the payload of block " + std::to_string(h.block_seq) + " of thread " + std::to_string(h.thread) +
                       " (" + std::to_string(bytes.size() - at - kBlockHeaderBytes) + " of " + std::to_string(h.compressed_bytes) + " bytes)";
      out.truncated_at = at;
      break;
    }
    const std::uint32_t want_seq = next_seq[h.thread];
    if (h.block_seq != want_seq)
      throw TraceError(name, at, "block " + std::to_string(h.block_seq) + " of thread " + std::to_string(h.thread) + " where block " +
                                     std::to_string(want_seq) + " was expected: blocks missing or reordered");
    next_seq[h.thread] = want_seq + 1;

    const unsigned char* payload = bytes.data() + at + kBlockHeaderBytes;
    encoded.resize(h.encoded_bytes);
    const std::size_t got = ZSTD_decompress(encoded.data(), encoded.size(), payload, h.compressed_bytes);
    if (ZSTD_isError(got)) throw TraceError(name, at + kBlockHeaderBytes, std::string("block payload does not decompress: ") + ZSTD_getErrorName(got));
    if (got != h.encoded_bytes)
      throw TraceError(name, at + kBlockHeaderBytes, "block payload decompresses to " + std::to_string(got) + " bytes, header says " +
                                                         std::to_string(h.encoded_bytes));
    ThreadEvents& t = threads[h.thread];
    t.index = h.thread;
    t.tid = h.tid;
    const std::size_t first = t.events.size();
    t.events.resize(first + h.events);
    CodecState state;
    const unsigned char* in = encoded.data();
    const unsigned char* end = in + encoded.size();
    for (std::uint32_t i = 0; i < h.events; ++i)
      if (!decode_event(in, end, state, t.events[first + i], call_sites))
        throw TraceError(name, at + kBlockHeaderBytes, "event " + std::to_string(i) + " of block " + std::to_string(h.block_seq) + " of thread " +
                                                           std::to_string(h.thread) + " does not decode: corrupt block content");
    if (in != end)
      throw TraceError(name, at + kBlockHeaderBytes, std::to_string(end - in) + " bytes left over after the last event of the block: corrupt block content");
    out.encoded_bytes += h.encoded_bytes;
    ++out.blocks;
    events_read += h.events;
    if (out.end.magic != 0) ++out.blocks_after_end;
    last = h;
    at += kBlockHeaderBytes + h.compressed_bytes;
  }
  for (auto& [index, t] : threads) out.threads.push_back(std::move(t));
  if ((out.header.flags & kFlagImported) == 0 && out.blocks > 0 && last.flush_monotonic_ns > out.header.start_monotonic_ns &&
      last.flush_tsc > out.header.start_tsc)
    out.tsc_hz = double(last.flush_tsc - out.header.start_tsc) * 1e9 / double(last.flush_monotonic_ns - out.header.start_monotonic_ns);
  return out;
}

TraceContents read_trace(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open (" + std::strerror(errno) + ")");
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(path, ec);
  if (ec) throw std::runtime_error(path.string() + ": cannot read its size (" + ec.message() + ")");
  std::vector<unsigned char> bytes(size);
  if (!in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(size))) throw std::runtime_error(path.string() + ": read error");
  return read_trace_bytes(bytes, path.string());
}

}  // namespace allocstress::trace
