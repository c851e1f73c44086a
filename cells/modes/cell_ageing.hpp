// A cell's aged heap (mode aged, workloads/heap_ageing.hpp) on the cell side: the spec parsed
// once, and each worker's AgedHeap built in its setup() and released in its release(), on the
// worker's thread through the worker's own allocator (a per-thread heap ages only from its own
// thread).  Workloads whose entry says `ages` hold one CellAgeing and call it from their workers.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

#include "allocators/allocator.hpp"
#include "cells/cell.hpp"
#include "workloads/heap_ageing.hpp"

namespace allocstress {

class CellAgeing {
 public:
  // pre: cell.mode != aged, or cell.age parses (the cell encoding checked it).
  CellAgeing(const Cell& cell, std::size_t workers) : workers_(unsigned(workers)), outcomes_(workers) {
    if (cell.mode == CellMode::aged) spec_ = parse_age_spec(cell.age);
  }

  // In worker `index`'s setup(), after its allocator exists: "" or why the worker cannot run.
  template <Allocator A>
  std::string age(std::optional<AgedHeap>& heap, A& alloc, std::size_t index) const {
    if (!spec_) return "";
    heap.emplace(*spec_, unsigned(index), workers_);
    heap->build(alloc);
    return heap->outcome().error;
  }
  // In worker `index`'s release(), after the workload's own blocks are freed.
  template <Allocator A>
  void release(std::optional<AgedHeap>& heap, A& alloc, std::size_t index) {
    if (!heap) return;
    heap->release(alloc);
    outcomes_[index] = heap->outcome();
  }
  // Adds the record's `ageing` block (aged cells only).
  void add_to(nlohmann::json& record) const {
    if (!spec_) return;
    std::vector<const AgeingOutcome*> all;
    for (const auto& o : outcomes_) all.push_back(&o);
    record["ageing"] = ageing_record(*spec_, all);
  }

 private:
  std::optional<AgeSpec> spec_;
  unsigned workers_;
  std::vector<AgeingOutcome> outcomes_;
};

}  // namespace allocstress
