// The heap map's binning on constructed blocks with known answers: chunks, spans and bins, live
// fractions per frame, live / spanned bytes and fragmentation, overlaps, and the record's encoding.
#include "cells/traces/heap_map.hpp"

#include <gtest/gtest.h>

#include <string>

namespace allocstress {
namespace {

constexpr std::uint64_t K = 1024, kChunk = kHeapMapChunkBytes;

TEST(HeapMap, BlocksInTwoAdjacentChunksGiveOneSpanAndKnownFractions) {
  // A: half of chunk 1, frames 0..1; B: the next quarter of chunk 1, frames 1..2; C: 16 bytes in chunk 2, always.
  const std::vector<HeapMapBlockAt> blocks = {{0x10000, 32 * K, 0, 2}, {0x18000, 16 * K, 1, 3}, {0x20010, 16, 0, 3}};
  const HeapMap m = build_heap_map(blocks, 3);
  EXPECT_EQ(m.chunks, 2u);
  EXPECT_EQ(m.bins, 2u);
  EXPECT_EQ(m.chunks_per_bin, 1u);
  ASSERT_EQ(m.spans.size(), 1u);
  EXPECT_EQ(m.spans[0].address, 0x10000u);
  EXPECT_EQ(m.spans[0].chunks, 2u);
  const double c = 16.0 / double(kChunk);
  const std::vector<double> want = {0.5, c, 0.75, c, 0.25, c};
  ASSERT_EQ(m.live_fraction.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_DOUBLE_EQ(m.live_fraction[i], want[i]) << i;
  EXPECT_EQ(m.requested_bytes, (std::vector<std::uint64_t>{32 * K + 16, 48 * K + 16, 16 * K + 16}));
  EXPECT_EQ(m.live_bytes, m.requested_bytes);
  // Pages: A 8, B 4, C one page of its own.
  EXPECT_EQ(m.spanned_bytes, (std::vector<std::uint64_t>{36 * K, 52 * K, 20 * K}));
  EXPECT_EQ(m.overlapped_frames, 0u);
}

TEST(HeapMap, FarApartHeapsAreTwoSpansWithTheGapLeftOut) {
  const std::vector<HeapMapBlockAt> blocks = {{0x555500001000, 100, 0, 2}, {0x7f0000000000, 3 * kChunk, 1, 2}};
  const HeapMap m = build_heap_map(blocks, 2);
  EXPECT_EQ(m.chunks, 4u);  // 1 + 3: the terabytes between them take no bin
  ASSERT_EQ(m.spans.size(), 2u);
  EXPECT_EQ(m.spans[0].address, 0x555500000000u);
  EXPECT_EQ(m.spans[1].address, 0x7f0000000000u);
  EXPECT_EQ(m.spans[1].first_chunk, 1u);
  EXPECT_DOUBLE_EQ(m.live_fraction[1], 0.0);  // frame 0: the big block is not yet live
  EXPECT_DOUBLE_EQ(m.live_fraction[4 + 2], 1.0);
  EXPECT_EQ(m.spanned_bytes[0], 4 * K);
  EXPECT_EQ(m.spanned_bytes[1], 4 * K + 3 * kChunk);
}

TEST(HeapMap, ManyChunksShareBinsOfEqualChunkCount) {
  // 10 chunks, at most 4 bins: 3 chunks per bin, the last bin holds one.
  const std::vector<HeapMapBlockAt> blocks = {{0x100000, 10 * kChunk, 0, 1}};
  const HeapMap m = build_heap_map(blocks, 1, 4);
  EXPECT_EQ(m.chunks, 10u);
  EXPECT_EQ(m.chunks_per_bin, 3u);
  EXPECT_EQ(m.bins, 4u);
  EXPECT_EQ(m.bin_bytes, (std::vector<std::uint64_t>{3 * kChunk, 3 * kChunk, 3 * kChunk, kChunk}));
  for (double f : m.live_fraction) EXPECT_DOUBLE_EQ(f, 1.0);
}

TEST(HeapMap, FragmentationIsTheShareOfTouchedPagesNotLive) {
  // Two 16-byte blocks on two pages: 32 live bytes of 8 KiB spanned.
  const std::vector<HeapMapBlockAt> blocks = {{0x40000, 16, 0, 1}, {0x41000, 16, 0, 1}};
  const HeapMap m = build_heap_map(blocks, 1);
  EXPECT_EQ(m.live_bytes[0], 32u);
  EXPECT_EQ(m.spanned_bytes[0], 8 * K);
  const nlohmann::json j = heap_map_json(m, {7});
  EXPECT_DOUBLE_EQ(j["fragmentation"][0].get<double>(), 1.0 - 32.0 / 8192.0);
  EXPECT_EQ(j["op_index"], nlohmann::json::array({7}));
}

TEST(HeapMap, OverlappingBlocksCountOnceAndAreReported) {
  // Live together in the recorded order but at one address in the replay (another interleaving).
  const std::vector<HeapMapBlockAt> blocks = {{0x50000, kChunk, 0, 1}, {0x50000, kChunk, 0, 2}};
  const HeapMap m = build_heap_map(blocks, 2);
  EXPECT_EQ(m.requested_bytes[0], 2 * kChunk);
  EXPECT_EQ(m.live_bytes[0], kChunk);
  EXPECT_DOUBLE_EQ(m.live_fraction[0], 1.0);  // capped
  EXPECT_EQ(m.overlapped_frames, 1u);
}

TEST(HeapMap, RecordEncodesLevelsAsBase64AndEmptyFramesAsNull) {
  // Frame 0: a block of 16 bytes in a 64 KiB chunk (level at least 1); frame 1: nothing live.
  const std::vector<HeapMapBlockAt> blocks = {{0x60000, 16, 0, 1}};
  const nlohmann::json j = heap_map_json(build_heap_map(blocks, 2), {4, 9});
  EXPECT_EQ(j["frames"], 2);
  EXPECT_EQ(j["bins"], 1);
  EXPECT_EQ(j["live_fraction"], "AQA=");  // bytes 1, 0
  EXPECT_TRUE(j["fragmentation"][1].is_null());
  EXPECT_EQ(j["spans"][0][0], "0x60000");
  EXPECT_EQ(j["spans_total"], 1);
}

TEST(HeapMap, NoBlocksGiveAnEmptyMap) {
  const HeapMap m = build_heap_map({}, 3);
  EXPECT_EQ(m.bins, 0u);
  EXPECT_EQ(m.spanned_bytes, (std::vector<std::uint64_t>{0, 0, 0}));
  EXPECT_EQ(heap_map_json(m, {0, 1, 2})["live_fraction"], "");
}

}  // namespace
}  // namespace allocstress
