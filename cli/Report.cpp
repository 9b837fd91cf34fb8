#include "Report.h"

#include "core/common/BackendSelection.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <sstream>

namespace topogpu::cli {

RunOptions parseRunOptions(const Arguments& args) {
  RunOptions options;
  options.backend = parseBackend(args.get("--backend", "auto"));
  options.repeat = int(args.integer("--repeat", 1, 1, 1000000));
  return options;
}

double processSeconds() {
  std::ifstream stat("/proc/self/stat");
  std::ifstream uptime("/proc/uptime");
  std::string line;
  double now = 0;
  if (!std::getline(stat, line) || !(uptime >> now))
    return -1;
  // Field 22 (start time in clock ticks since boot) counts from the one after the
  // command name, which may hold spaces and parentheses: start after its last ')'.
  std::istringstream fields(line.substr(line.rfind(')') + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  const long ticks = sysconf(_SC_CLK_TCK);
  if (!fields || ticks <= 0)
    return -1;
  return now - std::stod(field) / double(ticks);
}

void printResult(const CommandContext& context, const Domain& domain,
                 const CommandResult& result) {
  const double wall = processSeconds();
  if (context.json) {
    JsonObject out;
    out.add("command", context.command);
    out.add("input", domain.input);
    out.add("vertices", static_cast<long long>(domain.numberOfVertices()));
    out.add("dimension", domain.dimension());
    out.add("triangulation", domain.triangulation);
    if (!domain.orderArray.empty())
      out.add("order_array", domain.orderArray);
    out.add("triangulation_seconds", domain.triangulationSeconds);
    JsonObject inputTimings;
    for (const auto& [stage, seconds] : domain.inputTimings)
      inputTimings.add(stage, seconds);
    out.add("input_timings", inputTimings);
    if (wall >= 0)
      out.add("process_seconds", wall);
    out.merge(result.fields);
    RunReport report = result.report;
    report.warnings.insert(report.warnings.begin(), domain.notes.begin(),
                           domain.notes.end());
    addRunReport(out, report, result.totals);
    std::cout << out.str() << "\n";
    return;
  }
  for (const auto& w : domain.notes)
    std::cerr << "warning: " << w.text << "\n";
  for (const auto& w : result.report.warnings)
    std::cerr << "warning: " << w.text << "\n";
  std::cout << context.command << " of " << domain.input << " ("
            << domain.numberOfVertices() << " vertices, " << domain.dimension() << "D, "
            << domain.triangulation << " triangulation), backend "
            << result.report.backend << "\n";
  if (!domain.orderArray.empty())
    std::cout << "  vertex order: the array " << domain.orderArray << "\n";
  for (const auto& line : result.lines)
    std::cout << "  " << line << "\n";
  for (const auto& [stage, seconds] : domain.inputTimings)
    std::cout << "  time " << stage << " (input, outside the total): " << seconds
              << " s\n";
  for (const auto& [stage, seconds] : result.report.timings)
    std::cout << "  time " << stage << ": " << seconds << " s\n";
  std::cout << "  total: " << result.report.totalSeconds() << " s\n";
  if (wall >= 0)
    std::cout << "  process wall time so far: " << wall << " s\n";
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
