// The raw volumes of a folder (../shared/data/volumes), for the tests that read them all.
#pragma once

#include "core/common/Types.h"

#include <dirent.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

namespace topogpu::test {

struct RawVolume {
  std::string file;
  SimplexId n[3] = {0, 0, 0};
  std::string type; // uint8, int16le, float32, float64
};

// name_NXxNYxNZ_type.raw, as ../shared/data/SOURCES.md names them; sorted by file name.
inline std::vector<RawVolume> rawVolumes(const std::string& dir) {
  std::vector<RawVolume> volumes;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr)
    return volumes;
  static const std::regex name(".*_([0-9]+)x([0-9]+)x([0-9]+)_([a-z0-9]+)\\.raw");
  while (const dirent* entry = readdir(d)) {
    std::smatch m;
    const std::string file = entry->d_name;
    if (!std::regex_match(file, m, name))
      continue;
    RawVolume v;
    v.file = file;
    for (int a = 0; a < 3; ++a)
      v.n[a] = std::stoll(m[a + 1]);
    v.type = m[4];
    volumes.push_back(v);
  }
  closedir(d);
  std::sort(volumes.begin(), volumes.end(),
            [](const RawVolume& a, const RawVolume& b) { return a.file < b.file; });
  return volumes;
}

} // namespace topogpu::test
