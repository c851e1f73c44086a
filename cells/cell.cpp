// Cell modes (see cell.hpp).
#include "cells/cell.hpp"
#include "cells/measured_phase.hpp"
#include "cells/record_identity.hpp"
#include "platform/enum_words.hpp"

#include <stdexcept>
#include <string>

namespace allocstress {

namespace {
constexpr EnumWord<CellMode> kModeWords[] = {{CellMode::timing, "timing"}, {CellMode::simulate, "simulate"}, {CellMode::profile, "profile"},
                                             {CellMode::counts, "counts"}, {CellMode::limited, "limited"}, {CellMode::aged, "aged"},
                                             {CellMode::thp, "thp"},       {CellMode::soak, "soak"}};
}  // namespace

std::string_view to_string(CellMode mode) { return word_of(kModeWords, mode, "timing"); }
CellMode parse_cell_mode(std::string_view text) { return parse_word(kModeWords, text, "cell mode"); }

std::string_view mode_suffix(CellMode mode) {
  switch (mode) {
    case CellMode::timing: return "";
    case CellMode::simulate: return "/cache-sim";
    case CellMode::profile: return "/profile";
    case CellMode::counts: return "/counts";
    case CellMode::limited: return "/limited";
    case CellMode::aged: return "/aged";
    case CellMode::thp: return "/thp";
    case CellMode::soak: return "/soak";
  }
  return "";
}

std::string name_suffix(const Cell& cell) { return std::string(mode_suffix(cell.mode)) + instance_suffix(record_key(cell).instance); }

namespace {
bool counting = false;
bool marking = false;
}  // namespace

void set_counting_measured_phase(bool on) { counting = on; }
bool counting_measured_phase() { return counting; }
void set_marking_measured_phase(bool on) { marking = on; }
bool marking_measured_phase() { return marking; }

}  // namespace allocstress
