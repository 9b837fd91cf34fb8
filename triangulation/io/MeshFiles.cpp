#include "MeshFiles.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <sys/stat.h>

namespace topogpu::io {

namespace {

using u128 = unsigned __int128;

// Throws Error with the parts streamed together (messages are built only on failure).
template <typename... Parts> [[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream message;
  (message << ... << parts);
  throw Error(message.str());
}

std::string quoted(const std::string& path) {
  return "'" + path + "'";
}

// Whole file in memory (its size was checked by readableFileSize).
std::string readAll(const std::string& path, std::uint64_t size,
                    const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("cannot open ", what, " ", quoted(path));
  std::string data(size, '\0');
  in.read(data.data(), std::streamsize(size));
  if (std::uint64_t(in.gcount()) != size)
    fail("could not read all ", std::to_string(size), " bytes of ", what, " ",
         quoted(path));
  return data;
}

bool parseInt64(std::string_view text, std::int64_t& value) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  return !text.empty() && ec == std::errc() && ptr == end;
}

// A finite floating-point number spelled by all of `text`.
bool parseFinite(std::string_view text, double& value) {
  if (text.empty() || text.size() > 64)
    return false;
  char buffer[72];
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  char* end = nullptr;
  errno = 0;
  value = std::strtod(buffer, &end);
  return end == buffer + text.size() && std::isfinite(value) && errno != ERANGE;
}

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

// Whitespace-separated tokens of a text buffer; '#' starts a comment (OFF) when asked.
class Tokens {
public:
  Tokens(std::string_view text, std::size_t start, bool hashComments)
      : text_(text), pos_(start), hashComments_(hashComments) {}
  bool next(std::string_view& token) {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (isSpace(c)) {
        ++pos_;
      } else if (hashComments_ && c == '#') {
        skipLine();
      } else {
        break;
      }
    }
    if (pos_ >= text_.size())
      return false;
    const std::size_t begin = pos_;
    while (pos_ < text_.size() && !isSpace(text_[pos_]) &&
           !(hashComments_ && text_[pos_] == '#'))
      ++pos_;
    token = text_.substr(begin, pos_ - begin);
    return true;
  }
  void skipLine() {
    while (pos_ < text_.size() && text_[pos_] != '\n')
      ++pos_;
  }
  std::size_t remaining() const { return text_.size() - pos_; }

private:
  std::string_view text_;
  std::size_t pos_;
  bool hashComments_;
};

std::string shown(std::string_view token) {
  return "'" + printableText(std::string(token.substr(0, 40))) +
         (token.size() > 40 ? "...'" : "'");
}

} // namespace

std::uint64_t readableFileSize(const std::string& path, const std::string& what) {
  if (path.empty())
    fail("empty file name given for the ", what);
  // The binary and mesh readers size and map the whole file, which a pipe cannot give.
  if (path == "-")
    fail("the ", what, " cannot come from standard input ('-'): give a file name");
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0)
    fail("cannot open ", what, " ", quoted(path), ": ", std::strerror(errno));
  if (S_ISDIR(info.st_mode))
    fail(what, " ", quoted(path), " is a directory, not a file");
  if (!S_ISREG(info.st_mode))
    fail(what, " ", quoted(path), " is not a regular file");
  std::ifstream probe(path, std::ios::binary);
  if (!probe)
    fail("cannot open ", what, " ", quoted(path), ": ", std::strerror(errno));
  return std::uint64_t(info.st_size);
}

RawVolume readRawVolume(const std::string& path, const std::array<SimplexId, 3>& dims,
                        ScalarType type) {
  RawVolume volume;
  volume.dims = dims;
  volume.type = type;
  const std::string shape = std::to_string(dims[0]) + "x" + std::to_string(dims[1]) +
                            "x" + std::to_string(dims[2]) + " " + scalarTypeName(type);
  // Overflow-safe: a product that does not fit cannot match any file.
  std::uint64_t count = 1, bytes = 0;
  for (const SimplexId d : dims) {
    if (d <= 0)
      fail("grid dimensions must be positive (--dims ", shape, ")");
    if (__builtin_mul_overflow(count, std::uint64_t(d), &count))
      fail("--dims ", shape, ": the number of grid points overflows 64 bits");
  }
  if (count > std::uint64_t(std::numeric_limits<SimplexId>::max()) ||
      __builtin_mul_overflow(count, std::uint64_t(scalarTypeSize(type)), &bytes))
    fail("--dims ", shape, ": the volume's byte count overflows 64 bits");
  const std::uint64_t fileSize = readableFileSize(path, "raw volume");
  if (fileSize != bytes)
    fail("raw volume ", quoted(path), " has ", std::to_string(fileSize), " bytes but ",
         shape, " needs ", std::to_string(bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    fail("cannot open raw volume ", quoted(path));
  volume.bytes.resize(bytes);
  in.read(reinterpret_cast<char*>(volume.bytes.data()), std::streamsize(bytes));
  if (std::uint64_t(in.gcount()) != bytes)
    fail("could not read all ", std::to_string(bytes), " bytes of raw volume ",
         quoted(path));
  return volume;
}

SurfaceMesh readOff(const std::string& path) {
  const std::uint64_t size = readableFileSize(path, "mesh");
  const std::string data = readAll(path, size, "mesh");
  const std::string where = "OFF file " + quoted(path);
  Tokens tokens(data, 0, true);
  std::string_view token;
  if (!tokens.next(token))
    fail(quoted(path), " is empty, not an OFF file");
  if (token != "OFF") {
    if (token.size() > 3 && token.substr(token.size() - 3) == "OFF")
      fail(where, ": the ", shown(token), " variant is not supported (plain OFF only)");
    fail(quoted(path), " is not an OFF file (no OFF header)");
  }
  auto integer = [&](const char* what) {
    if (!tokens.next(token))
      fail(where, " ends early (expected ", what, ")");
    std::int64_t value = 0;
    if (!parseInt64(token, value))
      fail(where, ": expected ", what, ", got ", shown(token));
    return value;
  };
  const std::int64_t vertices = integer("the vertex count");
  const std::int64_t faces = integer("the face count");
  integer("the edge count"); // unused by the format, but must be there
  if (vertices <= 0)
    fail(where, " declares no vertices");
  if (faces <= 0)
    fail(where, " has no faces");
  // Each vertex takes 3 numbers, each face 4, each token a byte and a separator.
  const u128 least = u128(2) * (u128(3) * u128(vertices) + u128(4) * u128(faces)) - 1;
  if (least > tokens.remaining())
    fail(where, " declares ", std::to_string(vertices), " vertices and ",
         std::to_string(faces), " faces, more than its ", std::to_string(size),
         " bytes can hold (truncated file or corrupt header)");
  SurfaceMesh mesh;
  mesh.points.resize(std::size_t(vertices) * 3);
  for (std::int64_t v = 0; v < vertices; ++v) {
    for (int k = 0; k < 3; ++k) {
      if (!tokens.next(token))
        fail(where, " ends inside the vertex list (vertex ", std::to_string(v), " of ",
             std::to_string(vertices), ")");
      if (!parseFinite(token, mesh.points[3 * v + k]))
        fail(where, ": vertex ", std::to_string(v), " has coordinate ", shown(token),
             ", not a finite number");
    }
  }
  mesh.cells.resize(std::size_t(faces) * 3);
  for (std::int64_t f = 0; f < faces; ++f) {
    const auto face = [f] { return "face " + std::to_string(f); };
    if (!tokens.next(token))
      fail(where, " ends inside the face list (", face(), " of ", std::to_string(faces),
           ")");
    std::int64_t n = 0;
    if (!parseInt64(token, n))
      fail(where, ": ", face(), " starts with ", shown(token), ", not a vertex count");
    if (n < 3)
      fail(where, ": ", face(), " has ", std::to_string(n),
           " vertices (a face needs at least 3)");
    if (n != 3)
      fail(where, ": ", face(), " has ", std::to_string(n),
           " vertices; only triangle meshes are supported (triangulate it first)");
    for (int k = 0; k < 3; ++k) {
      if (!tokens.next(token))
        fail(where, " ends inside ", face());
      std::int64_t id = 0;
      if (!parseInt64(token, id))
        fail(where, ": ", face(), " has vertex id ", shown(token), ", not an integer");
      if (id < 0 || id >= vertices)
        fail(where, ": ", face(), " refers to vertex ", std::to_string(id),
             " but the file has ", std::to_string(vertices), " vertices");
      mesh.cells[3 * f + k] = id;
    }
    if (mesh.cells[3 * f] == mesh.cells[3 * f + 1] ||
        mesh.cells[3 * f] == mesh.cells[3 * f + 2] ||
        mesh.cells[3 * f + 1] == mesh.cells[3 * f + 2])
      fail(where, ": ", face(), " repeats a vertex (a degenerate triangle)");
    tokens.skipLine(); // an optional colour
  }
  return mesh;
}

// ---------------------------------------------------------------------------- PLY

namespace {

struct PlyType {
  const char* name;
  const char* sizedName;
  int size;
  bool integral;
  bool isSigned;
};

constexpr PlyType kPlyTypes[] = {
    {"char", "int8", 1, true, true},      {"uchar", "uint8", 1, true, false},
    {"short", "int16", 2, true, true},    {"ushort", "uint16", 2, true, false},
    {"int", "int32", 4, true, true},      {"uint", "uint32", 4, true, false},
    {"float", "float32", 4, false, true}, {"double", "float64", 8, false, true}};

int plyTypeIndex(std::string_view name) {
  for (int t = 0; t < int(std::size(kPlyTypes)); ++t) {
    if (name == kPlyTypes[t].name || name == kPlyTypes[t].sizedName)
      return t;
  }
  return -1;
}

struct PlyProperty {
  std::string name;
  int type = 0;       // of the value, or of a list's items
  int countType = -1; // >= 0 for a list
};

struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
};

enum class PlyFormat { Ascii, LittleEndian, BigEndian };

bool hostIsLittleEndian() {
  const std::uint16_t one = 1;
  unsigned char first = 0;
  std::memcpy(&first, &one, 1);
  return first == 1;
}

// Decodes one binary value of type t at p (bounds checked by the caller).
double decode(const char* p, int t, bool swap) {
  unsigned char b[8];
  const int n = kPlyTypes[t].size;
  for (int i = 0; i < n; ++i)
    b[i] = static_cast<unsigned char>(swap ? p[n - 1 - i] : p[i]);
  switch (t) {
  case 0: {
    std::int8_t v;
    std::memcpy(&v, b, 1);
    return v;
  }
  case 1:
    return b[0];
  case 2: {
    std::int16_t v;
    std::memcpy(&v, b, 2);
    return v;
  }
  case 3: {
    std::uint16_t v;
    std::memcpy(&v, b, 2);
    return v;
  }
  case 4: {
    std::int32_t v;
    std::memcpy(&v, b, 4);
    return v;
  }
  case 5: {
    std::uint32_t v;
    std::memcpy(&v, b, 4);
    return v;
  }
  case 6: {
    float v;
    std::memcpy(&v, b, 4);
    return v;
  }
  default: {
    double v;
    std::memcpy(&v, b, 8);
    return v;
  }
  }
}

// Which value is being read, spelled out only when it is bad.
struct PlyPlace {
  const PlyElement& element;
  std::uint64_t index;
  const PlyProperty& property;
  bool listLength;
};

std::string describe(const PlyPlace& at) {
  return at.element.name + " " + std::to_string(at.index) + " property " +
         at.property.name + (at.listLength ? " (list length)" : "");
}

// Reads the body value by value, ascii or binary, with every read bounds-checked.
class PlyBody {
public:
  PlyBody(const std::string& data, std::size_t start, PlyFormat format,
          const std::string& where)
      : data_(data), pos_(start), format_(format), where_(where),
        tokens_(data, start, false),
        swap_((format == PlyFormat::BigEndian) == hostIsLittleEndian()) {}

  double value(int type, const PlyPlace& at) {
    if (format_ == PlyFormat::Ascii) {
      std::string_view token;
      if (!tokens_.next(token))
        fail(where_, " ends early (in ", describe(at), ")");
      if (kPlyTypes[type].integral) {
        std::int64_t v = 0;
        if (!parseInt64(token, v))
          fail(where_, ": ", describe(at), " is ", shown(token), ", not an integer");
        return double(v);
      }
      double v = 0;
      if (!parseFinite(token, v))
        fail(where_, ": ", describe(at), " is ", shown(token), ", not a finite number");
      return v;
    }
    const std::size_t n = std::size_t(kPlyTypes[type].size);
    if (data_.size() - pos_ < n)
      fail(where_, " is truncated (in ", describe(at), ")");
    const double v = decode(data_.data() + pos_, type, swap_);
    pos_ += n;
    return v;
  }

  std::uint64_t listCount(int type, const PlyPlace& at) {
    const double n = value(type, at);
    if (!(n >= 0) || n != std::floor(n))
      fail(where_, ": ", describe(at), " is negative (corrupt file?)");
    // Each item takes at least one byte (binary) or two (ascii).
    if (n > double(remaining()))
      fail(where_, ": ", describe(at), " is ", std::to_string(std::uint64_t(n)),
           ", more than the rest of the file can hold (truncated or corrupt file)");
    return std::uint64_t(n);
  }

  std::size_t remaining() const {
    return format_ == PlyFormat::Ascii ? tokens_.remaining() : data_.size() - pos_;
  }

private:
  const std::string& data_;
  std::size_t pos_;
  PlyFormat format_;
  const std::string& where_;
  Tokens tokens_;
  bool swap_;
};

// A PLY header: its format, its elements with their properties, and where the body
// starts (the offset after end_header's line).
struct PlyHeader {
  PlyFormat format = PlyFormat::Ascii;
  std::vector<PlyElement> elements;
  std::size_t bodyStart = 0;
};

// The header's lines up to end_header, checked (size: the file's, which bounds each
// element count).
PlyHeader readPlyHeader(const std::string& data, std::uint64_t size,
                        const std::string& path, const std::string& where) {
  std::size_t pos = 0;
  auto nextLine = [&](std::string& line) {
    if (pos >= data.size())
      return false;
    std::size_t end = data.find('\n', pos);
    if (end == std::string::npos)
      end = data.size();
    line = data.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    pos = end + 1;
    return true;
  };
  std::string line;
  if (!nextLine(line) || line != "ply")
    fail(quoted(path), " is not a PLY file (no 'ply' magic line)");
  bool haveFormat = false, ended = false;
  PlyFormat format = PlyFormat::Ascii;
  std::vector<PlyElement> elements;
  while (!ended && nextLine(line)) {
    std::vector<std::string_view> words;
    Tokens lineTokens(line, 0, false);
    std::string_view w;
    while (lineTokens.next(w))
      words.push_back(w);
    if (words.empty() || words[0] == "comment" || words[0] == "obj_info")
      continue;
    if (words[0] == "end_header") {
      ended = true;
    } else if (words[0] == "format") {
      if (words.size() != 3)
        fail(where, ": malformed format line '", line, "'");
      if (words[1] == "ascii")
        format = PlyFormat::Ascii;
      else if (words[1] == "binary_little_endian")
        format = PlyFormat::LittleEndian;
      else if (words[1] == "binary_big_endian")
        format = PlyFormat::BigEndian;
      else
        fail(where, ": unknown format ", shown(words[1]),
             " (expected ascii, binary_little_endian or binary_big_endian)");
      haveFormat = true;
    } else if (words[0] == "element") {
      std::int64_t count = 0;
      if (words.size() != 3 || !parseInt64(words[2], count) || count < 0)
        fail(where, ": malformed element line ", shown(line));
      // An element takes at least a byte; this bounds every allocation below.
      if (std::uint64_t(count) > size)
        fail(where, " declares ", std::to_string(count), " ", std::string(words[1]),
             " elements, more than its ", std::to_string(size),
             " bytes can hold (corrupt header?)");
      elements.push_back({std::string(words[1]), std::uint64_t(count), {}});
    } else if (words[0] == "property") {
      if (elements.empty())
        fail(where, ": a property comes before any element");
      PlyProperty p;
      if (words.size() == 3) {
        p.type = plyTypeIndex(words[1]);
        p.name = std::string(words[2]);
        if (p.type < 0)
          fail(where, ": unknown property type ", shown(words[1]));
      } else if (words.size() == 5 && words[1] == "list") {
        p.countType = plyTypeIndex(words[2]);
        p.type = plyTypeIndex(words[3]);
        p.name = std::string(words[4]);
        if (p.countType < 0 || p.type < 0 || !kPlyTypes[p.countType].integral)
          fail(where, ": bad list property ", shown(line));
      } else {
        fail(where, ": malformed property line ", shown(line));
      }
      elements.back().properties.push_back(p);
    } else {
      fail(where, ": unexpected header line ", shown(line));
    }
  }
  if (!ended)
    fail(where, " has no end_header line (truncated or not a PLY file)");
  if (!haveFormat)
    fail(where, " has no format line");
  return {format, std::move(elements), pos};
}

} // namespace

SurfaceMesh readPly(const std::string& path) {
  const std::uint64_t size = readableFileSize(path, "mesh");
  const std::string data = readAll(path, size, "mesh");
  const std::string where = "PLY file " + quoted(path);

  // Header: lines up to end_header.
  const PlyHeader header = readPlyHeader(data, size, path, where);
  const PlyFormat format = header.format;
  const std::vector<PlyElement>& elements = header.elements;
  const std::size_t pos = header.bodyStart;

  // The smallest body the header allows (lists empty), before reading any of it.
  u128 least = 0;
  for (const auto& e : elements) {
    if (e.properties.empty() && e.count > 0)
      fail(where, ": element '", e.name, "' has no properties");
    u128 perElement = 0;
    for (const auto& p : e.properties)
      perElement +=
          std::uint64_t(kPlyTypes[p.countType >= 0 ? p.countType : p.type].size);
    if (format == PlyFormat::Ascii)
      perElement = 2 * u128(e.properties.size()); // a digit and a separator each
    least += perElement * e.count;
  }
  const std::size_t bodySize = data.size() - std::min(pos, data.size());
  if (least > (format == PlyFormat::Ascii ? u128(bodySize) + 1 : u128(bodySize)))
    fail(where, " is truncated: its header needs at least ",
         std::to_string(std::uint64_t(std::min<u128>(least, ~std::uint64_t(0)))),
         " bytes of data but only ", std::to_string(bodySize), " follow it");

  SurfaceMesh mesh;
  PlyBody body(data, std::min(pos, data.size()), format, where);
  bool haveVertices = false, haveFaces = false;
  SimplexId vertexCount = 0;
  for (const auto& e : elements) {
    const bool isVertex = e.name == "vertex" && !haveVertices;
    const bool isFace = e.name == "face" && !haveFaces;
    if (isFace && !haveVertices)
      fail(where, ": the face element comes before the vertex element");
    std::vector<int> arrayOf(e.properties.size(), -1); // vertex property -> pointArrays
    int faceList = -1;
    if (isVertex) {
      haveVertices = true;
      vertexCount = SimplexId(e.count);
      for (std::size_t k = 0; k < e.properties.size(); ++k) {
        if (e.properties[k].countType >= 0)
          continue;
        arrayOf[k] = int(mesh.pointArrays.size());
        mesh.pointArrays.emplace_back(e.properties[k].name,
                                      std::vector<double>(std::size_t(e.count)));
      }
    }
    if (isFace) {
      haveFaces = true;
      for (std::size_t k = 0; k < e.properties.size(); ++k) {
        const auto& p = e.properties[k];
        if (p.countType >= 0 && (p.name == "vertex_indices" || p.name == "vertex_index"))
          faceList = int(k);
      }
      if (faceList < 0)
        fail(where, ": the face element has no vertex_indices list");
      mesh.cells.reserve(std::size_t(e.count) * 3);
    }
    for (std::uint64_t i = 0; i < e.count; ++i) {
      for (std::size_t k = 0; k < e.properties.size(); ++k) {
        const auto& p = e.properties[k];
        if (p.countType < 0) {
          const double v = body.value(p.type, {e, i, p, false});
          if (arrayOf[k] >= 0)
            mesh.pointArrays[arrayOf[k]].second[i] = v;
          continue;
        }
        const std::uint64_t n = body.listCount(p.countType, {e, i, p, true});
        if (int(k) == faceList && n != 3)
          fail(where, ": face ", std::to_string(i), " has ", std::to_string(n),
               (n < 3 ? " vertices (a face needs at least 3)"
                      : " vertices; only triangle meshes are supported "
                        "(triangulate it first)"));
        for (std::uint64_t j = 0; j < n; ++j) {
          const double v = body.value(p.type, {e, i, p, false});
          if (int(k) != faceList)
            continue;
          if (!(v >= 0 && v < double(vertexCount)) || v != std::floor(v))
            fail(where, ": face ", std::to_string(i), " refers to vertex ", v,
                 " but the file has ", std::to_string(vertexCount), " vertices");
          mesh.cells.push_back(SimplexId(v));
        }
        if (int(k) == faceList) {
          const SimplexId* c = mesh.cells.data() + mesh.cells.size() - 3;
          if (c[0] == c[1] || c[0] == c[2] || c[1] == c[2])
            fail(where, ": face ", std::to_string(i),
                 " repeats a vertex (a degenerate triangle)");
        }
      }
    }
  }
  if (!haveVertices || vertexCount == 0)
    fail(where, " has no vertices");
  if (mesh.cells.empty())
    fail(where, " has no faces (a triangle mesh is needed, not a point cloud)");
  const std::vector<double>* axis[3] = {nullptr, nullptr, nullptr};
  for (const auto& [name, values] : mesh.pointArrays) {
    for (int a = 0; a < 3; ++a) {
      if (name == std::string(1, char('x' + a)))
        axis[a] = &values;
    }
  }
  if (!axis[0] || !axis[1] || !axis[2])
    fail(where, ": the vertex element lacks an x, y or z property");
  mesh.points.resize(std::size_t(vertexCount) * 3);
  for (SimplexId v = 0; v < vertexCount; ++v) {
    for (int a = 0; a < 3; ++a)
      mesh.points[3 * v + a] = (*axis[a])[v];
  }
  return mesh;
}

} // namespace topogpu::io
