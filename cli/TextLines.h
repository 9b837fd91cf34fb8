// Text files of many lines (a diagram's pairs, a field's values): the lines are
// formatted in blocks by all cores (TBB) into memory, then written in order, block by
// block; a stream's per-number formatting took longer than the computation.
#pragma once

#include "base/Types.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace topogpu::cli {

// Writes header, then line i for i < count: write(i, at) formats line i (its '\n'
// included, at most kMaxLine characters) at `at` and returns its end. Throws Error with
// `failure` (naming the file) when the file cannot be written.
template <std::size_t kMaxLine, typename WriteLine>
void writeTextLines(const std::string& path, const std::string& header, std::size_t count,
                    WriteLine&& write, const std::string& failure) {
  constexpr std::size_t kBlock = std::size_t(1) << 14;
  const std::size_t blocks = (count + kBlock - 1) / kBlock;
  std::vector<std::string> text(blocks);
  tbb::parallel_for(std::size_t(0), blocks, [&](std::size_t b) {
    const std::size_t first = b * kBlock, end = std::min(count, first + kBlock);
    std::string& out = text[b];
    out.resize((end - first) * kMaxLine);
    char* at = out.data();
    for (std::size_t i = first; i < end; ++i)
      at = write(i, at);
    out.resize(std::size_t(at - out.data()));
  });
  std::FILE* file = std::fopen(path.c_str(), "w");
  bool ok = file != nullptr &&
            std::fwrite(header.data(), 1, header.size(), file) == header.size();
  for (std::size_t b = 0; ok && b < blocks; ++b)
    ok = std::fwrite(text[b].data(), 1, text[b].size(), file) == text[b].size();
  if (file != nullptr && std::fclose(file) != 0)
    ok = false;
  if (!ok)
    throw Error(failure);
}

} // namespace topogpu::cli
