// A patchFIM run's upload (PatchFimUpload.cu): the start on the main stream, and, on
// the first run on a DeviceState, the patch tables, the per-patch ones staged on the
// copy stream while the first rounds run.
#pragma once

#include "PatchFimDeviceState.cuh"
#include "core/eikonal/Patches.h"

#include <cstdint>
#include <vector>

namespace topogpu::gpu::patchfim {

// The main stream's part, in this order: (with uploadTables) the staged upload's ready
// count zeroed first on the copy stream; every vertex cleared, the start list
// scattered (through the page-locked staging block when it holds the list); the
// schedule stamps and lists cleared; (uploadTables) the patch offsets and own counts;
// the first active list (returned) and the small state; (uploadTables) the readers;
// (persistent) the value locations. st: d.st with this run's band.
std::vector<std::int32_t> uploadStart(DeviceState& d, const RoundState& st,
                                      const eikonal::PatchArrays& arrays,
                                      const eikonal::PatchFimSettings& settings,
                                      const eikonal::FixedVertices& fixed,
                                      bool uploadTables);

// The staged upload of the tables read per patch (local vertices, solve offsets, GEO,
// slot patches), in chunks of patches, each followed by the count of patches it
// completed, on the copy stream, queued after the main stream's copies (they share the
// copy engine: the small ones go first). The persistent kernel starts as soon as the
// rest is up and waits per patch for its chunk (buildPatchArrays numbered the patches
// from the seeds, so the front meets them about in upload order); the multi-launch
// rounds wait for the whole upload (this returns once it is done). Chunks end on
// 128-byte boundaries of every array (a cache line is in one chunk: no line is read
// before it is whole); a patch counts as ready once all its bytes are up. Then the
// vertices' patches (persistent: read by the gather only) and d.copied. Later runs find
// the tables there (d.tablesUp) and the ready count at np.
void uploadTablesStaged(DeviceState& d, const eikonal::PatchArrays& arrays);

} // namespace topogpu::gpu::patchfim
