#include "TopoGPUTriangulationRegistry.h"

#include <vtkCallbackCommand.h>
#include <vtkCellArray.h>
#include <vtkCommand.h>
#include <vtkDataSet.h>
#include <vtkImageData.h>
#include <vtkObject.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace topogpu::vtk {

namespace {

// What a triangulation of a data set depends on: its type, sizes and connectivity,
// never its point coordinates or point data. Pointers are paired with MTimes, which are
// unique across objects, so a reallocated array at the same address cannot alias an old
// key. The anchors are the objects whose deletion ends the entry.
struct GeometryKey {
  std::string type;
  int dims[3] = {0, 0, 0};
  vtkIdType points = 0;
  vtkIdType cells = 0;
  std::vector<std::pair<const void*, vtkMTimeType>> parts;
  std::vector<vtkObject*> anchors;

  bool operator==(const GeometryKey& o) const {
    return type == o.type && dims[0] == o.dims[0] && dims[1] == o.dims[1] &&
           dims[2] == o.dims[2] && points == o.points && cells == o.cells &&
           parts == o.parts;
  }
};

void addPart(GeometryKey& key, vtkObject* object) {
  key.parts.emplace_back(object, object ? object->GetMTime() : 0);
  if (object != nullptr)
    key.anchors.push_back(object);
}

void addCellArray(GeometryKey& key, vtkCellArray* cells) {
  addPart(key, cells);
  if (cells) {
    addPart(key, cells->GetOffsetsArray());
    addPart(key, cells->GetConnectivityArray());
  }
}

// Returns false for data sets whose connectivity cannot be keyed (never shared).
bool makeGeometryKey(vtkDataSet* input, GeometryKey& key) {
  key.type = input->GetClassName();
  key.points = input->GetNumberOfPoints();
  key.cells = input->GetNumberOfCells();
  if (auto* image = vtkImageData::SafeDownCast(input)) {
    image->GetDimensions(key.dims);
    // A piece's ghost points say which faces are cuts (the grid's boundary faces).
    vtkUnsignedCharArray* ghosts = image->GetPointData()->GetGhostArray();
    key.parts.emplace_back(ghosts, ghosts ? ghosts->GetMTime() : 0);
    key.anchors.push_back(image);
    return true;
  }
  if (auto* grid = vtkUnstructuredGrid::SafeDownCast(input)) {
    addCellArray(key, grid->GetCells());
    addPart(key, grid->GetCellTypesArray());
    return true;
  }
  if (auto* poly = vtkPolyData::SafeDownCast(input)) {
    addCellArray(key, poly->GetVerts());
    addCellArray(key, poly->GetLines());
    addCellArray(key, poly->GetPolys());
    addCellArray(key, poly->GetStrips());
    return true;
  }
  return false;
}

bool isGale(TriangulationChoice choice) {
  return choice == TriangulationChoice::GaleGpu || choice == TriangulationChoice::GaleCpu;
}

} // namespace

struct TriangulationRegistry::Entry {
  GeometryKey key;
  TriangulationChoice choice = TriangulationChoice::Auto;
  bool randomAccess = false; // GALE's only
  // The DeleteEvent observers on the anchors (object, tag).
  std::vector<std::pair<vtkObject*, unsigned long>> observers;
  // Held by a run from the lookup to its end; the build happens under it too.
  std::recursive_mutex use;
  std::unique_ptr<TriangulationResult> result; // null until built

  // Whether this entry is the one of that data set and choice (its key may be stale).
  bool sameSlot(const GeometryKey& other, TriangulationChoice otherChoice,
                bool otherRandomAccess) const {
    return key.anchors == other.anchors && key.type == other.type &&
           choice == otherChoice &&
           (!isGale(choice) || randomAccess == otherRandomAccess);
  }
};

struct TriangulationRegistry::State {
  std::mutex mutex;
  std::vector<std::shared_ptr<Entry>> entries;
  vtkSmartPointer<vtkCallbackCommand> onDelete;
};

TriangulationResult& TriangulationRegistry::Lease::result() const {
  return *entry_->result;
}

TriangulationRegistry& TriangulationRegistry::shared() {
  static auto* registry = new TriangulationRegistry();
  return *registry;
}

TriangulationRegistry::State& TriangulationRegistry::state() const {
  static auto* state = [] {
    auto* made = new State();
    made->onDelete = vtkSmartPointer<vtkCallbackCommand>::New();
    made->onDelete->SetCallback(&TriangulationRegistry::deleted);
    return made;
  }();
  return *state;
}

namespace {

// Stops watching an entry's anchors, except `dying` (which is being deleted).
template <typename EntryT> void unwatch(EntryT& entry, vtkObject* dying) {
  for (const auto& [object, tag] : entry.observers)
    if (object != dying)
      object->RemoveObserver(tag);
  entry.observers.clear();
}

} // namespace

void TriangulationRegistry::deleted(vtkObject* caller, unsigned long, void* registry,
                                    void*) {
  State& s = static_cast<TriangulationRegistry*>(registry)->state();
  std::vector<std::shared_ptr<Entry>> dropped;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    for (auto it = s.entries.begin(); it != s.entries.end();) {
      const auto& anchors = (*it)->key.anchors;
      if (std::find(anchors.begin(), anchors.end(), caller) == anchors.end()) {
        ++it;
        continue;
      }
      unwatch(**it, caller);
      dropped.push_back(std::move(*it));
      it = s.entries.erase(it);
    }
  }
  // Released outside the lock: a triangulation holds VTK arrays whose deletion may
  // call back here.
  dropped.clear();
}

TriangulationRegistry::Lease TriangulationRegistry::acquire(vtkDataSet* input,
                                                            TriangulationChoice choice,
                                                            const gale::Parameters& gale,
                                                            bool shareable) {
  Lease lease;
  GeometryKey key;
  if (!shareable || !makeGeometryKey(input, key)) {
    lease.entry_ = std::make_shared<Entry>();
    lease.use_ = std::unique_lock<std::recursive_mutex>(lease.entry_->use);
    lease.entry_->result =
        std::make_unique<TriangulationResult>(makeTriangulation(input, choice, gale));
    return lease;
  }
  State& s = state();
  std::shared_ptr<Entry> entry;
  std::vector<std::shared_ptr<Entry>> replaced;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    for (auto it = s.entries.begin(); it != s.entries.end();) {
      if (!(*it)->sameSlot(key, choice, gale.randomAccess)) {
        ++it;
      } else if ((*it)->key == key) {
        entry = *it++;
      } else { // the data set's cells changed in place: its old triangulation goes
        unwatch(**it, nullptr);
        replaced.push_back(std::move(*it));
        it = s.entries.erase(it);
      }
    }
    if (!entry) {
      entry = std::make_shared<Entry>();
      entry->key = std::move(key);
      entry->choice = choice;
      entry->randomAccess = gale.randomAccess;
      for (vtkObject* anchor : entry->key.anchors)
        entry->observers.emplace_back(
            anchor, anchor->AddObserver(vtkCommand::DeleteEvent, s.onDelete));
      s.onDelete->SetClientData(this);
      s.entries.push_back(entry);
    }
  }
  replaced.clear();
  lease.entry_ = entry;
  lease.use_ = std::unique_lock<std::recursive_mutex>(entry->use);
  if (entry->result) {
    lease.reused_ = true;
    return lease;
  }
  try {
    entry->result =
        std::make_unique<TriangulationResult>(makeTriangulation(input, choice, gale));
  } catch (...) {
    forget(lease);
    throw;
  }
  return lease;
}

void TriangulationRegistry::forget(const Lease& lease) {
  State& s = state();
  std::shared_ptr<Entry> dropped;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    const auto it = std::find(s.entries.begin(), s.entries.end(), lease.entry_);
    if (it == s.entries.end())
      return;
    unwatch(**it, nullptr);
    dropped = std::move(*it);
    s.entries.erase(it);
  }
}

std::size_t TriangulationRegistry::size() const {
  State& s = state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  return s.entries.size();
}

} // namespace topogpu::vtk
