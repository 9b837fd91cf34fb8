// Minimal "--flag value" parsing for the subcommands.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

namespace topogpu::cli {

class Arguments {
public:
  // valueFlags take a value, switches do not; anything else is an error.
  Arguments(const std::vector<std::string>& args, const std::set<std::string>& valueFlags,
            const std::set<std::string>& switches);
  bool has(const std::string& flag) const { return values_.count(flag) != 0; }
  std::string get(const std::string& flag, const std::string& fallback = "") const;
  std::string require(const std::string& flag) const;

private:
  std::map<std::string, std::string> values_;
};

} // namespace topogpu::cli
