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

namespace allocstress {
namespace {

// Up to the limit the buffer is ordinary memory: no two addresses share a byte.
TEST(VoidBuffer, SmallBuffersAreOrdinaryMemory) {
  VoidBuffer b(VoidBuffer::kPhysicalLimit);
  EXPECT_EQ(b.physical_bytes(), VoidBuffer::kPhysicalLimit);
  b.data()[0] = std::byte{1};
  b.data()[VoidBuffer::kPhysicalLimit - 1] = std::byte{2};
  EXPECT_EQ(b.data()[0], std::byte{1});
}

// Beyond the limit the buffer covers the whole request with the same limited memory: a byte
// written at offset x is the byte at x + kPhysicalLimit (one memfd mapped again and again).
TEST(VoidBuffer, LargeBuffersReuseBoundedMemory) {
  const std::size_t bytes = 3 * VoidBuffer::kPhysicalLimit + 12345;
  VoidBuffer b(bytes);
  EXPECT_EQ(b.size(), bytes);
  EXPECT_EQ(b.physical_bytes(), VoidBuffer::kPhysicalLimit);
  b.data()[100] = std::byte{0x5a};
  EXPECT_EQ(b.data()[100 + VoidBuffer::kPhysicalLimit], std::byte{0x5a});
  EXPECT_EQ(b.data()[100 + 3 * VoidBuffer::kPhysicalLimit], std::byte{0x5a});
  std::memset(b.data() + bytes - 4096, 0x7f, 4096);  // the last bytes of the request are writable
  EXPECT_EQ(b.data()[bytes - 1], std::byte{0x7f});
}

}  // namespace
}  // namespace allocstress
