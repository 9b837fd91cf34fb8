// topogpu: command-line front end of TopoGPU; how GPU benchmarks run on machines
// without VTK or ParaView. Dispatches through the subcommand table (Commands.cpp) and
// turns every failure into exit code 1 and a message naming the problem.
#include "Commands.h"
#include "Report.h"

#include "base/Types.h"
#include "frontend/EnvironmentKnobs.h"

#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>

int main(int argc, char** argv) {
  using namespace topogpu::cli;
  if (argc < 2) {
    std::cerr << usageText();
    return 1;
  }
  const std::string name = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (name == "--help" || name == "-h" || name == "help") {
    if (args.empty()) {
      std::cout << usageText();
      return 0;
    }
    if (const Command* command = findCommand(args[0]); command && args.size() == 1) {
      std::cout << helpText(*command);
      return 0;
    }
    std::cerr << "topogpu help: no command '" << args[0] << "'\n" << usageText();
    return 1;
  }
  const Command* command = findCommand(name);
  if (command == nullptr) {
    std::cerr << "topogpu: unknown command '" << name << "'\n" << usageText();
    return 1;
  }
  CommandContext context;
  context.command = name;
  context.activity = "running " + name;
  for (const auto& a : args) {
    if (a == "--help" || a == "-h") {
      std::cout << helpText(*command);
      return 0;
    }
    if (a == "--json")
      context.json = true; // before parsing, so that parse errors are JSON too
  }
  try {
    if (args.empty() && !command->synopsis.empty() && command->synopsis[0][0] != '[') {
      std::cerr << helpText(*command);
      throw topogpu::Error("no options given");
    }
    // The process-wide knobs of the environment, once, before any algorithm runs.
    topogpu::frontend::applyProcessKnobs();
    const Arguments parsed(name, args, command->options);
    context.json = parsed.has("--json"); // "--json" may have been another option's value
    return command->run(parsed, context);
  } catch (const topogpu::Error& e) {
    printError(name, context.json, e.what());
  } catch (const topogpu::Aborted& e) {
    printError(name, context.json, e.what());
  } catch (const std::bad_alloc&) {
    printError(name, context.json, "not enough memory for " + context.activity);
  } catch (const std::length_error&) {
    printError(name, context.json,
               "the input is too large (more elements than memory can index) for " +
                   context.activity);
  } catch (const std::exception&) {
    printError(name, context.json,
               "unexpected internal failure while " + context.activity +
                   " (please report it with the command line)");
  } catch (...) {
    printError(name, context.json,
               "unexpected internal failure while " + context.activity);
  }
  return 1;
}
