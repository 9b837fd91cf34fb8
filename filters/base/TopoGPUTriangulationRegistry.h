// One triangulation per data set, shared by every TopoGPU filter of the process (as TTK
// keeps one registry): a Critical Points -> Discrete Gradient -> Morse-Smale chain on the
// same mesh builds the explicit triangulation, and its relations, once.
//
// An entry is keyed by what the triangulation depends on: the connectivity (the cell
// arrays, by address and modification time, so a reallocated array at the same address
// never aliases an old key), the point and cell counts, and the triangulation choice
// (GALE's producers and its random-access cache too). Point coordinates and point data
// are not part of it: editing a scalar keeps the entry. Filters whose inputs share their
// cells (a shallow copy, a filter passing its input's cells through) share the entry.
//
// Entries go with their data: each watches the objects it is keyed on (the cell arrays;
// an image itself) and is dropped when one of them is deleted; a data set whose cells
// change in place replaces its entry. All of it is thread-safe, and a run holds its
// entry (and an exclusive use of it) until it ends, so a dropped entry never dangles.
#pragma once

#include "TopoGPUDataSetAdaptor.h"

#include <cstddef>
#include <memory>
#include <mutex>

class vtkDataSet;
class vtkObject;

namespace topogpu::vtk {

class TriangulationRegistry {
public:
  struct Entry;

  // A run's hold on a triangulation: keeps it alive and used by this run alone (the
  // explicit mesh builds relations on demand) until the lease goes.
  class Lease {
  public:
    Lease() = default;
    TriangulationResult& result() const;
    // Whether the triangulation was there before this run asked for it.
    bool reused() const { return reused_; }
    explicit operator bool() const { return entry_ != nullptr; }

  private:
    friend class TriangulationRegistry;
    std::shared_ptr<Entry> entry_;
    std::unique_lock<std::recursive_mutex> use_;
    bool reused_ = false;
  };

  // The process's registry (never destroyed: data sets may outlive static destructors).
  static TriangulationRegistry& shared();

  // The triangulation of input built with choice (GALE: with gale's parameters),
  // built now unless an entry holds it. Throws what makeTriangulation throws (and keeps
  // no entry then). A data set whose connectivity cannot be keyed, or shareable false (a
  // mesh rebuilt for this run alone), gets a triangulation of its own, not registered.
  Lease acquire(vtkDataSet* input, TriangulationChoice choice,
                const gale::Parameters& gale, bool shareable);

  // Drops the lease's entry (a run failed on it: the next run builds it again, as the
  // input may have been fixed in place). The lease stays usable.
  void forget(const Lease& lease);

  // How many entries are held (for tests and PrintSelf).
  std::size_t size() const;

private:
  TriangulationRegistry() = default;
  struct State;
  static void deleted(vtkObject* caller, unsigned long, void* registry, void*);
  State& state() const;
};

} // namespace topogpu::vtk
