// The gcc workload's translation unit (see program_inputs.hpp).
#include "workloads/programs/generated_text.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

std::string generated_c_source(std::uint64_t seed, unsigned work_percent) {
  GeneratedText text(seed);
  const std::uint64_t functions = scaled_work(40, work_percent);
  std::string c = "/* allocstress prog-cc1: a generated translation unit (seed " + std::to_string(seed) + ") */\n"
                  "#include <stddef.h>\n"
                  "struct record { int key; long value; double weight; const char *name; struct record *next; };\n"
                  "static inline long mix(long a, long b) { return (a * 31) ^ (b >> 3); }\n";
  for (std::uint64_t f = 0; f < functions; ++f) {
    const std::string name = "fn_" + std::to_string(f);
    const unsigned cases = unsigned(text.uniform(3, 12));
    c += "long " + name + "(struct record *r, int n, const char *s) {\n"
         "  long acc = " + std::to_string(text.uniform(1, 1000)) + ";\n"
         "  double w = 0.0;\n"
         "  for (int i = 0; i < n; ++i) {\n"
         "    switch ((r[i].key + i) % " + std::to_string(cases) + ") {\n";
    for (unsigned k = 0; k < cases; ++k)
      c += "      case " + std::to_string(k) + ": acc = mix(acc, r[i].value * " + std::to_string(text.uniform(2, 97)) + " + " +
           std::to_string(k) + "); w += r[i].weight * " + std::to_string(text.uniform(1, 9)) + ".5; break;\n";
    c += "      default: acc -= i; break;\n"
         "    }\n"
         "    for (struct record *p = r[i].next; p != NULL; p = p->next) acc += p->key * " + std::to_string(text.uniform(2, 13)) + ";\n"
         "  }\n"
         "  static const char *const words[] = {\"" + text.word() + "\", \"" + text.word() + "\", \"" + text.word() + "\"};\n"
         "  for (const char *q = s; q && *q; ++q) acc += *q * (long)(words[(size_t)acc % 3][0]);\n";
    if (f > 0) c += "  if (acc % 7 == 0 && n > 1) acc += fn_" + std::to_string(text.uniform(0, f - 1)) + "(r + 1, n - 1, s);\n";
    c += "  return acc + (long)w;\n}\n";
  }
  return c;
}

}  // namespace allocstress
