// The vertex order of the fields a front end runs modules on, sorted once per field and
// handed to every module (their Parameters::vertexOrder): a Critical Points ->
// Discrete Gradient -> Morse-Smale chain on one field, or the CLI's Morse-Smale complex
// and its persistence pairs, sort it once. A field is known by its values' address,
// type and size and a hash of the values themselves (one pass over memory, far cheaper
// than a sort), so values changed in place are sorted again, whoever forgot to say so.
// The last few fields are kept; thread-safe.
#pragma once

#include "core/common/VertexOrder.h"

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

namespace topogpu::frontend {

class VertexOrderCache {
public:
  explicit VertexOrderCache(std::size_t capacity = 2) : capacity_(capacity) {}

  // The order of values (computeVertexOrderCpu, progress on monitor), computed unless
  // held; reused says which.
  SharedVertexOrder orderOf(const ScalarArrayView& values, const Monitor& monitor,
                            bool& reused);

  // A source for a module's Parameters::vertexOrder. The cache must outlive the run.
  VertexOrderSource source();

  // How many orders were computed (not reused) so far: for tests.
  std::size_t computed() const;

private:
  struct Entry;
  mutable std::mutex mutex_;
  std::list<std::shared_ptr<Entry>> entries_; // most recently used first
  std::size_t capacity_;
  std::size_t computed_ = 0;
};

// A 64-bit hash of the values' bytes (in parallel; the same for the same bytes).
std::uint64_t hashValues(const ScalarArrayView& values);

} // namespace topogpu::frontend
