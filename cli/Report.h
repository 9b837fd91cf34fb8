// The one output envelope of every subcommand that runs an algorithm on a domain: the
// same JSON object (command, input, domain, the command's own fields, then the
// RunReport) or the same text layout; and errors, as text or as a JSON object.
#pragma once

#include "Commands.h"
#include "Domain.h"
#include "Json.h"

#include "core/common/Types.h"

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

void printResult(const CommandContext& context, const Domain& domain,
                 const CommandResult& result);

// Text on stderr; with --json also {"command", "error"} on stdout.
void printError(const std::string& command, bool json, const std::string& message);

} // namespace topogpu::cli
