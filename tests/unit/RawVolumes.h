// The raw volumes of a folder (../shared/data/volumes) and TTK's reference counts for
// them (../shared/data/ttk-reference/volumes.json), for the tests that read them all.
#pragma once

#include "base/Types.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
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

inline std::string readText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The `section` object (critical_points, msc_critical_points, msc_separatrices1) of one
// volume in volumes.json, as name -> count: a small scanner for that file's fixed shape
// (string keys, integer values), enough for a test. Empty when absent.
inline std::map<std::string, SimplexId> referenceCounts(const std::string& json,
                                                        const std::string& file,
                                                        const std::string& section) {
  std::map<std::string, SimplexId> counts;
  const std::size_t at = json.find("\"" + file + "\"");
  if (at == std::string::npos)
    return counts;
  const std::size_t key = json.find("\"" + section + "\"", at);
  const std::size_t open = json.find('{', key), close = json.find('}', open);
  if (key == std::string::npos || open == std::string::npos || close == std::string::npos)
    return counts;
  const std::string body = json.substr(open + 1, close - open - 1);
  static const std::regex pair("\"([a-z0-9_]+)\"\\s*:\\s*([0-9]+)");
  for (auto it = std::sregex_iterator(body.begin(), body.end(), pair);
       it != std::sregex_iterator(); ++it)
    counts[(*it)[1]] = std::stoll((*it)[2]);
  return counts;
}

// The shared volumes and TTK's reference counts under the shared data folder `data`;
// missing() when either is absent (the parity tests then skip with skipMessage()).
struct TtkReference {
  std::string data, json;
  std::vector<RawVolume> volumes;
  bool missing() const { return json.empty() || volumes.empty(); }
  std::string skipMessage() const {
    return "test data missing under '" + data +
           "' (set TOPOGPU_SHARED_DATA to the shared data folder)";
  }
};

inline TtkReference ttkReference(const std::string& data) {
  return {data, readText(data + "/ttk-reference/volumes.json"),
          rawVolumes(data + "/volumes")};
}

} // namespace topogpu::test
