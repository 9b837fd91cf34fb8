#include "Arguments.h"

#include "core/common/Types.h"

namespace topogpu::cli {

Arguments::Arguments(const std::vector<std::string>& args,
                     const std::set<std::string>& valueFlags,
                     const std::set<std::string>& switches) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (valueFlags.count(a)) {
      if (i + 1 >= args.size())
        throw Error("option " + a + " needs a value");
      values_[a] = args[++i];
    } else if (switches.count(a)) {
      values_[a] = "1";
    } else {
      throw Error("unknown argument '" + a + "'");
    }
  }
}

std::string Arguments::get(const std::string& flag, const std::string& fallback) const {
  const auto it = values_.find(flag);
  return it == values_.end() ? fallback : it->second;
}

std::string Arguments::require(const std::string& flag) const {
  if (!has(flag))
    throw Error("missing required option " + flag);
  return get(flag);
}

} // namespace topogpu::cli
