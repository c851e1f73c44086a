// The backend contract every allocator under test satisfies, in-tree or drop-in.
// Workloads are templates over this concept, so a missing part is a compile error naming that part.
#pragma once

#include <concepts>
#include <cstddef>
#include <string_view>

namespace allocstress {

// An Allocator hands out blocks to ONE worker thread: the cell creates one instance per worker
// thread before the measured phase and never shares an instance between threads.
//
//   allocate(n)        pre: n > 0.  post: a pointer to at least n writable bytes, aligned to
//                      alignof(std::max_align_t); nullptr only when memory is exhausted.
//   deallocate(p, n)   pre: p came from allocate(n) on this instance (same n) and was not yet
//                      deallocated.  The size is passed so that sized backends need no header.
//   name()             the allocator's stable name, as used on the command line and in results.
template <class A>
concept Allocator = requires(A& a, std::size_t n, void* p) {
  { a.allocate(n) } -> std::same_as<void*>;
  { a.deallocate(p, n) } -> std::same_as<void>;
  { A::name() } -> std::convertible_to<std::string_view>;
};

// Optional capability: the usable size of a block (>= requested).  Declared, never guessed.
// Optional capability: a placement hint from the workload.  A workload that knows which of its
// blocks will be hot (visited often, e.g. nodes near a tree's root) says so; a backend that
// steers placement (eqclass) uses it, every other backend never sees it (allocate_hinted below).
enum class PlacementHint { none, hot, cold };

template <class A>
concept HasPlacementHint = Allocator<A> && requires(A& a, std::size_t n, PlacementHint h) {
  { a.allocate(n, h) } -> std::same_as<void*>;
};

template <Allocator A>
void* allocate_hinted(A& a, std::size_t n, PlacementHint hint) {
  if constexpr (HasPlacementHint<A>) return a.allocate(n, hint);
  else return a.allocate(n);
}

template <class A>
concept HasUsableSize = Allocator<A> && requires(A& a, void* p) {
  { a.usable_size(p) } -> std::convertible_to<std::size_t>;
};

}  // namespace allocstress
