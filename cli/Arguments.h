// "--option value" parsing against a subcommand's option list, and strict number parsing
// (the whole text must be the number; the message names the option).
#pragma once

#include "base/ScalarArray.h"
#include "base/Types.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace topogpu::cli {

struct OptionSpec {
  std::string name;  // "--repeat"
  std::string value; // placeholder of its value ("N"); empty for a switch
  std::string help;  // one line for the usage text
};

class Arguments {
public:
  // Options not in `options`, a repeated option, or a missing value -> Error.
  Arguments(const std::string& command, const std::vector<std::string>& args,
            const std::vector<OptionSpec>& options);
  bool has(const std::string& option) const { return values_.count(option) != 0; }
  std::string get(const std::string& option, const std::string& fallback = "") const;
  std::string require(const std::string& option) const;
  // The option's value as an integer in [min, max], or fallback when it is absent.
  std::int64_t integer(const std::string& option, std::int64_t fallback, std::int64_t min,
                       std::int64_t max) const;

private:
  std::string command_;
  std::map<std::string, std::string> values_;
};

// Parses all of `text` as a base-10 integer in [min, max]; `what` names it in the Error.
std::int64_t parseInteger(const std::string& text, const std::string& what,
                          std::int64_t min, std::int64_t max);

// Parses all of `text` as a real number or "inf" into value; false (value untouched) for
// anything else: empty, leading spaces, trailing characters, NaN, out of double's range.
// The caller names the option in its Error.
bool parseReal(const std::string& text, double& value);

// "4G", "512M", "100K" (powers of 1024) or a plain byte count, > 0; throws Error naming
// --memory-budget otherwise.
double parseByteSize(const std::string& text);

// --memory-budget in bytes, or the host's available memory without it (the default of
// every subcommand that estimates its memory).
double memoryBudgetOption(const Arguments& args);

// Parses --dims: "X,Y,Z" (or "X,Y" for 2D), positive integers, nothing else.
std::array<SimplexId, 3> parseDims(const std::string& text);

// Parses --type: the value type's spellings (uint8, int16, float32, ..., float, double);
// throws Error on anything else.
ScalarType parseScalarType(const std::string& name);

// Whether s ends with suffix (file extensions).
bool endsWith(const std::string& s, const std::string& suffix);
// s in lower case (ASCII), for file extensions in any case.
std::string lowerCase(std::string s);

} // namespace topogpu::cli
