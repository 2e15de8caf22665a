// whole_us.mjs - reading ONNX Runtime's traced durations, which its profiler
// writes truncated to whole microseconds (duration_cast<microseconds>, which
// rounds toward zero: a kernel of 2.0 to 2.99 us is written 2), as `foldline
// fit` reads them (client/fit.c, spread_whole_us).
//
// spreadWholeUs(figures): the figures sorted, the k figures equal to d spread
// evenly over [d, d + 1), the j-th (1-based) at d + (j - 0.5) / k. Order
// statistics of the result are those of grouped data interpolated within each
// 1 us bin: the median is the grouped-data median, a lone figure counts as
// d + 0.5. (The least time of `foldline fit --quantile 0` is the least bin
// at its middle, d + 0.5: the runs in it cannot be told apart.)
export function spreadWholeUs(figures) {
  const s = [...figures].sort((a, b) => a - b);
  for (let i = 0; i < s.length;) {
    let k = 1;
    while (i + k < s.length && s[i + k] === s[i]) k++;
    for (let j = 0; j < k; j++) s[i + j] += (j + 0.5) / k;
    i += k;
  }
  return s;
}
