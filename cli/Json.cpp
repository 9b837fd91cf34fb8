#include "Json.h"

#include "base/HostMemory.h"
#include "base/PrintableText.h"
#include "core/common/GpuDevice.h"

#include <sys/resource.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

namespace topogpu::cli {

std::string jsonString(const std::string& text) {
  std::string s;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8SequenceLength(text, i);
    s += n ? text.substr(i, n) : "?";
    i += n ? n : 1;
  }
  std::string out = "\"";
  for (const char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof buffer, "\\u%04x", static_cast<unsigned char>(c));
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

std::string jsonNumber(double value) {
  if (!std::isfinite(value))
    return "null";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", value);
  return buffer;
}

void JsonObject::add(const std::string& key, double value) {
  addRaw(key, jsonNumber(value));
}

void JsonObject::addRaw(const std::string& key, const std::string& json) {
  if (!body_.empty())
    body_ += ", ";
  body_ += jsonString(key) + ": " + json;
}

void JsonObject::merge(const JsonObject& other) {
  if (other.body_.empty())
    return;
  if (!body_.empty())
    body_ += ", ";
  body_ += other.body_;
}

std::string jsonArray(const std::vector<std::string>& jsonItems) {
  std::string out = "[";
  for (std::size_t i = 0; i < jsonItems.size(); ++i)
    out += (i ? ", " : "") + jsonItems[i];
  return out + "]";
}

// VmHWM from /proc first: some sandboxes report the whole sandbox in ru_maxrss.
double peakHostMemoryMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0)
      return std::strtod(line.c_str() + 6, nullptr) / 1024.0; // kB
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;
}

void addRunReport(JsonObject& out, const RunReport& report,
                  const std::vector<double>& totals) {
  out.add("backend", report.backend);
  std::vector<std::string> warnings, codes, runs;
  for (const Warning& w : report.warnings) {
    warnings.push_back(jsonString(w.text));
    codes.push_back(jsonString(warningCodeName(w.code)));
  }
  out.addRaw("warnings", jsonArray(warnings));
  out.addRaw("warning_codes", jsonArray(codes));
  JsonObject timings;
  for (const auto& [stage, seconds] : report.timings)
    timings.add(stage, seconds);
  out.add("timings", timings);
  out.add("total_seconds", report.totalSeconds());
  for (const double t : totals)
    runs.push_back(jsonNumber(t));
  out.addRaw("runs_total_seconds", jsonArray(runs));
  out.add("peak_host_memory_mib", peakHostMemoryMiB());
  out.add("peak_device_memory_mib", double(report.peakDeviceBytes) / kMiB);
  if (report.backend == "gpu")
    out.add("device", gpu::deviceDescription());
}

} // namespace topogpu::cli
