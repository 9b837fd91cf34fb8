// GALE's own costs in a command's output (the paper's figure 10), shared by the commands
// that take --triangulation gale-cpu|gale-gpu.
#pragma once

#include "Domain.h"
#include "Report.h"

namespace topogpu::cli {

// When the domain is GALE: the producer's warnings of the run (GPU failure) into
// result.report, and a "gale" JSON object (producer, segments, initialization and
// consumer wait seconds with their breakdown, requests, batches, segments computed,
// peak cache and memory bytes) plus a text line. Call after result.report is set.
void addGaleReport(const Domain& domain, CommandResult& result);

} // namespace topogpu::cli
