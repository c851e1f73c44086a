// `allocstress._core`: the workload distributions exactly as the benchmark draws them, from worker
// thread 0's random stream for a seed (workloads/inverse_size_sampler.hpp, pareto_slot_picker.hpp),
// so that Python plots and tests the model the C++ runs.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>

#include "analysis/core_bindings.hpp"
#include "workloads/inverse_size_sampler.hpp"
#include "workloads/pareto_slot_picker.hpp"
#include "workloads/workload_rng.hpp"

namespace py = pybind11;

namespace allocstress::python {

namespace {

// n draws of `draw(bits)` from worker thread 0's random stream for `seed`.
template <class Draw>
py::array_t<std::uint64_t> draw_many(std::size_t n, std::uint64_t seed, Draw draw) {
  py::array_t<std::uint64_t> out(static_cast<py::ssize_t>(n));
  auto view = out.mutable_unchecked<1>();
  WorkloadRng rng = make_thread_rng(seed, 0);
  {
    py::gil_scoped_release release;
    for (std::size_t i = 0; i < n; ++i) view(static_cast<py::ssize_t>(i)) = draw(rng());
  }
  return out;
}

}  // namespace

void bind_distributions(py::module_& m) {
  m.def(
      "sample_sizes",
      [](std::size_t n, unsigned max_size_exp, std::uint64_t seed) {
        const InverseSizeSampler sizes(max_size_exp);
        return draw_many(n, seed, [&](std::uint64_t bits) { return std::uint64_t(sizes.sample(bits)); });
      },
      py::arg("n"), py::arg("max_size_exp") = 16, py::arg("seed") = 1,
      "n block sizes drawn with the alloc-test p ~ 1/size law (sizes < 2^max_size_exp)");
  m.def(
      "sample_slots",
      [](std::size_t n, std::size_t slot_count, std::uint64_t seed) {
        const ParetoSlotPicker picker(slot_count);
        return draw_many(n, seed, [&](std::uint64_t bits) { return std::uint64_t(picker.pick(bits)); });
      },
      py::arg("n"), py::arg("slot_count") = 1u << 20, py::arg("seed") = 1,
      "n slot indexes drawn with the Pareto 80/20-six-times rule over slot_count slots");
  m.def(
      "slot_groups",
      [](std::size_t slot_count) {
        const ParetoSlotPicker picker(slot_count);
        py::list groups;
        for (int g = 0; g < ParetoSlotPicker::kGroups; ++g)
          groups.append(py::dict(py::arg("begin") = picker.group_begin(g), py::arg("size") = picker.group_size(g),
                                 py::arg("op_probability") = picker.group_probability(g)));
        return groups;
      },
      py::arg("slot_count"), "The 7 slot groups: first slot, slot count, probability of an operation");
  m.def(
      "size_bucket_probabilities",
      [](unsigned max_size_exp) {
        const InverseSizeSampler sizes(max_size_exp);
        py::dict buckets;
        for (unsigned k = InverseSizeSampler::kMinBucket; k < max_size_exp; ++k) buckets[py::int_(k)] = sizes.bucket_probability(k);
        return buckets;
      },
      py::arg("max_size_exp") = 16, "Model probability of each power-of-two size bucket k (sizes in [2^k, 2^(k+1)))");
  m.def(
      "mean_size", [](unsigned max_size_exp) { return InverseSizeSampler(max_size_exp).mean_size(); },
      py::arg("max_size_exp") = 16, "The model's mean block size in bytes");
}

}  // namespace allocstress::python
