// A tiny JSON writer for the CLI's one-object outputs (no dependency needed for this).
#pragma once

#include "core/common/Types.h"

#include <sstream>
#include <string>
#include <vector>

namespace topogpu::cli {

std::string jsonString(const std::string& s);

class JsonObject {
public:
  void add(const std::string& key, const std::string& value) {
    addRaw(key, jsonString(value));
  }
  void add(const std::string& key, const char* value) { add(key, std::string(value)); }
  void add(const std::string& key, double value);
  void add(const std::string& key, long long value) {
    addRaw(key, std::to_string(value));
  }
  void add(const std::string& key, long value) {
    add(key, static_cast<long long>(value));
  }
  void add(const std::string& key, int value) { add(key, static_cast<long long>(value)); }
  void add(const std::string& key, bool value) { addRaw(key, value ? "true" : "false"); }
  void addRaw(const std::string& key, const std::string& json);
  std::string str() const { return "{" + body_ + "}"; }

private:
  std::string body_;
};

std::string jsonArray(const std::vector<std::string>& jsonItems);

// backend, warnings, timings (seconds per stage), total_seconds, runs, peak memory.
void addRunReport(JsonObject& out, const RunReport& report,
                  const std::vector<double>& totals);

} // namespace topogpu::cli
