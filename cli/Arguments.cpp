#include "Arguments.h"

#include "base/Types.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace topogpu::cli {

namespace {
// "-" alone is an operand (standard input, by convention), not an option.
bool looksLikeOption(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-';
}

[[noreturn]] void unknownArgument(const std::string& command, const std::string& arg) {
  throw Error((looksLikeOption(arg) ? "unknown option '" : "unexpected argument '") +
              arg + "' (see 'topogpu " + command + " --help')");
}
} // namespace

Arguments::Arguments(const std::string& command, const std::vector<std::string>& args,
                     const std::vector<OptionSpec>& options)
    : command_(command) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const OptionSpec* spec = nullptr;
    for (const auto& o : options) {
      if (o.name == a)
        spec = &o;
    }
    if (spec == nullptr) {
      // A subcommand with an operand (`rips FILE`) lists it as an option named "<FILE>".
      const auto operand =
          std::find_if(options.begin(), options.end(), [](const OptionSpec& o) {
            return !o.name.empty() && o.name[0] == '<';
          });
      if (operand != options.end() && !looksLikeOption(a) &&
          !values_.count(operand->name)) {
        values_[operand->name] = a;
        continue;
      }
      unknownArgument(command, a);
    }
    if (values_.count(a))
      throw Error("option " + a + " is given twice");
    if (spec->value.empty()) {
      values_[a] = "1";
      continue;
    }
    // "--repeat --json": the value is missing, not "--json".
    const bool nextIsOption =
        i + 1 < args.size() &&
        std::any_of(options.begin(), options.end(),
                    [&](const OptionSpec& o) { return o.name == args[i + 1]; });
    if (i + 1 >= args.size() || nextIsOption)
      throw Error("option " + a + " needs a value (" + spec->value + ")");
    values_[a] = args[++i];
  }
}

std::string Arguments::get(const std::string& option, const std::string& fallback) const {
  const auto it = values_.find(option);
  return it == values_.end() ? fallback : it->second;
}

std::string Arguments::require(const std::string& option) const {
  if (!has(option))
    throw Error("missing required option " + option + " (see 'topogpu " + command_ +
                " --help')");
  return get(option);
}

std::int64_t Arguments::integer(const std::string& option, std::int64_t fallback,
                                std::int64_t min, std::int64_t max) const {
  if (!has(option))
    return fallback;
  return parseInteger(get(option), "option " + option, min, max);
}

std::int64_t parseInteger(const std::string& text, const std::string& what,
                          std::int64_t min, std::int64_t max) {
  std::int64_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  const std::string range = std::to_string(min) + ".." + std::to_string(max);
  if (ec == std::errc::result_out_of_range)
    throw Error(what + ": '" + text + "' is out of range (" + range + ")");
  if (text.empty() || ec != std::errc() || ptr != end)
    throw Error(what + ": '" + text + "' is not an integer");
  if (value < min || value > max)
    throw Error(what + ": " + text + " is out of range (" + range + ")");
  return value;
}

bool parseReal(const std::string& text, double& value) {
  if (text == "inf") {
    value = std::numeric_limits<double>::infinity();
    return true;
  }
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0])))
    return false;
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || std::isnan(parsed))
    return false;
  value = parsed;
  return true;
}

} // namespace topogpu::cli
