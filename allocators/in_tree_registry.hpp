// In-tree allocator backends by name.  To add one: write `allocators/<name>_allocator.hpp` with a
// class satisfying the Allocator concept (constructible from the largest block size), then add
// its name to in_tree_allocator_names() and one `if` to visit_allocator_type below.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "process_malloc_allocator.hpp"
#include "void_allocator.hpp"

namespace allocstress {

inline const std::vector<std::string>& in_tree_allocator_names() {
  static const std::vector<std::string> names = {"void"};
  return names;
}

// Calls visitor.template operator()<A>() with the backend type named `name`; drop-in allocators
// (any name not in-tree) are measured through ProcessMallocAllocator.
template <class Visitor>
decltype(auto) visit_allocator_type(std::string_view name, Visitor&& visitor) {
  if (name == VoidAllocator::name()) return visitor.template operator()<VoidAllocator>();
  return visitor.template operator()<ProcessMallocAllocator>();
}

}  // namespace allocstress
