// The global vertex order shared by every algorithm: vertices sorted by scalar value,
// ties broken by vertex index (simulation of simplicity). order[v] is v's rank.
#pragma once

#include "base/ScalarArray.h"
#include "base/Types.h"

#include <functional>
#include <memory>
#include <vector>

namespace topogpu {

// CPU path: counting sort (8/16-bit values) or TBB parallel sort, or a copy of the
// order given with the values (ScalarArrayView::order). Reports progress
// 0..1 between its stages and throws Aborted when monitor asks.
void computeVertexOrderCpu(const ScalarArrayView& values, SimplexId* order,
                           const Monitor& monitor = Monitor{});

// Runs on the backend the request resolves to (see resolveBackend) and records it in
// report; a GPU failure falls back to the CPU with a warning (runWithFallback). The GPU
// and CPU paths give identical orders.
void computeVertexOrder(const ScalarArrayView& values, SimplexId* order, Backend backend,
                        RunReport& report, const Monitor& monitor = Monitor{});

// A field's vertex order held by a front end, read (never written) by the modules.
using SharedVertexOrder = std::shared_ptr<const std::vector<SimplexId>>;

// Where a module's CPU path takes the vertex order of the values it runs on: a front end
// that runs several modules on one field hands them one source (frontend's
// VertexOrderCache), so the field is sorted once; without a source the path sorts it
// itself. The monitor covers the part of the progress bar the sort takes; reused is set
// when the order was there before this call.
using VertexOrderSource = std::function<SharedVertexOrder(const ScalarArrayView&,
                                                          const Monitor&, bool& reused)>;

// The vertex order a CPU path reads: the source's, or one of the path's own.
struct VertexOrderView {
  SharedVertexOrder shared;
  std::vector<SimplexId> own;
  bool reused = false;

  const SimplexId* data() const { return shared ? shared->data() : own.data(); }
  // Hands the order over to a later stage (moved when it is the path's own).
  void moveTo(std::vector<SimplexId>& keep) {
    if (shared)
      keep = *shared;
    else
      keep = std::move(own);
  }
};

// The order of values from source, else computed with computeVertexOrderCpu. Records
// the stage in report: "vertex order (cpu)", or "vertex order (cached)" when the source
// had it already.
VertexOrderView vertexOrderOf(const VertexOrderSource& source,
                              const ScalarArrayView& values, const Monitor& monitor,
                              RunReport& report);

} // namespace topogpu
