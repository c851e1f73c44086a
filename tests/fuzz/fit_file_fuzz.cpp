// libFuzzer target for the fit file (workloads/lifetimes/lifetime_params.hpp: `allocstress fit
// TRACE -o FIT.json` writes it, the `fitted` workload and `--sizes fit --size-fit` read it).
//
// Contract: load_fit_config(path) on any bytes either returns a validated fit or throws
// std::invalid_argument ("FILE: what is wrong").  What it returns builds the fitted workload's
// model without an exception (LifetimeModel validates the same rules), whose draws stay inside
// the tables (sizes 1..max_size() <= kMaxFittedBlockSize, lifetimes >= 1 or kNever), and it writes
// back (fit_config_text, what save_fit_config writes) to a text that reads back to the same text.
// Any other exception, a crash, a sanitizer report, a leak, a timeout or an allocation beyond
// libFuzzer's limit is a finding.
#include "tests/fuzz/fuzz_common.hpp"
#include "workloads/lifetimes/lifetime_params.hpp"
#include "workloads/lifetimes/lifetime_workload.hpp"
#include "workloads/workload_rng.hpp"

extern "C" int LLVMFuzzerTestOneInput(const unsigned char* data, std::size_t size) {
  using namespace allocstress;
  const std::filesystem::path path = fuzz::input_file(data, size, "fit.json");
  FitConfig fit;
  if (!fuzz::within_contract<std::invalid_argument>("load_fit_config", [&] { fit = load_fit_config(path); })) return 0;
  fuzz::within_contract<>("the fitted model of an accepted fit file", [&] {
    const LifetimeModel model(fit.params);
    fuzz::require(model.max_size() >= 1 && model.max_size() <= kMaxFittedBlockSize, "the model's largest size is out of range");
    WorkloadRng rng = make_thread_rng(fit.params.seed, 0);
    for (int i = 0; i < 64; ++i) {
      const std::uint64_t s = model.draw_size(rng), l = model.draw_lifetime(rng, s);
      fuzz::require(s >= 1 && s <= model.max_size(), "drew size " + std::to_string(s) + " beyond the table");
      fuzz::require(l >= 1, "drew lifetime 0");
    }
  });
  fuzz::within_contract<>("the fit file written back", [&] {
    const std::string text = fit_config_text(fit);
    fuzz::require(fit_config_text(parse_fit_config(text, "written-back")) == text, "the fit written back reads back differently");
  });
  return 0;
}
