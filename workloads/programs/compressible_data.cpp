// The xz workload's data (see program_inputs.hpp).
#include "workloads/programs/generated_text.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

std::string compressible_data(std::uint64_t seed, unsigned work_percent) {
  GeneratedText text(seed);
  const std::uint64_t bytes = scaled_work(4u << 20, work_percent);
  std::string out;
  out.reserve(bytes + 256);
  for (std::uint64_t line = 0; out.size() < bytes; ++line) {
    if (line % 97 == 0) {  // a short incompressible span
      for (int i = 0; i < 64; ++i) out += char(' ' + text.uniform(0, 94));
      out += '\n';
      continue;
    }
    out += std::to_string(line) + "\t" + text.phrase(unsigned(text.uniform(4, 16))) + "\t" + std::to_string(text.uniform(0, 1u << 20)) + "\n";
  }
  out.resize(bytes);
  return out;
}

}  // namespace allocstress
