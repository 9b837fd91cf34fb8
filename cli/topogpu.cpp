// topogpu: command-line front end of TopoGPU; how GPU benchmarks run on machines
// without VTK or ParaView.
#include "Commands.h"
#include "Json.h"

#include "core/common/BackendSelection.h"

#if TOPOGPU_WITH_CUDA
#include "cuda/common/GpuDevice.h"
#endif

#include <sys/resource.h>

#include <cstdio>
#include <fstream>
#include <iomanip>
#include <iostream>

namespace topogpu::cli {

std::string jsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
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
        std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  return out + "\"";
}

void JsonObject::add(const std::string& key, double value) {
  std::ostringstream s;
  s << std::setprecision(9) << value;
  addRaw(key, s.str());
}

void JsonObject::addRaw(const std::string& key, const std::string& json) {
  if (!body_.empty())
    body_ += ", ";
  body_ += jsonString(key) + ": " + json;
}

std::string jsonArray(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? ", " : "") + items[i];
  return out + "]";
}

// Peak resident set of this process: VmHWM from /proc (ru_maxrss as a fallback; some
// sandboxes report the whole sandbox there).
double peakHostMemoryMiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0)
      return std::stod(line.substr(6)) / 1024.0; // kB
  }
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return double(usage.ru_maxrss) / 1024.0;
}

void addRunReport(JsonObject& out, const RunReport& report,
                  const std::vector<double>& totals) {
  out.add("backend", report.backend);
  std::vector<std::string> warnings, runs;
  for (const auto& w : report.warnings)
    warnings.push_back(jsonString(w));
  out.addRaw("warnings", jsonArray(warnings));
  JsonObject timings;
  for (const auto& [stage, seconds] : report.timings)
    timings.add(stage, seconds);
  out.addRaw("timings", timings.str());
  out.add("total_seconds", report.totalSeconds());
  for (double t : totals)
    runs.push_back(std::to_string(t));
  out.addRaw("runs_total_seconds", jsonArray(runs));
  out.add("peak_host_memory_mib", peakHostMemoryMiB());
  out.add("peak_device_memory_mib", double(report.peakDeviceBytes) / (1024.0 * 1024.0));
#if TOPOGPU_WITH_CUDA
  if (report.backend == "gpu")
    out.add("device", gpu::deviceDescription());
#endif
}

namespace {
const char* kUsage = "usage: topogpu <command> [options]\n"
                     "commands:\n"
                     "  critical-points   classify the vertices of a scalar field\n"
                     "  info              build features and the GPU seen\n"
                     "run 'topogpu <command> --help' for a command's options\n";

int runInfo() {
  std::string why;
  const bool gpu = gpuAvailable(&why);
  std::cout << "TopoGPU "
            << "cuda-build=" << (TOPOGPU_WITH_CUDA ? "yes" : "no")
            << " gpu=" << (gpu ? "yes" : "no (" + why + ")");
#if TOPOGPU_WITH_CUDA
  if (gpu)
    std::cout << " device=" << gpu::deviceDescription();
#endif
  std::cout << "\n";
  return 0;
}
} // namespace

} // namespace topogpu::cli

int main(int argc, char** argv) {
  using namespace topogpu::cli;
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  const std::string command = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  try {
    if (command == "critical-points")
      return runCriticalPoints(args);
    if (command == "info")
      return runInfo();
    if (command == "--help" || command == "-h" || command == "help") {
      std::cout << kUsage;
      return 0;
    }
    std::cerr << "topogpu: unknown command '" << command << "'\n" << kUsage;
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "topogpu " << command << ": error: " << e.what() << "\n";
    return 1;
  }
}
