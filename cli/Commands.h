// Subcommands of `topogpu`; each returns the process exit code. Later modules add theirs
// (msc, rips, geodesic) next to these.
#pragma once

#include <string>
#include <vector>

namespace topogpu::cli {

int runCriticalPoints(const std::vector<std::string>& args);

} // namespace topogpu::cli
