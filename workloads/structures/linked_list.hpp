// Workload `linkedlist` (BACKGROUND §2): one singly linked list searched from its head.
// Model: `nodes` nodes (key, next: 16 B, padded with payload to `node_size`) are appended in
// allocation order, so node i sits at position i.  A query walks from the head until its key,
// so node i is compared by every query for a key at or behind it: the head's nodes are the hot
// ones and dominate the misses.  With hints, the first kHotNodes positions are hot.  Churn
// deletes nodes at random positions and inserts new ones at random positions.
// Phases and verification: structure_params.hpp.
#pragma once

#include "workloads/structures/list_chain.hpp"

namespace allocstress {

template <Allocator A>
class LinkedListWorkload {
 public:
  LinkedListWorkload(A& alloc, const StructureParams& p, WorkloadRng& rng)
      : alloc_(alloc), p_(p), rng_(rng), interleave_(alloc, p.interleave, p.nodes) {
    keys_.reserve(p.nodes + p.nodes * p.churn_percent / 100);
    churn_ = structure_detail::plan_chain_churn(rng, p.nodes, p.nodes * p.churn_percent / 100);
    queries_.resize(p.searches);
    found_.resize(p.searches);
  }

  bool build() {
    structure_detail::ChainNode** tail = &head_;
    for (std::uint64_t i = 0; i < p_.nodes; ++i) {
      const PlacementHint hint = !p_.hints ? PlacementHint::none : i < kHotNodes ? PlacementHint::hot : PlacementHint::cold;
      structure_detail::ChainNode* n = structure_detail::new_chain_node(alloc_, node_size(), structure_detail::node_key(rng_), hint, out_);
      if (n == nullptr) return false;
      *tail = n;
      tail = &n->next;
      keys_.push_back(n->key);
      live_bytes_ += p_.node_size;
      note_peak();
      if (!interleave_.after_node(rng_, out_, live_bytes_)) return false;
      note_peak();
    }
    out_.nodes_built = p_.nodes;
    return true;
  }

  void prepare_churn() {}  // planned in the constructor: positions do not depend on the keys

  bool churn() {
    live_bytes_ -= churn_.victims.size() * p_.node_size;  // deletions come first
    const bool ok = structure_detail::churn_chains(alloc_, std::span(&head_link_, 1), node_size(), p_.hints,
                                                   [](std::uint64_t pos) { return pos < kHotNodes; }, churn_, out_);
    live_bytes_ += churn_.new_keys.size() * p_.node_size;
    note_peak();
    out_.nodes_churned = churn_.victims.size();
    return ok;
  }

  void prepare_searches() {
    structure_detail::apply_churn_to_keys(churn_, keys_);
    for (auto& q : queries_) q = structure_detail::query_key(rng_, keys_);
  }

  void search() {
    structure_detail::search_queries(queries_.size(), found_, out_, [&](std::size_t i, std::uint64_t& visits) {
      return structure_detail::find_in_chain(head_, queries_[i], visits) != nullptr;
    });
  }

  // Untimed: payloads, the node count, and every query's result.
  void verify() {
    std::vector<std::uint64_t> live;
    std::string bad = structure_detail::collect_chain_keys(std::span(&head_, 1), node_size(), live);
    out_.live_nodes = live.size();
    out_.end_live_requested_bytes = live_bytes_;
    if (bad.empty()) bad = structure_detail::same_keys(live, keys_);
    if (bad.empty()) bad = structure_detail::check_queries(queries_, found_, keys_);
    out_.verify_error = bad.empty() ? "" : "linkedlist: " + bad;
  }

  template <class F>
  void for_each_node(F f) const {
    for (const auto* n = head_; n != nullptr; n = n->next) f(static_cast<const void*>(n), node_size());
  }

  void release() {
    structure_detail::free_chain(alloc_, head_, node_size());
    interleave_.release();
  }

  const StructureOutcome& outcome() const { return out_; }

 private:
  std::size_t node_size() const { return std::size_t(p_.node_size); }
  void note_peak() {
    if (live_bytes_ > out_.peak_live_requested_bytes) out_.peak_live_requested_bytes = live_bytes_;
  }

  A& alloc_;
  const StructureParams& p_;
  WorkloadRng& rng_;
  structure_detail::Interleaver<A> interleave_;
  structure_detail::ChainNode* head_ = nullptr;
  structure_detail::ChainNode** head_link_ = &head_;  // the one chain, for churn_chains
  structure_detail::ChainChurnPlan churn_;
  std::vector<std::uint64_t> keys_;  // the reference: keys built, minus deleted, plus re-inserted
  std::vector<std::uint64_t> queries_;
  std::vector<std::uint8_t> found_;
  std::uint64_t live_bytes_ = 0;
  StructureOutcome out_;
};

}  // namespace allocstress
