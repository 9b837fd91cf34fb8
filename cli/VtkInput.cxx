// VTK formats for the CLI: the readers VTK ships, then the adaptor the filters use.
// VTK readers report problems through vtkOutputWindow and still return a (partial)
// output, so every message is captured while reading and any error fails the load.
// They also trust the file: a corrupt cell list crashes them (a segfault in
// vtkCellArray::ImportLegacyFormat, an abort in vtkXMLUnstructuredDataReader), so the
// file is first read in a child process and a child killed by a signal means a corrupt
// file (TOPOGPU_TRUST_VTK_FILES=1 skips that first read, for benchmarks on known files).
#include "Domain.h"
#include "TopoGPUDataSetAdaptor.h"
#include "VtkRead.h"

#include <vtkCellData.h>
#include <vtkDataSet.h>
#include <vtkDataSetReader.h>
#include <vtkImageData.h>
#include <vtkLogger.h>
#include <vtkObjectFactory.h>
#include <vtkOutputWindow.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkXMLGenericDataObjectReader.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

namespace topogpu::cli {

namespace {

class CapturingOutputWindow : public vtkOutputWindow {
public:
  static CapturingOutputWindow* New();
  vtkTypeMacro(CapturingOutputWindow, vtkOutputWindow);
  void DisplayErrorText(const char* text) override { errors.emplace_back(text); }
  void DisplayWarningText(const char* text) override { warnings.emplace_back(text); }
  void DisplayGenericWarningText(const char* text) override {
    warnings.emplace_back(text);
  }
  void DisplayText(const char* text) override { warnings.emplace_back(text); }
  void DisplayDebugText(const char*) override {}
  std::vector<std::string> errors, warnings;
};
vtkStandardNewMacro(CapturingOutputWindow);

// "ERROR: In file, line N\nvtkXMLReader (0x...): message" -> "message".
std::string vtkMessage(std::string text) {
  const std::size_t object = text.find("): ");
  const std::size_t firstLine = text.find('\n');
  if (object != std::string::npos)
    text = text.substr(object + 3);
  else if (text.find(" In ") < firstLine && firstLine != std::string::npos)
    text = text.substr(firstLine + 1); // "Generic Warning: In file, line N\n..."
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.pop_back();
  for (char& c : text) {
    if (c == '\n')
      c = ' ';
  }
  return text;
}

// Installs the capturing window for one read, restoring the previous one after.
class CaptureVtkMessages {
public:
  CaptureVtkMessages() : previous_(vtkOutputWindow::GetInstance()) {
    vtkOutputWindow::SetInstance(window_);
  }
  ~CaptureVtkMessages() { vtkOutputWindow::SetInstance(previous_); }
  CaptureVtkMessages(const CaptureVtkMessages&) = delete;
  CaptureVtkMessages& operator=(const CaptureVtkMessages&) = delete;
  const CapturingOutputWindow& window() const { return *window_; }

private:
  vtkSmartPointer<vtkOutputWindow> previous_;
  vtkSmartPointer<CapturingOutputWindow> window_ =
      vtkSmartPointer<CapturingOutputWindow>::New();
};

bool endsWithClosingTag(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const std::streamoff size = in.tellg();
  const std::streamoff tail = std::min<std::streamoff>(size, 256);
  std::string end(std::size_t(std::max<std::streamoff>(tail, 0)), '\0');
  in.seekg(size - tail);
  in.read(end.data(), tail);
  if (!in)
    return false;
  while (!end.empty() && std::isspace(static_cast<unsigned char>(end.back())))
    end.pop_back();
  const std::string tag = "</VTKFile>";
  return end.size() >= tag.size() &&
         end.compare(end.size() - tag.size(), tag.size(), tag) == 0;
}

} // namespace

vtkSmartPointer<vtkDataSet> readDataSet(const std::string& path) {
  const CaptureVtkMessages capture;
  vtkSmartPointer<vtkDataSet> data;
  const std::string ext = path.substr(path.find_last_of('.') + 1);
  if (ext == "vtk" || ext == "VTK") {
    auto reader = vtkSmartPointer<vtkDataSetReader>::New();
    reader->SetFileName(path.c_str());
    reader->ReadAllScalarsOn();
    reader->ReadAllFieldsOn();
    reader->Update();
    data = reader->GetOutput();
  } else {
    // The XML readers stop parsing at appended raw data and read short arrays without a
    // word, so a truncated file is caught here: a whole one ends with </VTKFile>.
    if (!endsWithClosingTag(path))
      throw Error("'" + path +
                  "' is truncated or not a VTK XML file (it does not end with "
                  "</VTKFile>)");
    auto reader = vtkSmartPointer<vtkXMLGenericDataObjectReader>::New();
    reader->SetFileName(path.c_str());
    reader->Update();
    data = vtkDataSet::SafeDownCast(reader->GetOutput());
  }
  if (!capture.window().errors.empty())
    throw Error("cannot read '" + path + "': " + vtkMessage(capture.window().errors[0]));
  // The legacy reader says a short binary block is a warning ("Error reading binary
  // data!") and keeps the partial array: for us it is an error.
  for (const auto& warning : capture.window().warnings) {
    if (warning.find("rror") != std::string::npos)
      throw Error("cannot read '" + path + "': " + vtkMessage(warning));
  }
  if (data == nullptr || data->GetNumberOfPoints() == 0)
    throw Error("could not read a data set with points from '" + path + "'");
  return data;
}

namespace {

// Reads `path` in a child process; throws Error when the reader kills the child.
void probeInChild(const std::string& path) {
  const char* trust = std::getenv("TOPOGPU_TRUST_VTK_FILES");
  if (trust != nullptr && std::string(trust) == "1")
    return;
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0)
    return; // no probe possible: read directly, as without it
  if (child == 0) {
    // The parent's own read reports what the reader says.
    const int devNull = open("/dev/null", O_WRONLY);
    if (devNull >= 0) {
      dup2(devNull, STDOUT_FILENO);
      dup2(devNull, STDERR_FILENO);
    }
    int status = 0;
    try {
      readDataSet(path);
    } catch (...) {
      status = 3; // the parent's own read reports the problem
    }
    _exit(status);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR)
      return;
  }
  if (WIFSIGNALED(status))
    throw Error("'" + path + "' is corrupt: VTK's reader crashed on it (signal " +
                std::to_string(WTERMSIG(status)) + ")");
}

} // namespace

Domain loadWithVtk(const std::string& path, const std::string& arrayName, bool keepPoints,
                   bool trianglesOnly, const std::string& orderName) {
  // Errors reach the user once, through our message, not also as VTK's log lines.
  vtkLogger::SetStderrVerbosity(vtkLogger::VERBOSITY_OFF);
  probeInChild(path);
  const vtkSmartPointer<vtkDataSet> data = readDataSet(path);
  if (trianglesOnly && vtkImageData::SafeDownCast(data) == nullptr) {
    const std::string problem = vtk::triangleSurfaceProblem(data);
    if (!problem.empty())
      throw Error("'" + path + "': " + problem);
  }
  Domain domain;
  domain.input = path;
  // The domain's views (values, and cells the adaptor may view) point into `data`.
  domain.storage =
      std::shared_ptr<const void>(data.GetPointer(), [keep = data](const void*) {});
  domain.dataSet = data;
  vtkDataArray* array = data->GetPointData()->GetArray(arrayName.c_str());
  const int axis = coordinateAxis(arrayName);
  if (array == nullptr && axis >= 0) {
    auto values =
        std::make_shared<std::vector<double>>(std::size_t(data->GetNumberOfPoints()));
    for (vtkIdType v = 0; v < data->GetNumberOfPoints(); ++v)
      (*values)[v] = data->GetPoint(v)[axis];
    domain.values = viewOf(*values);
    domain.storage =
        std::shared_ptr<const void>(values.get(), [values, keep = data](const void*) {});
  } else if (array == nullptr) {
    std::string known;
    for (int i = 0; i < data->GetPointData()->GetNumberOfArrays(); ++i) {
      const char* name = data->GetPointData()->GetArrayName(i);
      if (name != nullptr && data->GetPointData()->GetArray(i) != nullptr)
        known += (known.empty() ? "" : ", ") + std::string(name);
    }
    throw Error("'" + path + "' has no numeric point array '" + arrayName +
                "' (it has: " + (known.empty() ? std::string("none") : known) +
                "; or use x, y or z for a coordinate)");
  } else {
    domain.values = vtk::viewScalarArray(array, arrayName);
  }
  domain.orderArray =
      vtk::attachOrderArray(data, arrayName, domain.values, domain.givenOrder, orderName);
  if (keepPoints) {
    domain.points.resize(3 * std::size_t(data->GetNumberOfPoints()));
    for (vtkIdType v = 0; v < data->GetNumberOfPoints(); ++v)
      data->GetPoint(v, &domain.points[3 * std::size_t(v)]);
  }
  vtk::TriangulationResult result = vtk::makeTriangulation(data);
  domain.notes.insert(domain.notes.end(), result.notes.begin(), result.notes.end());
  domain.triangulation = frontend::held<ImplicitTriangulation>(result.triangulation)
                             ? "implicit"
                             : "explicit";
  domain.holder = std::move(result.triangulation);
  return domain;
}

} // namespace topogpu::cli
