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

const char* const kAccepted = "accepted: an allocstress trace v1 written by liballocstress_trace.so or `allocstress import`";

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
  if (h.version != kFormatVersion)
    throw TraceError(name, offsetof(FileHeader, version),
                     "format version " + std::to_string(h.version) + " (accepted: version " + std::to_string(kFormatVersion) + ")");
  if (h.header_bytes < kFileHeaderBytes)
    throw TraceError(name, offsetof(FileHeader, header_bytes),
                     "header size " + std::to_string(h.header_bytes) + " is below " + std::to_string(kFileHeaderBytes));
  if (h.command_line_bytes > kMaxCommandLineBytes)
    throw TraceError(name, offsetof(FileHeader, command_line_bytes), "command line of " + std::to_string(h.command_line_bytes) + " bytes (limit " +
                                   std::to_string(kMaxCommandLineBytes) + ")");
  if (bytes.size() < std::uint64_t(h.header_bytes) + h.command_line_bytes)
    throw TraceError(name, bytes.size(), "file ends inside the command line of the file header");
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

}  // namespace

TraceError::TraceError(const std::string& file_, std::uint64_t offset_, const std::string& what)
    : std::runtime_error(file_ + ": offset " + std::to_string(offset_) + ": " + what), file(file_), offset(offset_) {}

std::uint64_t TraceContents::events() const {
  std::uint64_t n = 0;
  for (const auto& t : threads) n += t.events.size();
  return n;
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
    if (h.magic != kBlockMagic) throw TraceError(name, at, "no block magic (" + hex32(h.magic) + "): corrupt or not a trace block");
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
