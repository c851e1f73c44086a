// Workload `multilist` (BACKGROUND §2): a list of head nodes, each owning a sub-list.
// Model: `heads` head nodes (key, next, sub: 24 B) in one list; each owns nodes/heads sub-nodes
// (key, next: 16 B); every node is padded with payload to `node_size`.  Built head by head: a
// head, then its sub-nodes.  A query is a pair (key1:key2): key1 picks a head with popularity
// ~ 1/rank^zipf (ranks assigned to heads in random order, so popular heads sit anywhere in the
// head list), key2 a live sub-key of that head (7 in 8) or an absent one.  The search walks the
// head list to key1, then that head's sub-list to key2: key1 values recur far more often than
// key2 values.  With hints, head nodes are hot and sub-nodes cold.  Churn deletes sub-nodes at
// random positions across all sub-lists and inserts new ones at random positions.
// Phases and verification: structure_params.hpp.
#pragma once

#include <algorithm>
#include <cmath>

#include "workloads/structures/list_chain.hpp"

namespace allocstress {

template <Allocator A>
class MultiListWorkload {
 public:
  MultiListWorkload(A& alloc, const StructureParams& p, WorkloadRng& rng)
      : alloc_(alloc), p_(p), rng_(rng), interleave_(alloc, p.interleave, p.nodes + p.heads) {
    std::vector<std::uint64_t> seen;
    while (head_keys_.size() < p.heads) {  // distinct head keys, drawn before the timed build
      const std::uint64_t k = structure_detail::node_key(rng_);
      const auto it = std::lower_bound(seen.begin(), seen.end(), k);
      if (it != seen.end() && *it == k) continue;
      seen.insert(it, k);
      head_keys_.push_back(k);
    }
    const std::uint64_t churned = p.nodes * p.churn_percent / 100;
    sub_keys_.resize(p.heads);
    for (std::uint64_t h = 0; h < p.heads; ++h) sub_keys_[h].reserve(sub_count(h) + churned);
    churn_ = structure_detail::plan_chain_churn(rng, p.nodes, churned);
    sub_links_.reserve(p.heads);
    queries_.resize(p.searches);
    found_.resize(p.searches);
  }

  bool build() {
    Head** tail = &first_;
    for (std::uint64_t h = 0; h < p_.heads; ++h) {
      void* mem = allocate_hinted(alloc_, node_size(), p_.hints ? PlacementHint::hot : PlacementHint::none);
      if (mem == nullptr) {
        out_.failed_allocation_bytes = p_.node_size;
        return false;
      }
      Head* head = static_cast<Head*>(mem);
      *head = Head{head_keys_[h], nullptr, nullptr};
      structure_detail::fill_payload(head, sizeof(Head), node_size(), head->key);
      out_.op_stream_hash = structure_detail::hash_step(out_.op_stream_hash, head->key);
      *tail = head;
      tail = &head->next;
      if (!added(1)) return false;
      structure_detail::ChainNode** sub_tail = &head->sub;
      for (std::uint64_t i = 0; i < sub_count(h); ++i) {
        const PlacementHint hint = p_.hints ? PlacementHint::cold : PlacementHint::none;
        structure_detail::ChainNode* n = structure_detail::new_chain_node(alloc_, node_size(), structure_detail::node_key(rng_), hint, out_);
        if (n == nullptr) return false;
        *sub_tail = n;
        sub_tail = &n->next;
        sub_keys_[h].push_back(n->key);
        if (!added(1)) return false;
      }
    }
    out_.nodes_built = p_.heads + p_.nodes;
    return true;
  }

  void prepare_churn() {  // the plan was drawn in the constructor; here only the chain links
    sub_links_.clear();
    for (Head* h = first_; h != nullptr; h = h->next) sub_links_.push_back(&h->sub);
  }

  bool churn() {
    live_bytes_ -= churn_.victims.size() * p_.node_size;
    const bool ok = structure_detail::churn_chains(alloc_, std::span(sub_links_), node_size(), p_.hints,
                                                   [](std::uint64_t) { return false; }, churn_, out_);
    live_bytes_ += churn_.new_keys.size() * p_.node_size;
    note_peak();
    out_.nodes_churned = churn_.victims.size();
    return ok;
  }

  void prepare_searches() {
    predict_churned_keys();
    // Head popularity: rank r has weight 1/(r+1)^zipf; ranks go to heads in random order.
    std::vector<double> cdf(p_.heads);
    double total = 0;
    for (std::uint64_t r = 0; r < p_.heads; ++r) cdf[r] = total += std::pow(double(r + 1), -p_.zipf);
    std::vector<std::uint64_t> head_of_rank(p_.heads);
    for (std::uint64_t h = 0; h < p_.heads; ++h) head_of_rank[h] = h;
    for (std::uint64_t i = p_.heads; i > 1; --i) std::swap(head_of_rank[i - 1], head_of_rank[rng_() % i]);
    for (auto& q : queries_) {
      const double u = double(rng_() >> 11) * 0x1.0p-53 * total;
      const auto rank = std::uint64_t(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
      q.head = head_of_rank[std::min<std::uint64_t>(rank, p_.heads - 1)];
      q.key2 = structure_detail::query_key(rng_, sub_keys_[q.head]);
    }
  }

  void search() {
    structure_detail::search_queries(queries_.size(), found_, out_, [&](std::size_t i, std::uint64_t& visits) {
      const std::uint64_t key1 = head_keys_[queries_[i].head];
      const Head* h = first_;
      while (h != nullptr) {
        ++visits;
        if (h->key == key1) break;
        h = h->next;
      }
      return h != nullptr && structure_detail::find_in_chain(h->sub, queries_[i].key2, visits) != nullptr;
    });
  }

  // Untimed: head order and payloads, every sub-list against its predicted keys, every query.
  void verify() {
    std::string bad;
    std::uint64_t h = 0, live = 0;
    for (const Head* head = first_; head != nullptr && bad.empty(); head = head->next, ++h) {
      if (h >= p_.heads || head->key != head_keys_[h]) bad = "head list differs from the heads built";
      else if (!structure_detail::payload_intact(head, sizeof(Head), node_size(), head->key)) bad = "payload of a head node was overwritten";
      std::vector<std::uint64_t> keys;
      if (bad.empty()) bad = structure_detail::collect_chain_keys(std::span(&head->sub, 1), node_size(), keys);
      if (bad.empty()) bad = structure_detail::same_keys(keys, sub_keys_[h]);
      live += 1 + keys.size();
    }
    if (bad.empty() && h != p_.heads) bad = std::to_string(h) + " heads reachable, " + std::to_string(p_.heads) + " expected";
    for (std::size_t i = 0; i < queries_.size() && bad.empty(); ++i) {
      const auto& keys = sub_keys_[queries_[i].head];
      const bool want = std::find(keys.begin(), keys.end(), queries_[i].key2) != keys.end();
      if (bool(found_[i]) != want) bad = "query " + std::to_string(i) + " was " + (found_[i] ? "" : "not ") + "found, but its key2 is " + (want ? "live" : "absent");
    }
    out_.live_nodes = live;
    out_.end_live_requested_bytes = live_bytes_;
    out_.verify_error = bad.empty() ? "" : "multilist: " + bad;
  }

  template <class F>
  void for_each_node(F f) const {
    for (const Head* head = first_; head != nullptr; head = head->next) {
      f(static_cast<const void*>(head), node_size());
      for (const auto* n = head->sub; n != nullptr; n = n->next) f(static_cast<const void*>(n), node_size());
    }
  }

  void release() {
    while (first_ != nullptr) {
      Head* next = first_->next;
      structure_detail::free_chain(alloc_, first_->sub, node_size());
      alloc_.deallocate(first_, node_size());
      first_ = next;
    }
    interleave_.release();
  }

  const StructureOutcome& outcome() const { return out_; }

 private:
  struct Head {
    std::uint64_t key;
    Head* next;
    structure_detail::ChainNode* sub;
  };
  struct Query {
    std::uint64_t head;  // index of key1's head
    std::uint64_t key2;
  };

  std::size_t node_size() const { return std::size_t(p_.node_size); }
  std::uint64_t sub_count(std::uint64_t h) const { return p_.nodes / p_.heads + (h < p_.nodes % p_.heads ? 1 : 0); }

  // One node (head or sub) added: account, then the interleaved blocks.
  bool added(std::uint64_t nodes) {
    live_bytes_ += nodes * p_.node_size;
    note_peak();
    const bool ok = interleave_.after_node(rng_, out_, live_bytes_);
    note_peak();
    return ok;
  }
  void note_peak() {
    if (live_bytes_ > out_.peak_live_requested_bytes) out_.peak_live_requested_bytes = live_bytes_;
  }

  // The per-head reference after churn, derived from the plan alone (not from the lists): a
  // deleted key leaves the head that held it; an insert before global position p goes to the
  // head whose sub-list holds position p after the deletions (p == total: the last head).
  void predict_churned_keys() {
    if (churn_.victims.empty()) return;
    std::vector<std::uint64_t>& dead = churn_.deleted_keys;
    std::sort(dead.begin(), dead.end());
    std::vector<std::uint64_t> after(p_.heads);
    for (std::uint64_t h = 0; h < p_.heads; ++h) {
      std::erase_if(sub_keys_[h], [&](std::uint64_t k) { return structure_detail::contains(dead, k); });
      after[h] = sub_keys_[h].size();
    }
    std::uint64_t h = 0, start = 0;  // start: global position of head h's first sub-node
    for (std::size_t i = 0; i < churn_.insert_before.size(); ++i) {
      const std::uint64_t p = churn_.insert_before[i];
      while (h + 1 < p_.heads && p >= start + after[h]) start += after[h++];
      sub_keys_[h].push_back(churn_.new_keys[i]);
    }
  }

  A& alloc_;
  const StructureParams& p_;
  WorkloadRng& rng_;
  structure_detail::Interleaver<A> interleave_;
  Head* first_ = nullptr;
  std::vector<std::uint64_t> head_keys_;
  std::vector<std::vector<std::uint64_t>> sub_keys_;  // the reference, per head
  structure_detail::ChainChurnPlan churn_;
  std::vector<structure_detail::ChainNode**> sub_links_;
  std::vector<Query> queries_;
  std::vector<std::uint8_t> found_;
  std::uint64_t live_bytes_ = 0;
  StructureOutcome out_;
};

}  // namespace allocstress
