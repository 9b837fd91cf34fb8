// Order-keeping selection by all cores (the CPU twin of the GPU's copy_if): [0, n) is
// cut into blocks, each block's selected items are counted in parallel, the counts'
// prefix sums give each block its place in the output, and each block then writes its
// part there. Nothing is sorted and nothing is written twice.
#pragma once

#include "base/Types.h"

#include <tbb/parallel_for.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <vector>

namespace topogpu {

namespace detail {

template <typename T> void addCounts(T& to, const T& from) {
  to += from;
}

template <typename T, std::size_t N>
void addCounts(std::array<T, N>& to, const std::array<T, N>& from) {
  for (std::size_t k = 0; k < N; ++k)
    to[k] += from[k];
}

} // namespace detail

// Counts is a count, or a std::array of counts for several selections made in one pass.
template <typename Counts = SimplexId> class BlockSelection {
public:
  // count(first, last) gives the Counts of the block [first, last). Blocks have about
  // blockSize items.
  template <typename Count>
  BlockSelection(SimplexId n, SimplexId blockSize, Count&& count)
      : n_(std::max<SimplexId>(0, n)),
        blocks_(std::clamp<SimplexId>(
            (n_ + blockSize - 1) / std::max<SimplexId>(1, blockSize), 1, kMaxBlocks)),
        offsets_(std::size_t(blocks_ + 1), Counts{}) {
    tbb::parallel_for(SimplexId(0), blocks_, [&](SimplexId b) {
      offsets_[std::size_t(b + 1)] = count(first(b), first(b + 1));
    });
    for (SimplexId b = 0; b < blocks_; ++b)
      detail::addCounts(offsets_[std::size_t(b + 1)], offsets_[std::size_t(b)]);
  }

  // The Counts of all blocks together: the output's size.
  const Counts& total() const { return offsets_.back(); }

  // write(first, last, at) for every block in parallel, at = the Counts of the blocks
  // before it (where its part of the output starts).
  template <typename Write> void write(Write&& write) const {
    tbb::parallel_for(SimplexId(0), blocks_, [&](SimplexId b) {
      write(first(b), first(b + 1), offsets_[std::size_t(b)]);
    });
  }

private:
  // Enough that blocks keep about blockSize items up to 2^36 of them.
  static constexpr SimplexId kMaxBlocks = SimplexId(1) << 20;

  SimplexId first(SimplexId b) const {
    return n_ / blocks_ * b + n_ % blocks_ * b / blocks_;
  }

  SimplexId n_;
  SimplexId blocks_;
  std::vector<Counts> offsets_;
};

// The i in [0, n) for which keep(i) holds, ascending.
template <typename Keep>
std::vector<SimplexId> selectIndices(SimplexId n, Keep&& keep,
                                     SimplexId blockSize = SimplexId(1) << 16) {
  const BlockSelection<SimplexId> selection(n, blockSize,
                                            [&](SimplexId first, SimplexId last) {
                                              SimplexId count = 0;
                                              for (SimplexId i = first; i < last; ++i)
                                                count += keep(i) ? 1 : 0;
                                              return count;
                                            });
  std::vector<SimplexId> selected(std::size_t(selection.total()));
  selection.write([&](SimplexId first, SimplexId last, SimplexId at) {
    for (SimplexId i = first; i < last; ++i)
      if (keep(i))
        selected[std::size_t(at++)] = i;
  });
  return selected;
}

} // namespace topogpu
