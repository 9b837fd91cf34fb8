// A tiny JSON writer for the CLI's one-object outputs (no dependency needed for this).
#pragma once

#include "base/Types.h"

#include <string>
#include <vector>

namespace topogpu::cli {

// `s` as a JSON string literal, quotes included.
std::string jsonString(const std::string& s);

// Keys in insertion order; values already checked to be valid JSON by the add overloads.
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
  void add(const std::string& key, const JsonObject& value) { addRaw(key, value.str()); }
  void addRaw(const std::string& key, const std::string& json);
  // Appends every field of `other` after this object's own.
  void merge(const JsonObject& other);
  bool empty() const { return body_.empty(); }
  std::string str() const { return "{" + body_ + "}"; }

private:
  std::string body_;
};

// `jsonItems` must already be JSON values (jsonString(...) for strings).
std::string jsonArray(const std::vector<std::string>& jsonItems);

// A number JSON can hold: NaN and infinities become null.
std::string jsonNumber(double value);

// Peak resident set of this process in MiB.
double peakHostMemoryMiB();

// The fields every subcommand's JSON ends with: backend, warnings, timings (seconds per
// stage), total_seconds, runs_total_seconds, peak host and device memory (and the device
// when the GPU ran).
void addRunReport(JsonObject& out, const RunReport& report,
                  const std::vector<double>& totals);

} // namespace topogpu::cli
