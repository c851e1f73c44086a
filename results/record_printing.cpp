// Printing a cell's record (see record_printing.hpp).
#include "results/record_printing.hpp"

#include <iostream>
#include <string>

#include "platform/errors.hpp"
#include "platform/json_text.hpp"

namespace allocstress {

int print_cell_record(const nlohmann::json& record) {
  std::cout << json_text(record) << std::endl;
  if (record.value("status", "") == "ok") return 0;
  std::cerr << "allocstress: error: cell failed: " << record.value("reason", std::string("(no reason recorded)")) << "\n";
  return kExitCellFailed;
}

}  // namespace allocstress
