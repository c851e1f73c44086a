// The machine's processing units as hwloc sees them, and where worker threads go.
//
// Model.  PUs are listed in hwloc logical order, where the SMT siblings of a core are adjacent and
// cores are grouped by package.  A placement policy turns the topology into an ordered list of PUs,
// its *worker order*; worker i runs on entry i.  Policies:
//   compact       every PU, core by core in logical order: a core's SMT siblings, then the next core.
//   scatter       every PU; cores round-robin over packages, first PU of each core before any second.
//   one-per-core  "SMT off": the first PU of each core, cores in logical order (package 0 filled
//                 first, so it differs from smt-pairs only by SMT, not by spreading over packages);
//                 at most one worker per core, so at most core_count workers.
//   smt-pairs     the first two PUs of each core that has at least two, cores in logical order:
//                 workers 2k and 2k+1 are SMT siblings of one core (an odd last worker has its core
//                 to itself).  Refused on a machine without SMT siblings, so that no figure labelled
//                 "SMT pairs" is measured without SMT.
// On a machine with 2 PUs per core compact and smt-pairs give the same order; smt-pairs differs
// where cores have more than two PUs (it uses two) or only one (it skips them, or refuses).
//
// `reserve_os_pu` keeps the last PU in logical order free for the OS (the 2018 study ran threads
// 1..PUs-1).  compact and scatter leave out that PU only; one-per-core and smt-pairs leave out its
// whole core, so no worker shares a core with the OS's PU.  A reservation that would leave a policy
// no PU at all is not made (a 1-PU machine runs its worker on that PU).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

enum class Placement { compact, scatter, one_per_core, smt_pairs };
// Every policy, in the order help texts and error messages list them.
inline constexpr Placement kAllPlacements[] = {Placement::compact, Placement::scatter, Placement::one_per_core,
                                               Placement::smt_pairs};
// "compact", "scatter", "one-per-core", "smt-pairs" (the CLI's and the results' spelling).
std::string_view to_string(Placement p);
// Throws std::invalid_argument naming the accepted policies.
Placement parse_placement(std::string_view text);
// "compact, scatter, one-per-core, smt-pairs", for help texts.
std::string placement_names();

// How workers are placed, whatever their number.
struct PlacementPolicy {
  Placement policy = Placement::compact;
  bool reserve_os_pu = false;
  bool oversubscribe = false;  // more workers than the policy's PUs: wrap around its worker order
};

// A placement for `threads` workers.
struct PlacementRequest {
  unsigned threads = 1;
  Placement policy = Placement::compact;
  bool reserve_os_pu = false;
  bool oversubscribe = false;
  PlacementRequest() = default;
  PlacementRequest(unsigned threads_, Placement policy_, bool reserve_os_pu_, bool oversubscribe_)
      : threads(threads_), policy(policy_), reserve_os_pu(reserve_os_pu_), oversubscribe(oversubscribe_) {}
  PlacementRequest(unsigned threads_, const PlacementPolicy& p)
      : threads(threads_), policy(p.policy), reserve_os_pu(p.reserve_os_pu), oversubscribe(p.oversubscribe) {}
};

class Topology {
 public:
  Topology();  // loads the topology of the PUs this process may run on
  // A made-up machine from an hwloc synthetic description such as "package:2 core:4 pu:2" (PU OS
  // indexes then equal logical indexes).  For tests of the placement policies on shapes this machine
  // does not have; pin_current_thread refuses on it.  Throws std::invalid_argument when hwloc rejects
  // the description.
  static Topology synthetic(std::string_view description);
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  unsigned pu_count() const;
  unsigned core_count() const;
  unsigned package_count() const;
  // PUs workers may use under the request's reservation (pu_count, or one fewer).
  unsigned usable_pu_count(bool reserve_os_pu) const;
  // Workers `policy` places without oversubscription: the length of its worker order after the
  // reservation.  usable_pu_count for compact and scatter; the cores (or one fewer) for
  // one-per-core; twice the cores with SMT siblings for smt-pairs (0 without SMT).
  unsigned usable_worker_count(Placement policy, bool reserve_os_pu) const;

  // OS indexes of the PUs for workers 0..threads-1.  Throws std::invalid_argument when threads is 0,
  // when the policy cannot be honoured here (smt-pairs without SMT siblings), or when the request
  // wants more workers than usable_worker_count and does not allow oversubscription.
  std::vector<unsigned> choose_pus(const PlacementRequest& request) const;

  // Binds the calling thread to one PU (by OS index).  Returns "" on success, else the reason.
  std::string pin_current_thread(unsigned pu_os_index) const;

  // Packages, cores, PUs and the data/unified caches (level, size, line, associativity, sharing).
  nlohmann::json summary() const;

 private:
  struct Impl;
  explicit Topology(const std::string* synthetic_description);  // nullptr: this machine
  std::unique_ptr<Impl> impl_;
};

}  // namespace allocstress
