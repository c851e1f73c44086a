// Parameter parsing and validation of the alloc-test workload (the loop is in the header).
#include "alloc_test.hpp"

#include <stdexcept>

#include "platform/enum_words.hpp"

namespace allocstress {

namespace {
constexpr EnumWord<MemoryAccess> kAccessWords[] = {
    {MemoryAccess::none, "none"}, {MemoryAccess::touch, "touch"}, {MemoryAccess::write, "write"}, {MemoryAccess::write_read, "write_read"}};
constexpr EnumWord<SizeModel> kSizeModelWords[] = {{SizeModel::inverse, "inverse"}, {SizeModel::fleet, "fleet"}, {SizeModel::fit, "fit"}};
}  // namespace

std::string_view to_string(MemoryAccess access) { return word_of(kAccessWords, access); }
std::string_view to_string(SizeModel model) { return word_of(kSizeModelWords, model, "inverse"); }

SizeModel parse_size_model(std::string_view text) { return parse_word(kSizeModelWords, text, "size model"); }

MemoryAccess parse_memory_access(std::string_view text) {
  if (text == "write+read") return MemoryAccess::write_read;  // an older spelling, still read
  return parse_word(kAccessWords, text, "memory access");
}

void validate(const AllocTestParams& p) {
  if (p.threads == 0) throw std::invalid_argument("threads must be at least 1, got 0");
  if (p.max_size_exp < InverseSizeSampler::kMinExp || p.max_size_exp > InverseSizeSampler::kMaxExp)
    throw std::invalid_argument("max size exponent E out of range: " + std::to_string(p.max_size_exp) +
                                " (accepted: " + std::to_string(InverseSizeSampler::kMinExp) + ".." +
                                std::to_string(InverseSizeSampler::kMaxExp) + ")");
  if (p.sizes == SizeModel::fit && p.size_table.empty())
    throw std::invalid_argument("size model fit has no size table (accepted: --sizes fit with --size-fit FIT.json, a file written by allocstress fit)");
  if (p.slots_per_thread() < ParetoSlotPicker::kMinSlots)
    throw std::invalid_argument("slots per thread too few: " + std::to_string(p.slots_total) + " slots / " +
                                std::to_string(p.threads) + " threads (accepted: at least " +
                                std::to_string(ParetoSlotPicker::kMinSlots) + " per thread)");
  if (p.slots_per_thread() > kMaxSlotsPerThread)
    throw std::invalid_argument("slots per thread too many: " + std::to_string(p.slots_per_thread()) + " (accepted: at most " +
                                std::to_string(kMaxSlotsPerThread) + ")");
  if (p.iterations_per_thread == 0) throw std::invalid_argument("iterations per thread must be at least 1, got 0");
  if (p.iterations_per_thread > kMaxIterationsPerThread)
    throw std::invalid_argument("iterations per thread too many: " + std::to_string(p.iterations_per_thread) +
                                " (accepted: at most " + std::to_string(kMaxIterationsPerThread) + ")");
}

}  // namespace allocstress
