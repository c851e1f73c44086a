// Test support for the workloads' unit tests: an allocator (the workloads' Allocator concept) on
// malloc/free that records and checks every call.  It records the size of every allocation and of
// every free in call order, numbers the allocations from 0, and logs the number of each block
// freed; it fails the running test when a block is handed out twice, when a free names a block
// that is not live, or frees it with another size than it was allocated with.  Blocks still live
// are in `live` (the test decides whether that is an error).  One instance per thread.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace allocstress::testing {

class CheckedMallocAllocator {
 public:
  explicit CheckedMallocAllocator(std::size_t) {}
  void* allocate(std::size_t n) {
    void* p = std::malloc(n);
    EXPECT_TRUE(live.emplace(p, Block{n, allocations}).second) << "block handed out twice";
    sizes.push_back(n);
    ++allocations;
    return p;
  }
  void deallocate(void* p, std::size_t n) {
    free_sizes.push_back(n);
    const auto it = live.find(p);
    ASSERT_NE(it, live.end()) << "freed a block that is not live";
    EXPECT_EQ(it->second.size, n);
    freed.push_back(it->second.number);
    live.erase(it);
    ++frees;
    std::free(p);
  }
  static constexpr std::string_view name() { return "checked-malloc"; }

  struct Block {
    std::size_t size;
    std::uint64_t number;
  };
  std::unordered_map<void*, Block> live;
  std::vector<std::size_t> sizes, free_sizes;  // of every allocation and every free, in call order
  std::vector<std::uint64_t> freed;            // the number of each block freed, in call order
  std::uint64_t allocations = 0, frees = 0;
};

}  // namespace allocstress::testing
