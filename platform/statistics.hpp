// Small pure statistics used to summarise repetitions: median, min, max, coefficient of variation.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace allocstress {

struct Summary {
  double median = 0, min = 0, max = 0;
  double cv = 0;  // sample standard deviation / |mean|; 0 for one value; NaN (undefined) when the mean is 0
  std::size_t count = 0;
};

// pre: !values.empty()
inline Summary summarise(std::vector<double> values) {
  Summary s;
  s.count = values.size();
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  s.min = values.front();
  s.max = values.back();
  s.median = n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
  if (n >= 2) {
    double mean = 0;
    for (double v : values) mean += v;
    mean /= double(n);
    double ss = 0;
    for (double v : values) ss += (v - mean) * (v - mean);
    const double sd = std::sqrt(ss / double(n - 1));
    s.cv = mean != 0 ? sd / std::fabs(mean) : std::nan("");
  }
  return s;
}

}  // namespace allocstress
