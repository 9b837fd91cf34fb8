#include "TopoGPUColouring.h"

#include <vtkSMSettings.h>

#include <mutex>
#include <set>
#include <sstream>

namespace topogpu::vtk {

void registerCategoricalColours(const std::string& arrayName, const std::string& title,
                                const std::vector<Category>& categories) {
  static std::mutex mutex;
  static std::set<std::string> done;
  const std::lock_guard<std::mutex> lock(mutex);
  if (categories.empty() || !done.insert(arrayName).second)
    return;
  std::ostringstream annotations, indexed, points;
  for (std::size_t i = 0; i < categories.size(); ++i) {
    const Category& c = categories[i];
    const char* sep = i == 0 ? "" : ", ";
    annotations << sep << '"' << c.value << "\", \"" << c.label << '"';
    indexed << sep << c.rgb[0] << ", " << c.rgb[1] << ", " << c.rgb[2];
    // a flat band from value - 0.5 to value + 0.5
    for (const double x : {c.value - 0.5, c.value + 0.5})
      points << (i == 0 && x == c.value - 0.5 ? "" : ", ") << x << ", " << c.rgb[0]
             << ", " << c.rgb[1] << ", " << c.rgb[2];
  }
  std::ostringstream json;
  json << "{\"array_lookup_tables\": {\"" << arrayName << "\": {\"Title\": \"" << title
       << "\", \"PVLookupTable\": {\"IndexedLookup\": 1, "
       << "\"AnnotationsInitialized\": 1, \"Annotations\": [" << annotations.str()
       << "], \"IndexedColors\": [" << indexed.str()
       << "], \"AutomaticRescaleRangeMode\": -1, \"Discretize\": 1, "
       << "\"NumberOfTableValues\": " << categories.size() << ", \"RGBPoints\": ["
       << points.str() << "]}}}}";
  vtkSMSettings::GetInstance()->AddCollectionFromString(json.str(), 0.0);
}

std::vector<Category> criticalIndexCategories() {
  return {{0, "minimum", {0.23, 0.30, 0.75}},
          {1, "1-saddle", {0.40, 0.76, 0.65}},
          {2, "2-saddle", {0.99, 0.68, 0.38}},
          {3, "maximum", {0.70, 0.02, 0.15}}};
}

std::vector<Category> criticalTypeCategories() {
  auto categories = criticalIndexCategories();
  // yellow: apart from the four, and visible on the grey slices of the states
  categories.push_back({4, "degenerate", {0.95, 0.90, 0.25}});
  return categories;
}

std::vector<Category> separatrixTypeCategories() {
  return {{0, "saddle to minimum", {0.30, 0.45, 0.95}},
          {1, "saddle-saddle (3D), saddle to maximum (2D)", {0.95, 0.95, 0.95}},
          {2, "2-saddle to maximum", {0.95, 0.35, 0.30}}};
}

std::vector<Category> gradientPairTypeCategories() {
  return {{0, "vertex-edge", {0.23, 0.30, 0.75}},
          {1, "edge-face", {0.40, 0.76, 0.65}},
          {2, "face-cell", {0.99, 0.68, 0.38}}};
}

std::vector<Category> pairTypeCategories() {
  return {{-1, "diagonal", {0.45, 0.45, 0.45}}, {0, "H0", {0.84, 0.15, 0.16}},
          {1, "H1", {0.12, 0.47, 0.71}},        {2, "H2", {0.17, 0.63, 0.17}},
          {3, "H3", {0.58, 0.40, 0.74}},        {4, "H4", {1.00, 0.50, 0.05}},
          {5, "H5", {0.55, 0.34, 0.29}}};
}

} // namespace topogpu::vtk
