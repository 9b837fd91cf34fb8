// Whole-domain mode on images (vtkTopoGPUAlgorithm::NeedsWholeDomain): the pieces of a
// distributed image gathered to rank 0 (their extents and the input scalar), and the
// image outputs computed there handed back out in VTK's pieces. Also the pipeline
// information both read: which port asked, and the piece asked for.
#pragma once

#include <vtkSmartPointer.h>

#include <functional>
#include <optional>
#include <string>

class vtkDataArray;
class vtkDataSet;
class vtkImageData;
class vtkInformation;
class vtkInformationIntegerKey;
class vtkInformationVector;
class vtkMultiProcessController;

namespace topogpu::vtk {

// The output port a request came from (port 0 when the request does not say).
int requestingPort(vtkInformation* request, vtkInformationVector* outputVector);
// An integer of the pipeline information, or fallback when info does not hold it.
int updateValue(vtkInformation* info, vtkInformationIntegerKey* key, int fallback);

struct GatheredDomain {
  vtkSmartPointer<vtkImageData> image; // rank 0 only
  vtkDataArray* scalars = nullptr;
  std::string name;
  std::string error; // rank 0: the gather went ahead but its result is unusable
};

// Collective over all ranks. Returns the whole image on rank 0 and nothing elsewhere;
// throws topogpu::Error (on rank 0 and on a rank whose own piece is bad) or
// topogpu::Aborted (everywhere) when the gather does not go ahead. Once it returns on
// one rank it returns on every rank (rank 0 may carry an error), so the collective
// steps that follow are reached by all of them. Rank 0 first checks that the whole
// field plus bytesPerPoint per point fits its memory (forcedAvailable when set, else
// the host's available memory).
GatheredDomain gatherWholeDomain(
    vtkMultiProcessController* controller, vtkDataSet* input, bool needsScalars,
    const std::function<vtkDataArray*(std::string&)>& resolveScalars, bool aborted,
    double bytesPerPoint, const std::optional<double>& forcedAvailable);

// Which extent of an image output this rank holds. VTK's piece protocol: the rank's
// piece (with its ghost layers) of the total extent asked for on the port
// (ALL_PIECES_EXTENT, which the executive stores there for a request in pieces), else
// of the whole extent, with the piece numbers of the port or, for a port nobody asked
// for in pieces, of the port that made the request.
struct PieceRequest {
  int total[6] = {0, -1, 0, -1, 0, -1};
  int extent[6] = {0, -1, 0, -1, 0, -1};    // with ghost layers
  int zeroGhost[6] = {0, -1, 0, -1, 0, -1}; // without
  int ghostLevels = 0;
};
PieceRequest pieceRequest(vtkInformation* outInfo, vtkInformation* fromInfo);

// Collective over all ranks, after rank 0 computed (or failed: its outputs are then
// empty). Every image output is split by VTK's piece protocol: each rank receives the
// piece it asks for and rank 0 keeps its own. Each image records the total extent it is
// a piece of (ALL_PIECES_EXTENT), against which the executive checks later requests: a
// consumer asking this rank for a sub-extent of it (a contour, an extract of a VOI)
// does not re-execute the filter, so no rank ever re-enters the gather alone (a hang).
// Non-image outputs stay on rank 0.
void handOutImagePieces(vtkMultiProcessController* controller,
                        vtkInformationVector* outputVector, vtkInformation* fromInfo);

// A piece of a distributed image is classified with the pipeline's ghost layers: it
// must come with the `needed` layers asked for below each face where it is cut from a
// neighbour (the face above is shared with the next piece, which owns it, so one layer
// less there). A source that ignores ghost-level requests gives none. Returns what is
// missing, or nothing.
std::string missingImageGhosts(vtkImageData* image, vtkInformation* inInfo, int needed);

} // namespace topogpu::vtk
