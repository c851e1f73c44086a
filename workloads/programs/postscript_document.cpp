// The ghostscript workload's document (see program_inputs.hpp).
#include <cstdio>

#include "workloads/programs/generated_text.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

std::string generated_postscript(std::uint64_t seed, unsigned work_percent) {
  GeneratedText text(seed);
  const std::uint64_t pages = scaled_work(12, work_percent);
  std::string ps = "%!PS-Adobe-3.0\n%%Title: allocstress prog-ghostscript (generated, seed " + std::to_string(seed) + ")\n"
                   "%%Pages: " + std::to_string(pages) + "\n%%EndComments\n"
                   "/Helvetica findfont 14 scalefont setfont\n";
  auto num = [&](std::uint64_t lo, std::uint64_t hi) { return std::to_string(text.uniform(lo, hi)); };
  for (std::uint64_t p = 1; p <= pages; ++p) {
    ps += "%%Page: " + std::to_string(p) + " " + std::to_string(p) + "\n";
    for (int shape = 0; shape < 160; ++shape) {
      char gray[16];
      std::snprintf(gray, sizeof gray, "%.3f", double(text.uniform(0, 1000)) / 1000.0);
      ps += "gsave " + num(0, 595) + " " + num(0, 842) + " translate " + num(0, 359) + " rotate " + std::string(gray) + " setgray\n"
            "newpath 0 0 moveto";
      for (int c = 0; c < 6; ++c) ps += " " + num(0, 120) + " " + num(0, 120) + " " + num(0, 120) + " " + num(0, 120) + " " +
                                      num(0, 120) + " " + num(0, 120) + " curveto";
      ps += shape % 3 == 0 ? " closepath fill" : shape % 3 == 1 ? " closepath eofill" : " " + num(1, 4) + " setlinewidth stroke";
      ps += " grestore\n";
    }
    ps += "gsave newpath 50 50 moveto 500 0 rlineto 0 700 rlineto -500 0 rlineto closepath clip\n";
    for (int line = 0; line < 45; ++line)
      ps += "60 " + std::to_string(60 + line * 15) + " moveto (" + text.phrase(unsigned(text.uniform(3, 9))) + ") show\n";
    ps += "grestore showpage\n";
  }
  return ps + "%%EOF\n";
}

}  // namespace allocstress
