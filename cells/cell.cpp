// Cell modes (see cell.hpp).
#include "cells/cell.hpp"

#include <stdexcept>
#include <string>

namespace allocstress {

std::string_view to_string(CellMode mode) {
  switch (mode) {
    case CellMode::timing: return "timing";
    case CellMode::simulate: return "simulate";
    case CellMode::profile: return "profile";
  }
  return "timing";
}

CellMode parse_cell_mode(std::string_view text) {
  for (CellMode m : {CellMode::timing, CellMode::simulate, CellMode::profile})
    if (to_string(m) == text) return m;
  throw std::invalid_argument("unknown cell mode '" + std::string(text) + "' (accepted: timing, simulate, profile)");
}

}  // namespace allocstress
