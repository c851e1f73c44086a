// The random engine every workload draws from: Boost.Random's mt19937_64, whose output sequence
// is fixed by the standard algorithm and identical across Boost versions and platforms, so a seed
// names one operation stream forever.  Per-thread engines are seeded from (run seed, thread index).
#pragma once

#include <boost/random/mersenne_twister.hpp>

#include <cstdint>

namespace allocstress {

using WorkloadRng = boost::random::mt19937_64;

// SplitMix64 finaliser: decorrelates nearby (seed, thread) pairs, and maps seed 0 to a non-zero
// state (the public alloc-test code got stuck in state 0 for seed 0).
constexpr std::uint64_t mix_seed(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline WorkloadRng make_thread_rng(std::uint64_t run_seed, unsigned thread_index) {
  return WorkloadRng(mix_seed(run_seed ^ mix_seed(thread_index + 1)));
}

}  // namespace allocstress
