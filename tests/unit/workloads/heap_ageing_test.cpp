// The aged heap (workloads/heap_ageing.hpp): its spec, what a worker's ageing leaves live, the
// sizes it draws, and the survivors' content check (shown to catch a changed survivor).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "workloads/heap_ageing.hpp"

namespace allocstress {
namespace {

// malloc underneath, every live block and its size kept, every allocated size recorded.
struct LedgerAllocator {
  static constexpr std::string_view name() { return "ledger"; }
  void* allocate(std::size_t n) {
    void* p = std::malloc(n);
    live.emplace(p, n);
    sizes.push_back(n);
    return p;
  }
  void deallocate(void* p, std::size_t n) {
    const auto it = live.find(p);
    ASSERT_NE(it, live.end()) << "freed a block it does not hold";
    EXPECT_EQ(it->second, n) << "freed with another size than it was allocated with";
    live.erase(it);
    std::free(p);
  }
  std::uint64_t live_bytes() const {
    std::uint64_t b = 0;
    for (const auto& [p, n] : live) b += n;
    return b;
  }
  std::map<void*, std::size_t> live;
  std::vector<std::size_t> sizes;
};

std::string error_of(std::string_view spec) {
  try {
    parse_age_spec(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// The heap, keep share, block size range and pattern of `spec` as parsed.
void expect_spec(const AgeSpec& spec, std::uint64_t heap, double keep, std::size_t min_size, std::size_t max_size, AgePattern pattern) {
  EXPECT_EQ(spec.heap_bytes, heap);
  EXPECT_DOUBLE_EQ(spec.keep, keep);
  EXPECT_EQ(spec.min_size, min_size);
  EXPECT_EQ(spec.max_size, max_size);
  EXPECT_EQ(spec.pattern, pattern);
}

TEST(HeapAgeing, SpecAcceptsAHeapAndOptionalParts) {
  expect_spec(parse_age_spec("64M"), 64u << 20, 0.25, 16, 16384, AgePattern::spread);
  const AgeSpec s = parse_age_spec("1G,keep=0.1,sizes=32..64K,pattern=random,seed=7");
  expect_spec(s, 1u << 30, 0.1, 32, 65536, AgePattern::random);
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.text, "1G,keep=0.1,sizes=32..64K,pattern=random,seed=7");
  EXPECT_EQ(parse_age_spec("1048576").heap_bytes, 1048576u);
}

TEST(HeapAgeing, SpecRefusesBadPartsNamingThemAndWhatIsAccepted) {
  for (const auto& [spec, names] : std::vector<std::pair<std::string, std::string>>{
           {"", "the heap '' is not a byte count"},
           {"lots", "the heap 'lots' is not a byte count"},
           {"1K", "below 64K"},
           {"64M,keep=1", "keep=1 is not in [0, 1)"},
           {"64M,keep=-0.5", "keep=-0.5 is not in [0, 1)"},
           {"64M,keep=x", "keep=x"},
           {"64M,sizes=64..16", "sizes=64..16"},
           {"64M,sizes=16", "sizes=16"},
           {"64M,pattern=holes", "pattern=holes is neither spread nor random"},
           {"64M,seed=4K", "seed=4K is not a whole number"},
           {"64M,depth=3", "unknown part 'depth'"},
           {"64M,keep", "'keep' is not NAME=VALUE"},
           {"64K,sizes=16..1M", "the largest size is above the heap"}}) {
    const std::string e = error_of(spec);
    EXPECT_NE(e.find(names), std::string::npos) << spec << " -> " << e;
    EXPECT_NE(e.find("accepted: HEAP[,keep=F]"), std::string::npos) << e;
  }
}

TEST(HeapAgeing, SpreadPatternKeepsEveryKthBlockLiveUntilRelease) {
  const AgeSpec spec = parse_age_spec("8M,keep=0.25");
  LedgerAllocator alloc;
  AgedHeap heap(spec, 0, 2);  // worker 0 of 2: half the heap
  heap.build(alloc);
  const AgeingOutcome& o = heap.outcome();
  EXPECT_TRUE(o.error.empty());
  EXPECT_EQ(o.blocks, alloc.sizes.size());
  EXPECT_LE(o.bytes, 4u << 20);
  EXPECT_GT(o.bytes, (4u << 20) - spec.max_size);  // filled to its share, within one block
  EXPECT_EQ(o.survivors, o.blocks / 4);             // blocks 3, 7, 11, ...
  EXPECT_EQ(alloc.live.size(), o.survivors);
  EXPECT_EQ(alloc.live_bytes(), o.survivor_bytes);
  heap.release(alloc);
  EXPECT_TRUE(alloc.live.empty());
  EXPECT_EQ(heap.outcome().corrupted, 0u);
}

TEST(HeapAgeing, KeepZeroIsTheWarmedControlWithTheSameAllocations) {
  const std::string spec = "4M,keep=0.25";
  EXPECT_EQ(warmed_spec_text(spec), "4M,keep=0.25,keep=0");
  LedgerAllocator aged_alloc, warmed_alloc;
  AgedHeap aged(parse_age_spec(spec), 0, 1), warmed(parse_age_spec(warmed_spec_text(spec)), 0, 1);
  aged.build(aged_alloc);
  warmed.build(warmed_alloc);
  EXPECT_EQ(warmed_alloc.sizes, aged_alloc.sizes);  // the same blocks allocated and written ...
  EXPECT_TRUE(warmed_alloc.live.empty());           // ... and every one freed
  EXPECT_EQ(warmed.outcome().survivors, 0u);
  EXPECT_GT(aged.outcome().survivors, 0u);
  aged.release(aged_alloc);
  warmed.release(warmed_alloc);
}

TEST(HeapAgeing, SizesFollowOneOverSizeWithinTheRange) {
  const AgeSpec spec = parse_age_spec("32M,sizes=16..16384");
  LedgerAllocator alloc;
  AgedHeap heap(spec, 0, 1);
  heap.build(alloc);
  const double n = double(alloc.sizes.size());
  ASSERT_GT(n, 10000);
  EXPECT_GE(*std::min_element(alloc.sizes.begin(), alloc.sizes.end()), 16u);
  EXPECT_LE(*std::max_element(alloc.sizes.begin(), alloc.sizes.end()), 16384u);
  // log-uniform over 10 factors of 2: each band [16 x 2^k, 16 x 2^(k+1)) holds 1/10 of the
  // blocks, within 5 standard deviations of a binomial share
  const double tolerance = 5 * std::sqrt(0.1 * 0.9 / n);
  for (unsigned k = 0; k < 10; ++k) {
    const std::size_t lo = std::size_t{16} << k, hi = lo * 2;
    const auto band = std::count_if(alloc.sizes.begin(), alloc.sizes.end(), [&](std::size_t s) { return s >= lo && s < hi; });
    EXPECT_NEAR(double(band) / n, 0.1, tolerance) << "sizes " << lo << ".." << hi - 1;
  }
  heap.release(alloc);
}

TEST(HeapAgeing, RandomPatternKeepsAboutKeepOfTheBlocksAndWorkersDiffer) {
  const AgeSpec spec = parse_age_spec("8M,keep=0.4,pattern=random,sizes=16..256");
  LedgerAllocator a, b, again;
  AgedHeap w0(spec, 0, 2), w1(spec, 1, 2), w0_again(spec, 0, 2);
  w0.build(a);
  w1.build(b);
  w0_again.build(again);
  const double n = double(w0.outcome().blocks);
  ASSERT_GT(n, 20000);
  // binomial(n, 0.4): 5 standard deviations
  EXPECT_NEAR(double(w0.outcome().survivors), 0.4 * n, 5 * std::sqrt(n * 0.4 * 0.6));
  EXPECT_EQ(a.sizes, again.sizes);  // a seed and worker name one ageing
  EXPECT_EQ(w0.outcome().survivors, w0_again.outcome().survivors);
  EXPECT_NE(a.sizes, b.sizes);      // workers draw their own
  for (auto* h : {&w0, &w1, &w0_again}) {
    LedgerAllocator& owner = h == &w0 ? a : h == &w1 ? b : again;
    h->release(owner);
    EXPECT_TRUE(owner.live.empty());
  }
}

TEST(HeapAgeing, ReleaseCountsASurvivorWhoseContentsChanged) {
  const AgeSpec spec = parse_age_spec("1M,keep=0.5");
  LedgerAllocator alloc;
  AgedHeap heap(spec, 0, 1);
  heap.build(alloc);
  ASSERT_GE(alloc.live.size(), 2u);
  auto* first = static_cast<unsigned char*>(alloc.live.begin()->first);
  first[0] ^= 0xff;  // what an allocator that reused a live block would do
  heap.release(alloc);
  EXPECT_EQ(heap.outcome().corrupted, 1u);
}

TEST(HeapAgeing, RecordSumsTheWorkers) {
  const AgeSpec spec = parse_age_spec("2M");
  AgeingOutcome a, b;
  a.blocks = 10, a.bytes = 1000, a.survivors = 2, a.survivor_bytes = 200;
  b.blocks = 5, b.bytes = 500, b.survivors = 1, b.survivor_bytes = 100, b.corrupted = 1, b.error = "ran out";
  const AgeingOutcome* both[] = {&a, &b};
  const nlohmann::json r = ageing_record(spec, both);
  EXPECT_EQ(r.at("blocks"), 15);
  EXPECT_EQ(r.at("bytes"), 1500);
  EXPECT_EQ(r.at("survivors"), 3);
  EXPECT_EQ(r.at("survivor_bytes"), 300);
  EXPECT_EQ(r.at("corrupted_survivors"), 1);
  EXPECT_EQ(r.at("errors"), nlohmann::json::array({"ran out"}));
  EXPECT_EQ(r.at("spec").at("heap_bytes"), 2 << 20);
}

}  // namespace
}  // namespace allocstress
