// The subcommand table of `topogpu`: one row per subcommand (name, summary, options with
// their help, handler). The usage text, `topogpu help` and `topogpu CMD --help` are
// generated from it, and every subcommand rejects options it does not list. A new module
// adds its row in Commands.cpp and its handler in its own file.
#pragma once

#include "Arguments.h"

#include <string>
#include <vector>

namespace topogpu::cli {

struct CommandContext {
  std::string command;
  bool json = false;
  // What the command is doing now ("reading 'x.vtu'"), named when memory runs out.
  std::string activity;
};

struct Command {
  std::string name;
  std::string summary;               // one line for `topogpu help`
  std::vector<std::string> synopsis; // argument forms, after "topogpu NAME "
  std::vector<OptionSpec> options;
  std::string details; // paragraph after the options in `topogpu NAME --help`
  int (*run)(const Arguments& args, CommandContext& context);
};

const std::vector<Command>& commandTable();
const Command* findCommand(const std::string& name);
std::string usageText();
std::string helpText(const Command& command);

// Option groups shared by the subcommands that run an algorithm.
std::vector<OptionSpec> runOptions(); // --backend --json --repeat
// --complex cubical|simplicial (discrete-gradient, msc).
OptionSpec complexOption();
std::vector<OptionSpec> concat(std::vector<std::vector<OptionSpec>> groups);

struct Domain;
// --complex of discrete-gradient and msc: "cubical" or "simplicial" (Error otherwise, or
// cubical on a mesh); the default is cubical on grids, simplicial on mesh files.
std::string chooseComplex(const Arguments& args, const Domain& domain);

// Handlers (one file each).
int runCriticalPoints(const Arguments& args, CommandContext& context);
int runDiscreteGradient(const Arguments& args, CommandContext& context);
int runGeodesic(const Arguments& args, CommandContext& context);
int runMorseSmaleComplex(const Arguments& args, CommandContext& context);
// msc on the simplicial complex (SimplicialMscCommand.cpp), after the domain is loaded.
int runSimplicialMorseSmaleComplex(const Arguments& args, CommandContext& context,
                                   Domain& domain);
int runPersistence(const Arguments& args, CommandContext& context);
int runRips(const Arguments& args, CommandContext& context);
int runInfo(const Arguments& args, CommandContext& context);
int runSmooth(const Arguments& args, CommandContext& context);
int runSimplify(const Arguments& args, CommandContext& context);

} // namespace topogpu::cli
