#include "Arguments.h"

#include "base/HostMemory.h"
#include "base/Types.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string_view>

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

double parseByteSize(const std::string& text) {
  const std::string digits = text.empty() ? text : text.substr(0, text.size() - 1);
  const char unit = text.empty() ? '\0' : char(std::toupper(text.back()));
  const double scale = unit == 'K'   ? 1024.0
                       : unit == 'M' ? 1024.0 * 1024
                       : unit == 'G' ? 1024.0 * 1024 * 1024
                                     : 0;
  double value = 0;
  if (!parseReal(scale > 0 ? digits : text, value) || !(value > 0) || std::isinf(value))
    throw Error("--memory-budget must be a size > 0 in bytes, or with K, M or G "
                "(e.g. 4G), got '" +
                text + "'");
  return scale > 0 ? value * scale : value;
}

double memoryBudgetOption(const Arguments& args) {
  return args.has("--memory-budget") ? parseByteSize(args.get("--memory-budget"))
                                     : availableHostMemory();
}

std::array<SimplexId, 3> parseDims(const std::string& text) {
  std::array<SimplexId, 3> dims{1, 1, 1};
  const std::string usage =
      "--dims expects X,Y,Z (or X,Y) positive integers, got '" + text + "'";
  std::size_t begin = 0;
  int count = 0;
  while (true) {
    const std::size_t comma = text.find(',', begin);
    const std::string_view part = std::string_view(text).substr(
        begin, comma == std::string::npos ? std::string::npos : comma - begin);
    if (count == 3)
      throw Error("--dims takes at most three sizes: '" + text + "'");
    std::int64_t value = 0;
    const char* end = part.data() + part.size();
    const auto [ptr, ec] = std::from_chars(part.data(), end, value);
    if (part.empty() || ec != std::errc() || ptr != end || value <= 0)
      throw Error(usage);
    dims[count++] = value;
    if (comma == std::string::npos)
      break;
    begin = comma + 1;
  }
  if (count < 2)
    throw Error(usage);
  return dims;
}

bool endsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string lowerCase(std::string s) {
  for (char& c : s)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

ScalarType parseScalarType(const std::string& name) {
  for (ScalarType t :
       {ScalarType::Int8, ScalarType::UInt8, ScalarType::Int16, ScalarType::UInt16,
        ScalarType::Int32, ScalarType::UInt32, ScalarType::Int64, ScalarType::UInt64,
        ScalarType::Float32, ScalarType::Float64}) {
    if (name == scalarTypeName(t))
      return t;
  }
  if (name == "float")
    return ScalarType::Float32;
  if (name == "double")
    return ScalarType::Float64;
  throw Error("unknown scalar type '" + name +
              "' (expected int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
              "float32 or float64)");
}

} // namespace topogpu::cli
