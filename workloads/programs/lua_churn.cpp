// The lua5.4 workload's script: table churn (see program_inputs.hpp).
#include "workloads/programs/generated_text.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

std::string lua_churn_script(std::uint64_t seed, unsigned work_percent) {
  const std::uint64_t steps = scaled_work(80000, work_percent);
  return "-- allocstress prog-lua: table churn in a sliding window of live tables (generated, seed " + std::to_string(seed) + ")\n"
         "math.randomseed(" + std::to_string(seed) + ")\n"
         "local STEPS, WINDOW = " + std::to_string(steps) + ", 20000\n"
         "local window, checksum = {}, 0\n"
         "local function make(i)\n"
         "  local kind = i % 5\n"
         "  if kind == 0 then\n"
         "    local t = {}\n"
         "    for j = 1, math.random(1, 40) do t[j] = j * i end\n"
         "    return t\n"
         "  elseif kind == 1 then\n"
         "    return {name = 'n' .. i, value = math.random(), tags = {'a', 'b', tostring(i)}}\n"
         "  elseif kind == 2 then\n"
         "    local parts = {}\n"
         "    for j = 1, math.random(1, 20) do parts[j] = tostring(math.random(1, 1000000)) end\n"
         "    return {text = table.concat(parts, ',')}\n"
         "  elseif kind == 3 then\n"
         "    local t = {}\n"
         "    for j = 1, math.random(1, 16) do t['k' .. j] = {j, j + 1} end\n"
         "    return t\n"
         "  else\n"
         "    return {string.rep('x', math.random(1, 1 << math.random(3, 14)))}\n"
         "  end\n"
         "end\n"
         "for i = 1, STEPS do\n"
         "  local obj = make(i)\n"
         "  if #window < WINDOW then window[#window + 1] = obj else window[math.random(1, WINDOW)] = obj end\n"
         "  if i % 50000 == 0 then\n"
         "    table.sort(window, function(a, b) return #a < #b end)\n"
         "    for j = #window, WINDOW // 2, -1 do window[j] = nil end\n"
         "  end\n"
         "  checksum = (checksum + #window) % 1000003\n"
         "end\n"
         "print('prog-lua', STEPS, 'steps, checksum', checksum)\n";
}

}  // namespace allocstress
