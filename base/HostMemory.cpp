#include "HostMemory.h"

#include "Types.h"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>
#include <string>

namespace topogpu {

namespace {

// The value of "Key: N kB" in a /proc file, in bytes; -1 when absent.
double procKilobytes(const char* path, const char* key) {
  std::ifstream file(path);
  std::string line;
  const std::string format = std::string(key) + ": %lld kB";
  while (std::getline(file, line)) {
    long long kib = 0;
    if (std::sscanf(line.c_str(), format.c_str(), &kib) == 1)
      return double(kib) * 1024.0;
  }
  return -1;
}

// A single number in a file (cgroup files); -1 when absent or "max".
double fileNumber(const char* path) {
  std::ifstream file(path);
  long long value = 0;
  return file >> value ? double(value) : -1;
}

// What a resource limit leaves beyond `used` bytes; infinity without a limit.
double leftUnder(int resource, double used) {
  rlimit limit{};
  if (getrlimit(resource, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
    return std::numeric_limits<double>::infinity();
  return std::max(0.0, double(limit.rlim_cur) - std::max(used, 0.0));
}

} // namespace

double availableHostMemory() {
  double available = procKilobytes("/proc/meminfo", "MemAvailable");
  if (available < 0) {
    const long pages = sysconf(_SC_AVPHYS_PAGES), pageSize = sysconf(_SC_PAGESIZE);
    available = pages > 0 && pageSize > 0 ? double(pages) * double(pageSize)
                                          : std::numeric_limits<double>::infinity();
  }
  available = std::min(
      available, leftUnder(RLIMIT_AS, procKilobytes("/proc/self/status", "VmSize")));
  available = std::min(
      available, leftUnder(RLIMIT_DATA, procKilobytes("/proc/self/status", "VmData")));
  const double cgroupMax = fileNumber("/sys/fs/cgroup/memory.max");
  if (cgroupMax > 0)
    available =
        std::min(available,
                 std::max(0.0, cgroupMax - fileNumber("/sys/fs/cgroup/memory.current")));
  return available;
}

std::string mebibytes(double bytes) {
  char text[48];
  std::snprintf(text, sizeof text, "%.1f MiB", bytes / kMiB);
  return text;
}

std::string byteSize(double bytes) {
  char text[48];
  if (bytes >= 1024.0 * kMiB)
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * kMiB));
  else if (bytes >= kMiB)
    return mebibytes(bytes);
  else
    std::snprintf(text, sizeof text, "%.1f KiB", bytes / 1024.0);
  return text;
}

void refuseOverHostMemoryBudget(double estimate, double budget, const std::string& what,
                                const std::string& advice) {
  if (!(estimate > budget))
    return;
  throw Error(what + " would need about " + byteSize(estimate) +
              " of host memory, more than the memory budget of " + byteSize(budget) +
              (advice.empty() ? std::string() : "; " + advice));
}

} // namespace topogpu
