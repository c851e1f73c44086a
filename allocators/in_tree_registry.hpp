// In-tree allocator backends by name.  To add one (allocators/README.md has the whole recipe):
// write `allocators/<name>_allocator.hpp` with a class satisfying the Allocator concept
// (constructible from the largest block size), include it here and add it to InTreeBackends.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "bump_allocator.hpp"
#include "eqclass_allocator.hpp"
#include "pool_allocator.hpp"
#include "process_malloc_allocator.hpp"
#include "void_allocator.hpp"

namespace allocstress {

template <class... Backends>
struct BackendList {};

// The registry: one entry per in-tree backend, void (the baseline) first.
using InTreeBackends = BackendList<VoidAllocator, BumpAllocator, PoolAllocator, EqClassAllocator>;

namespace detail {
template <class... Backends>
std::vector<std::string> backend_names(BackendList<Backends...>) {
  return {std::string(Backends::name())...};
}

template <class Visitor, class First, class... Rest>
decltype(auto) visit_backend(std::string_view name, Visitor& visitor, BackendList<First, Rest...>) {
  if (name == First::name()) return visitor.template operator()<First>();
  if constexpr (sizeof...(Rest) == 0) return visitor.template operator()<ProcessMallocAllocator>();
  else return visit_backend(name, visitor, BackendList<Rest...>{});
}
}  // namespace detail

inline const std::vector<std::string>& in_tree_allocator_names() {
  static const std::vector<std::string> names = detail::backend_names(InTreeBackends{});
  return names;
}

// Calls visitor.template operator()<A>() with the backend type named `name`; drop-in allocators
// (any name not in-tree) are measured through ProcessMallocAllocator.
template <class Visitor>
decltype(auto) visit_allocator_type(std::string_view name, Visitor&& visitor) {
  return detail::visit_backend(name, visitor, InTreeBackends{});
}

}  // namespace allocstress
