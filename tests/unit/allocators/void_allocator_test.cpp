// VoidAllocator: one fixed, writable, aligned buffer for every request; frees nothing.
#include "allocators/void_allocator.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace allocstress {
namespace {

TEST(VoidAllocator, ReturnsTheSameBufferForEverySize) {
  VoidAllocator v(1u << 16);
  void* a = v.allocate(8);
  void* b = v.allocate(65535);
  EXPECT_EQ(a, b);
  v.deallocate(a, 8);
  EXPECT_EQ(v.allocate(100), a);  // nothing was freed or moved
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(a) % 64, 0u);
}

TEST(VoidAllocator, BufferHoldsTheLargestBlock) {
  VoidAllocator v(1000);
  auto* p = static_cast<unsigned char*>(v.allocate(1000));
  std::memset(p, 0xab, 1000);  // ASan builds catch an undersized buffer here
  EXPECT_EQ(p[999], 0xab);
}

TEST(VoidAllocator, SeparateInstancesHaveSeparateBuffers) {
  VoidAllocator a(64), b(64);
  EXPECT_NE(a.allocate(8), b.allocate(8));  // one per worker thread: no false sharing
}

}  // namespace
}  // namespace allocstress
