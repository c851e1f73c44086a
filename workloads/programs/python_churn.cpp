// The python3 workload's script: object churn (see program_inputs.hpp).
#include "workloads/programs/generated_text.hpp"
#include "workloads/programs/program_inputs.hpp"

namespace allocstress {

std::string python_churn_script(std::uint64_t seed, unsigned work_percent) {
  const std::uint64_t steps = scaled_work(60000, work_percent);
  return "# allocstress prog-python3: object churn in a sliding window of live objects (generated, seed " + std::to_string(seed) + ")\n"
         "import random\n"
         "random.seed(" + std::to_string(seed) + ")\n"
         "STEPS = " + std::to_string(steps) + "\n"
         "WINDOW = 20000\n"
         "class Node:\n"
         "    def __init__(self, key, value):\n"
         "        self.key = key\n"
         "        self.value = value\n"
         "        self.children = []\n"
         "def make(i):\n"
         "    kind = i % 6\n"
         "    if kind == 0:\n"
         "        return {str(random.random()): list(range(random.randint(1, 40))) for _ in range(random.randint(1, 8))}\n"
         "    if kind == 1:\n"
         "        n = Node(i, 'x' * random.randint(1, 300))\n"
         "        n.children = [Node(j, None) for j in range(random.randint(0, 6))]\n"
         "        return n\n"
         "    if kind == 2:\n"
         "        return tuple(random.random() for _ in range(random.randint(1, 20)))\n"
         "    if kind == 3:\n"
         "        return ' '.join(str(random.randint(0, 10 ** 6)) for _ in range(random.randint(1, 30)))\n"
         "    if kind == 4:\n"
         "        return bytearray(random.randint(1, 1 << random.randint(4, 16)))\n"
         "    return [[k] * random.randint(1, 10) for k in range(random.randint(1, 12))]\n"
         "window = []\n"
         "checksum = 0\n"
         "for i in range(STEPS):\n"
         "    obj = make(i)\n"
         "    if len(window) < WINDOW:\n"
         "        window.append(obj)\n"
         "    else:\n"
         "        window[random.randrange(WINDOW)] = obj\n"
         "    if i % 40000 == 39999:\n"
         "        window.sort(key=lambda o: (type(o).__name__, len(o) if hasattr(o, '__len__') else 0))\n"
         "        del window[: WINDOW // 2]\n"
         "    checksum = (checksum + len(window)) % 1000003\n"
         "print('prog-python3', STEPS, 'steps, checksum', checksum)\n";
}

}  // namespace allocstress
