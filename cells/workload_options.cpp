// Option values and the shared options (see workload_options.hpp).
#include "cells/workload_options.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "platform/errors.hpp"

namespace allocstress {

namespace {

std::string said(const WorkloadOption& o, const std::string& text) { return std::string(o.flag) + " '" + text + "'"; }

std::uint64_t whole_number(const WorkloadOption& o, const std::string& text) {
  const bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
  errno = 0;
  const unsigned long long v = digits ? std::strtoull(text.c_str(), nullptr, 10) : 0;
  if (!digits || errno == ERANGE)
    throw UsageError(said(o, text) + " is not a whole number (accepted: 0, 1, 2, ... up to 2^64 - 1)");
  return v;
}

double decimal(const WorkloadOption& o, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const double v = text.empty() ? 0 : std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    throw UsageError(said(o, text) + " is not a number (accepted: a decimal number such as 1.5)");
  return v;
}

}  // namespace

nlohmann::json option_value(const WorkloadOption& o, const std::string& text) {
  switch (o.kind) {
    case OptionKind::count: return whole_number(o, text);
    case OptionKind::number: return decimal(o, text);
    case OptionKind::percent: {
      const double v = decimal(o, text);
      if (!(v >= 0 && v <= 100))
        throw UsageError(std::string(o.flag) + " " + nlohmann::json(v).dump() + " is out of range (accepted: a percentage 0..100)");
      return v / 100;
    }
    case OptionKind::word: return text;
    case OptionKind::flag: return text != "false";
    case OptionKind::file: {
      std::error_code ec;
      const std::string what = std::string(o.flag) + " " + text;
      if (!std::filesystem::is_regular_file(text, ec)) throw UsageError(what + ": the file does not exist or is not a file");
      if (::access(text.c_str(), R_OK) != 0) throw UsageError(what + ": the file is not readable");
      return std::filesystem::absolute(text).string();
    }
  }
  return text;
}

std::string option_text(const WorkloadOption& o, const nlohmann::json& value) {
  switch (o.kind) {
    case OptionKind::flag: return value.is_boolean() && value.get<bool>() ? "true" : "";
    case OptionKind::word:
    case OptionKind::file: return value.is_string() ? value.get<std::string>() : value.dump();
    case OptionKind::percent: {
      // The shortest text whose percentage reads back as exactly this fraction.
      const double fraction = value.get<double>();
      char text[64];
      for (int decimals = 0; decimals <= 17; ++decimals) {
        std::snprintf(text, sizeof text, "%.*f", decimals, fraction * 100);
        if (std::strtod(text, nullptr) / 100 == fraction) return text;
      }
      return text;
    }
    case OptionKind::count:
    case OptionKind::number: return value.dump();  // nlohmann: the shortest text that reads back as the same value
  }
  return value.dump();
}

const WorkloadOption kSeedOption{"--seed", "seed", OptionKind::count, "Seed of the operation stream", kGeneralWorkloadGroup};
const WorkloadOption kSlotsOption{"--slots", "slots_total", OptionKind::count,
                                  "Total slots of alloc-test's slot arrays, split equally across threads", kSizedGroup};
const WorkloadOption kSizesOption{"--sizes", "size_model", OptionKind::word,
                                  "Block sizes: inverse (p ~ 1/size below 2^E), fleet (a published production mix) or fit (a program's measured "
                                  "mix: the sizes of --size-fit)",
                                  kSizedGroup};
const WorkloadOption kSizeFitOption{"--size-fit", "size_fit", OptionKind::file,
                                    "With --sizes fit: the fit file (from `allocstress fit`) whose size table the sizes are drawn from", kSizedGroup};
const WorkloadOption kMaxSizeExpOption{"--max-size-exp", "max_size_exp", OptionKind::count,
                                       "E: --sizes inverse draws sizes < 2^E (accepted: 3..28)", kSizedGroup};
const WorkloadOption kIterationsOption{"--iterations", "iterations_per_thread", OptionKind::count,
                                       "Operations per thread (lifetime: allocations per thread)", kSizedGroup};
const WorkloadOption kAccessOption{"--access", "memory_access", OptionKind::word,
                                   "Memory access per block: none, touch (one write per 4 KiB page), write (every byte) or write_read (every byte, read back "
                                   "before the free); default write_read (replay: touch)", kGeneralWorkloadGroup};
const WorkloadOption kLiveBytesOption{"--live-bytes", "live_bytes", OptionKind::count,
                                      "Target live heap of all threads together, bytes", kLifetimeGroup};

}  // namespace allocstress
