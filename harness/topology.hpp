// The machine's processing units as hwloc sees them, and where worker threads go.
// Placement policies (PUs listed in hwloc logical order, where SMT siblings are adjacent):
//   compact  fill consecutive PUs: SMT siblings of a core first, then the next core;
//   scatter  one PU per core, cores spread round-robin over packages, before any SMT sibling.
// `reserve_os_pu` keeps the last PU free for the OS (the 2018 study ran threads 1..PUs-1).
#pragma once

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace allocstress {

enum class Placement { compact, scatter };
std::string_view to_string(Placement p);
// Throws std::invalid_argument naming the accepted policies.
Placement parse_placement(std::string_view text);

struct PlacementRequest {
  unsigned threads = 1;
  Placement policy = Placement::compact;
  bool reserve_os_pu = false;
  bool oversubscribe = false;
};

class Topology {
 public:
  Topology();  // loads the topology of the PUs this process may run on
  ~Topology();
  Topology(const Topology&) = delete;
  Topology& operator=(const Topology&) = delete;

  unsigned pu_count() const;
  unsigned core_count() const;
  unsigned package_count() const;
  // PUs workers may use under the request's reservation (pu_count, or one fewer).
  unsigned usable_pu_count(bool reserve_os_pu) const;

  // OS indexes of the PUs for workers 0..threads-1.  Throws std::invalid_argument when the request
  // wants more workers than usable PUs and does not allow oversubscription.
  std::vector<unsigned> choose_pus(const PlacementRequest& request) const;

  // Binds the calling thread to one PU (by OS index).  Returns "" on success, else the reason.
  std::string pin_current_thread(unsigned pu_os_index) const;

  // Packages, cores, PUs and the data/unified caches (level, size, line, associativity, sharing).
  nlohmann::json summary() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace allocstress
