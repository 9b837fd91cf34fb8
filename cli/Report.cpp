#include "Report.h"

#include "core/common/BackendSelection.h"

#include <algorithm>
#include <iostream>

namespace topogpu::cli {

RunOptions parseRunOptions(const Arguments& args) {
  RunOptions options;
  options.backend = parseBackend(args.get("--backend", "auto"));
  options.repeat = int(args.integer("--repeat", 1, 1, 1000000));
  return options;
}

void printResult(const CommandContext& context, const Domain& domain,
                 const CommandResult& result) {
  if (context.json) {
    JsonObject out;
    out.add("command", context.command);
    out.add("input", domain.input);
    out.add("vertices", static_cast<long long>(domain.numberOfVertices()));
    out.add("dimension", domain.dimension());
    out.add("triangulation", domain.triangulation);
    out.add("triangulation_seconds", domain.triangulationSeconds);
    out.merge(result.fields);
    RunReport report = result.report;
    report.warnings.insert(report.warnings.begin(), domain.notes.begin(),
                           domain.notes.end());
    addRunReport(out, report, result.totals);
    std::cout << out.str() << "\n";
    return;
  }
  for (const auto& w : domain.notes)
    std::cerr << "warning: " << w << "\n";
  for (const auto& w : result.report.warnings)
    std::cerr << "warning: " << w << "\n";
  std::cout << context.command << " of " << domain.input << " ("
            << domain.numberOfVertices() << " vertices, " << domain.dimension() << "D, "
            << domain.triangulation << " triangulation), backend "
            << result.report.backend << "\n";
  for (const auto& line : result.lines)
    std::cout << "  " << line << "\n";
  if (domain.triangulationSeconds > 0)
    std::cout << "  time triangulation (outside the total): "
              << domain.triangulationSeconds << " s\n";
  for (const auto& [stage, seconds] : result.report.timings)
    std::cout << "  time " << stage << ": " << seconds << " s\n";
  std::cout << "  total: " << result.report.totalSeconds() << " s\n";
}

void printError(const std::string& command, bool json, const std::string& message) {
  std::cerr << "topogpu" << (command.empty() ? "" : " " + command)
            << ": error: " << message << "\n";
  if (json) {
    JsonObject out;
    if (!command.empty())
      out.add("command", command);
    out.add("error", message);
    std::cout << out.str() << "\n";
  }
}

} // namespace topogpu::cli
