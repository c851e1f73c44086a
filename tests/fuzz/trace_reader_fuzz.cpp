// libFuzzer target for the trace reader (built and run by run_fuzz.sh).  The contract under
// test (trace/trace_reader.hpp): any bytes either read or throw TraceError; any other
// exception, a crash, a sanitizer report, a leak or an allocation beyond libFuzzer's limit is a
// bug.
//
// Each input is read twice:
// 1. as a whole file, as it is;
// 2. wrapped: as the decompressed content of the one block of a well-formed file (valid file
//    header, block header with its check value, zstd frame with checksum).  Mutations of a raw
//    file almost never survive the block check and zstd's checksum, so without this the event
//    decoder would only ever see the seeds' blocks.  Input byte 0 gives the block's event count
//    (1..64), byte 1 bit 0 the call-site flag; the rest is the content.
#include <zstd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <vector>

#include "trace/trace_reader.hpp"

namespace {

using namespace allocstress::trace;

void read_expecting_only_trace_errors(const unsigned char* data, std::size_t size) {
  try {
    const TraceContents contents = read_trace_bytes({data, size}, "fuzz-input");
    if (contents.blocks > 0 && contents.threads.empty()) std::abort();  // every block holds >= 1 event
  } catch (const TraceError&) {
    // bad input, reported as the contract says
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trace reader threw something other than TraceError: %s\n", e.what());
    std::abort();
  }
}

std::vector<unsigned char> wrap_as_block(const unsigned char* data, std::size_t size) {
  const unsigned char* content = data + 2;
  const std::size_t content_bytes = size - 2;
  std::vector<unsigned char> file(kFileHeaderBytes + kBlockHeaderBytes + ZSTD_compressBound(content_bytes));
  FileHeader fh{};
  std::memcpy(fh.magic, kFileMagic, sizeof fh.magic);
  fh.version = kFormatVersion;
  fh.header_bytes = kFileHeaderBytes;
  fh.flags = (data[1] & 1) ? kFlagCallSites : 0;
  fh.command_line_check = command_line_check(nullptr, 0);
  fh.header_check = file_header_check(fh);
  std::memcpy(file.data(), &fh, sizeof fh);

  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, 1);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  const std::size_t frame = ZSTD_compress2(cctx, file.data() + kFileHeaderBytes + kBlockHeaderBytes,
                                           file.size() - kFileHeaderBytes - kBlockHeaderBytes, content, content_bytes);
  ZSTD_freeCCtx(cctx);
  if (ZSTD_isError(frame)) std::abort();

  BlockHeader bh{};
  bh.magic = kBlockMagic;
  bh.events = 1u + data[0] % 64u;
  bh.encoded_bytes = std::uint32_t(content_bytes);
  bh.compressed_bytes = std::uint32_t(frame);
  bh.reserved = block_header_check(bh);
  std::memcpy(file.data() + kFileHeaderBytes, &bh, sizeof bh);
  file.resize(kFileHeaderBytes + kBlockHeaderBytes + frame);
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  read_expecting_only_trace_errors(data, size);
  if (size >= 2 && size - 2 <= kMaxEncodedEventBytes * 64) {
    const std::vector<unsigned char> file = wrap_as_block(data, size);
    read_expecting_only_trace_errors(file.data(), file.size());
  }
  return 0;
}
