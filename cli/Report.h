// The one output envelope of every subcommand that runs an algorithm on a domain: the
// same JSON object (command, input, domain, the command's own fields, then the
// RunReport) or the same text layout; and errors, as text or as a JSON object.
#pragma once

#include "Commands.h"
#include "Domain.h"
#include "Json.h"

#include "base/Types.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace topogpu::cli {

struct RunOptions {
  Backend backend = Backend::Auto;
  int repeat = 1;
};
// --backend and --repeat, strictly parsed.
RunOptions parseRunOptions(const Arguments& args);

struct CommandResult {
  JsonObject fields;              // the command's own JSON fields
  std::vector<std::string> lines; // the same, as text lines
  RunReport report;               // of the last run
  std::vector<double> totals;     // total seconds of each run (--repeat)
};

// The result, with the domain's input stages and the process's wall time so far.
void printResult(const CommandContext& context, const Domain& domain,
                 const CommandResult& result);

// Seconds since this process started, by the kernel's clock (the shared libraries'
// loading before main included; 10 ms resolution); negative where /proc cannot tell.
double processSeconds();

// Text on stderr; with --json also {"command", "error"} on stdout.
void printError(const std::string& command, bool json, const std::string& message);

// How many V-paths the arcs stand for (the msc commands, on grids and on meshes).
template <typename Arc> long long multiplicitySum(const std::vector<Arc>& arcs) {
  long long sum = 0;
  for (const auto& a : arcs)
    sum += a.multiplicity;
  return sum;
}

// The msc commands' "arcs" object, its saddle-extremum fields.
template <typename Arc>
JsonObject saddleExtremumArcs(const std::vector<Arc>& saddle1Minimum,
                              const std::vector<Arc>& saddleMaximum) {
  JsonObject arcs;
  arcs.add("saddle1_minimum", static_cast<long long>(saddle1Minimum.size()));
  arcs.add("saddle1_minimum_multiplicity_sum", multiplicitySum(saddle1Minimum));
  arcs.add("saddle2_maximum", static_cast<long long>(saddleMaximum.size()));
  arcs.add("saddle2_maximum_multiplicity_sum", multiplicitySum(saddleMaximum));
  return arcs;
}

// Its saddle-saddle fields: the connections and their 64-bit multiplicity sum, written
// as a JSON number exactly (no double rounding).
inline void addSaddleConnections(JsonObject& arcs, std::size_t connections,
                                 std::uint64_t multiplicitySum) {
  arcs.add("saddle1_saddle2", static_cast<long long>(connections));
  arcs.addRaw("saddle1_saddle2_multiplicity_sum", std::to_string(multiplicitySum));
}

} // namespace topogpu::cli
