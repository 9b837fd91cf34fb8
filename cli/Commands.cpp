#include "Commands.h"

#include "Domain.h"

#include "core/scalar_field_smoother/ScalarFieldSmoother.h"
#include "core/topological_simplification/TopologicalSimplification.h"

namespace topogpu::cli {

std::vector<OptionSpec> concat(std::vector<std::vector<OptionSpec>> groups) {
  std::vector<OptionSpec> all;
  for (auto& g : groups)
    all.insert(all.end(), g.begin(), g.end());
  return all;
}

std::vector<OptionSpec> runOptions() {
  return {{"--backend", "auto|cpu|gpu",
           "auto: the GPU when there is one and the data fits, else the CPU (default)"},
          {"--json", "", "print one JSON object (errors too) instead of text"},
          {"--repeat", "N", "run N times (benchmarks; 1 to 1000000, default 1)"}};
}

OptionSpec complexOption() {
  return {"--complex", "cubical|simplicial",
          "the cell complex of the gradient: simplicial (vertices, edges, triangles, "
          "tets: TTK's complex, the default) or cubical (a grid's vertices, edges, "
          "squares and voxels: the gMSC paper's, fastest on the GPU; grids only)"};
}

namespace {

// The simplicial complex's host memory check (msc, discrete-gradient).
OptionSpec simplicialMemoryBudgetOption() {
  return {"--memory-budget", "SIZE",
          "host memory the run may use, in bytes or with K, M or G (default: the "
          "available memory); simplicial complex: a run whose estimate (JSON "
          "\"host_memory_estimate_mib\") is larger is refused with the estimate"};
}

// The rows of the table, one per subcommand.
Command criticalPointsCommand() {
  return {"critical-points",
          "classify the vertices of a scalar field (TTK's ScalarFieldCriticalPoints)",
          {"--raw FILE --dims X,Y,Z --type T [options]",
           "--mesh FILE --array NAME [options]"},
          concat({domainOptions(), galeOptions(), runOptions()}),
          "Counts minima, 1-saddles, 2-saddles, maxima, degenerate and regular vertices "
          "(JSON key \"counts\": minimum saddle1 saddle2 maximum degenerate regular).",
          runCriticalPoints};
}

Command discreteGradientCommand() {
  return {
      "discrete-gradient",
      "discrete gradient (Robins et al.'s lower stars) on a grid's cubical complex or "
      "on a simplicial complex (tet or triangle mesh, or a grid's Freudenthal split)",
      {"--raw FILE --dims X,Y,Z --type T [--complex cubical|simplicial] [options]",
       "--mesh FILE --array NAME [--complex cubical|simplicial] [options]"},
      concat({domainOptions(),
              galeOptions(),
              {complexOption(),
               {"--separatrices", "",
                "simplicial complex: also count the 1-separatrices as TTK's "
                "MorseSmaleComplex does (\"separatrices1\": ascending, descending, "
                "saddle_connectors)"},
               simplicialMemoryBudgetOption()},
              runOptions()}),
      "Counts the critical cells of each dimension (JSON key \"critical_cells\": "
      "[n0, n1, n2, n3], n3 = 0 in 2D): minima, 1-saddles, 2-saddles, maxima of the "
      "lower-star filtration. --complex simplicial (the default, and the only choice "
      "on meshes): vertices, edges, triangles, tets (a grid's Freudenthal split), as "
      "TTK's DiscreteGradient (its critical cells are TTK's); adds \"simplices\": "
      "[V, E, F, T]. --complex cubical (grids): the grid's vertices, edges, squares and "
      "voxels; an axis of one point is squeezed out (2D); other counts than TTK's.",
      runDiscreteGradient};
}

Command morseSmaleComplexCommand() {
  return {
      "msc",
      "Morse-Smale complex of a grid field (cubical complex) or of any triangulation "
      "(simplicial complex): arcs (saddle-extremum, saddle-saddle) and manifolds",
      {"--raw FILE --dims X,Y,Z --type T [--details FILE] [options]",
       "--mesh FILE --array NAME [--details FILE] [options]"},
      concat({domainOptions(),
              galeOptions(),
              {{"--details", "FILE",
                "write the critical cells, arcs [saddle, extremum, multiplicity] "
                "(refined-grid ids) and the per-vertex / per-cell labels as JSON "
                "(meant for small grids and tests)"},
               {"--no-saddle-connections", "",
                "skip the 1-saddle to 2-saddle arcs (the expensive stage)"},
               {"--ascending-through-boundary", "",
                "simplicial complex: label every vertex's AscendingManifold, an "
                "ascending path that leaves through the boundary going on over the "
                "boundary facets to a boundary maximum (default: TTK 1.2's rule, such "
                "paths and the vertices whose first star cell takes one unlabelled, -1)"},
               {"--separatrices", "",
                "simplicial complex: also count the 1-separatrices as TTK 1.2's "
                "MorseSmaleComplex does (\"separatrices1\") and the 2-separatrices' "
                "walls (\"separatrices2\"; passes over the gradient, so off by "
                "default)"},
               {"--separatrices-out", "FILE",
                "write the 1-separatrices (TTK's line cells, one per V-path step, with "
                "TTK's point and cell arrays) as JSON, or as VTK's .vtp when FILE ends "
                "in .vtp (docs/cli.md, \"Separatrices file\")"},
               {"--persistence-pairs", "",
                "add the persistence pairs of the lower-star filtration (the Discrete "
                "Morse Sandwich of `topogpu persistence`, either complex): (minimum, "
                "1-saddle), ((d-1)-saddle, maximum) and, in 3D, (1-saddle, 2-saddle) "
                "(cubical complex: with the saddle connections only), as "
                "\"persistence_pairs\""},
               {"--persistence-threshold", "T",
                "simplicial complex: the complex of the field simplified at persistence "
                "T (absolute, >= 0; auto: the smallest T leaving at most 20 minima and "
                "20 maxima), answered from the cancellation hierarchy without "
                "recomputing the gradient, as \"simplified\"; --details and "
                "--separatrices-out then write that complex"},
               {"--persistence-thresholds", "T1,T2,...",
                "as --persistence-threshold, each threshold answered in turn from one "
                "hierarchy (timings per answer in \"simplified\"; the files hold the "
                "last)"},
               complexOption(),
               simplicialMemoryBudgetOption()},
              runOptions()}),
      "Counts the critical cells (\"critical_cells\": [n0, n1, n2, n3]), the "
      "saddle-extremum arcs (\"arcs\": {\"saddle1_minimum\", \"saddle2_maximum\"}; in "
      "2D "
      "the saddle-maximum arcs start at 1-saddles and are still counted under "
      "saddle2_maximum), the boundary maxima where ascending paths leave the box, and "
      "the unlabelled vertices and cells (\"unlabelled_vertices\": {\"ascending\", "
      "\"descending\", \"morse_smale\"}, \"unlabelled_cells\"; 0 with the cubical "
      "complex's boundary rule and --ascending-through-boundary), and in 3D "
      "the 1-saddle to 2-saddle arcs with their numbers of V-paths "
      "(\"saddle1_saddle2\", "
      "\"saddle1_saddle2_multiplicity_sum\"). --persistence-pairs adds "
      "\"persistence_pairs\": {\"pairs\": [[dim, birth_rank, death_rank, birth_cell, "
      "death_cell, birth_value, death_value], ...], \"essential_minima\", "
      "\"saddles_left\", \"maxima_left\"} (in 2D the (1-saddle, maximum) pairs have dim "
      "1; "
      "on the simplicial complex only pairs of positive rank persistence are listed). "
      "--complex simplicial (the "
      "default, any --triangulation): the same keys on the simplicial gradient (ids are "
      "simplex ids; --details lists simplices as vertex lists), \"simplices\", and "
      "with --separatrices TTK 1.2's separatrix counts as \"separatrices1\".",
      runMorseSmaleComplex};
}

Command persistenceCommand() {
  return {
      "persistence",
      "persistence diagram of a scalar field (TTK's PersistenceDiagram, Discrete Morse "
      "Sandwich) on the simplicial complex of any triangulation, or on a grid's "
      "cubical complex",
      {"--raw FILE --dims X,Y,Z --type T [--out FILE] [--curve FILE] [options]",
       "--mesh FILE --array NAME [--out FILE] [--curve FILE] [options]"},
      concat({domainOptions(),
              galeOptions(),
              {complexOption(),
               {"--out", "FILE",
                "write the diagram: one row per pair as CSV, or TTK's diagram layout "
                "when FILE ends in .vtu (VTK builds; docs/cli.md, \"Persistence "
                "diagram files\")"},
               {"--curve", "FILE",
                "write the persistence curve as CSV (PairType, -1 for all pairs; "
                "Persistence; NumberOfPairs of at least that persistence)"},
               {"--no-pairs", "", "leave the pairs out of the JSON (counts only)"},
               {"--saddle-connections", "",
                "simplicial complex in 3D: take the (1-saddle, 2-saddle) pairs from the "
                "saddle connections (every 2-saddle's wall, V-paths counted mod 2) "
                "instead of the boundary expansion: the same pairs, slower (a "
                "cross-check)"},
               simplicialMemoryBudgetOption()},
              runOptions()}),
      "Pairs the critical cells of the Morse-Smale complex's gradient in the lower-star "
      "filtration: (minimum, 1-saddle) pairs (PairType 0), (1-saddle, 2-saddle) pairs "
      "in 3D (1) and (saddle, maximum) pairs (d-1: 2 in 3D, 1 in 2D); an unpaired "
      "critical cell of dimension k is an essential class of type k dying at the "
      "global maximum (IsFinite 0: the global minimum on a grid). The JSON has "
      "\"critical_cells\", \"pair_counts\" {\"finite\", \"essential\"} per type and "
      "\"pairs\": [[type, birth, death, birth_vertex, death_vertex, "
      "birth_cell_dimension, birth_cell, death_cell_dimension, death_cell, "
      "is_finite]] sorted by the birth vertex's order (TTK's); the pairing's stages are "
      "timed as \"pairing input\", \"pairing\" (the extrema), \"pairing saddle-saddle\" "
      "(3D) and \"diagram records\". --backend gpu runs the complex on the device "
      "(implicit grids) and the pairing on the CPU, on all cores.",
      runPersistence};
}

Command smoothCommand() {
  return {
      "smooth",
      "Laplacian smoothing of a scalar field (TTK's ScalarFieldSmoother)",
      {"--raw FILE --dims X,Y,Z --type T [--iterations N] [--output FILE] [options]",
       "--mesh FILE --array NAME [--iterations N] [options]"},
      concat({domainOptions(),
              {{"--iterations", "N",
                "smoothing passes, 0 to " +
                    std::to_string(scalar_field_smoother::kMaxIterations) +
                    " (default 1); each averages every vertex with its neighbours"},
               {"--output", "FILE",
                "write the smoothed field as a raw volume of the input's dims and type "
                "(--raw inputs only)"}},
              runOptions()}),
      "Reports the value range before and after (JSON keys \"range_before\", "
      "\"range_after\": min, max) in the input's type (integers rounded to nearest).",
      runSmooth};
}

Command simplifyCommand() {
  return {
      "simplify",
      "topological simplification of a scalar field (TTK's TopologicalSimplification, "
      "LTS-style sweeps) on the simplicial complex",
      {"--raw FILE --dims X,Y,Z --type T (--threshold T [--relative] | --constraints "
       "FILE) [--out FILE] [options]",
       "--mesh FILE --array NAME (--threshold T [--relative] | --constraints FILE) "
       "[--out FILE] [options]"},
      concat(
          {domainOptions(),
           {{"--threshold", "T",
             "remove the minimum-saddle and saddle-maximum pairs of persistence "
             "below T (absolute value)"},
            {"--relative", "", "T is a fraction of the field's range (max - min)"},
            {"--constraints", "FILE",
             "keep exactly these extrema instead: a `topogpu persistence --out` CSV "
             "(both ends of every row) or a TTK-layout diagram .vtu/.vtp (points with "
             "ttkVertexScalarField and CriticalType, e.g. after a Threshold)"},
            {"--iterations", "N",
             "at most N rounds of the two sweeps (1 to " +
                 std::to_string(topological_simplification::kMaxIterations) +
                 ", default " +
                 std::to_string(topological_simplification::kDefaultMaximumIterations) +
                 ")"},
            {"--out", "FILE",
             "write the simplified field: .vti (grids), the input mesh's .vtu/.vtp "
             "(VTK builds), with the input's array name and type plus <name>_Order; "
             ".raw writes the values only (the order is lost)"},
            simplicialMemoryBudgetOption()},
           runOptions()}),
      "Flattens the basin of every removed minimum (maximum) to its saddle's value and "
      "orders it after (before) the saddle; every other vertex keeps its value and "
      "relative order. The output's extrema are exactly the kept ones (the minima of "
      "the pairs of persistence >= T, the maxima likewise, one minimum per component); "
      "a kept pair keeps its birth and death unless one end lies in a flattened "
      "region, where it moves by less than T; saddle-saddle pairs (3D) go only with "
      "the regions that contain them. JSON: \"threshold\", \"iterations\", "
      "\"kept_minima\", \"kept_maxima\", \"changed_vertices\", "
      "\"flattened_vertices\", \"extra_extrema\", \"finite_pairs\" {\"kept\", "
      "\"removed\"} per PairType, timings per stage (the input diagram's prefixed "
      "\"diagram: \"). --backend gpu runs the sweeps on the device (implicit grids).",
      runSimplify};
}

Command geodesicCommand() {
  return {
      "geodesic",
      "geodesic distance on a triangle surface from seed vertices (FMM, meshFIM, "
      "patchFIM on the GPU)",
      {"--mesh FILE --seeds ID[,ID...] [--solver auto|fmm|fim|fim-mt|gpu] "
       "[--partition bfs|metis] [--speed-array NAME] [--stop D] "
       "[--exact-start-radius R|auto] [--out FILE] [--json]"},
      {{"--mesh", "FILE",
        "triangle surface (any other cell is refused): .off .ply"
#if TOPOGPU_WITH_VTK
        " .vtu .vtp .vtk"
#else
        " (this build has no VTK: no .vtu .vtp .vtk)"
#endif
       },
       {"--seeds", "ID[,ID...]", "seed vertex ids (distance 0), 0-based, in file order"},
       {"--solver", "auto|fmm|fim|fim-mt|gpu",
        "fast marching, meshFIM on one thread, meshFIM on all threads, patchFIM on the "
        "GPU (falls back to fim-mt with a warning); auto (default): gpu where it is "
        "expected to win end to end (a device that fits the mesh, its partition, start "
        "and transfers below fim-mt's solve), else fim-mt"},
       {"--patch-size", "N", "patchFIM: vertices per patch (4 to 512, default 64)"},
       {"--internal-iterations", "N",
        "patchFIM: most sweeps per active patch and round (1 to 1000, default 7)"},
       {"--band-width", "B",
        "patchFIM: values propagated per round, in mean edge travel times beyond the "
        "smallest waiting one (> 0 or inf, default 1)"},
       {"--partition", "bfs|metis",
        "patchFIM: patches grown breadth-first (bfs) or from METIS (metis; BFS-grown "
        "with a warning in builds without METIS); default bfs"},
       {"--speed-array", "NAME",
        "point array giving the speed (> 0) at each vertex; a triangle's speed is the "
        "mean of its vertices' (default: speed 1, the geodesic distance)"},
       {"--exact-start-radius", "R|auto",
        "the vertices within geodesic distance R of the seeds start from their exact "
        "polyhedral distance (0: the seeds alone; > 0 or inf; uniform speed only); "
        "default auto (sqrt(mean edge x sqrt(area)))"},
       {"--stop", "D", "vertices farther than D stay unreached (inf); default inf"},
       {"--out", "FILE",
        "write one distance per vertex per line, in input order (inf "
        "when unreached)"},
       {"--json", "", "print one JSON object (errors too) instead of text"},
       {"--repeat", "N", "run N times (benchmarks; 1 to 1000000, default 1)"}},
      "Solves |grad d| = 1 / speed from the seeds with the local solver of Fu et al. "
      "(2011), obtuse angles split by fans of unfolded virtual edges, the vertices "
      "near the seeds started from their exact distance. JSON keys: solver (the "
      "one "
      "that ran), requested_solver, seeds, speed, iterations (sweeps of meshFIM, "
      "accepted vertices of FMM, rounds of patchFIM), local_solves_per_vertex, "
      "unreached, max_distance, converged, obtuse_angles, unfolded_angles, "
      "degenerate_triangles, exact_vertices and exact_radius (the exact start: seeds "
      "included, and the radius they lie within), output, wall_seconds (the whole "
      "command); timings: every "
      "stage, read and write included; patchFIM adds patches, partition, patch_rounds, "
      "patch_size, internal_iterations, band_width.",
      runGeodesic};
}

Command ripsCommand() {
  return {
      "rips",
      "Vietoris-Rips persistence barcodes of a point cloud or a distance matrix "
      "(Ripser's "
      "method, Z/2)",
      {"[--format F] [--dim K] [--threshold T] [--sparse] [--backend B] [--threads N] "
       "[--memory-budget SIZE] [--cocycles] [--json] FILE"},
      {{"<FILE>", "",
        "the input file (text; the format is given by --format); - reads standard "
        "input"},
       {"--format", "F",
        "distance (full matrix), lower-distance (default, as Ripser), upper-distance, "
        "point-cloud (one point per line) or sparse ('i j d' lines)"},
       {"--dim", "K", "compute persistence up to dimension K (0 to 64; default 1)"},
       {"--threshold", "T",
        "keep simplices of diameter <= T (> 0; default and upper bound: the enclosing "
        "radius)"},
       {"--sparse", "",
        "use the sparse-graph path (automatic when the threshold keeps under a quarter "
        "of the pairs, and for sparse input)"},
       {"--backend", "auto|cpu|gpu",
        "auto (default) and cpu: the CPU backend (no device start-up or memory; within "
        "1.8x of the GPU backend on every benchmark set); gpu: the columns and apparent "
        "pairs on the device, the reduction on the CPU (without a usable device: the "
        "CPU with a warning)"},
       {"--threads", "N", "CPU threads (0 to 4096; default 0: all cores)"},
       {"--memory-budget", "SIZE",
        "host memory the run may use, in bytes or with K, M or G (default: the "
        "available memory); a run whose estimate is larger is refused with the "
        "largest --dim and --threshold that fit"},
       {"--cocycles", "",
        "also print a representative cocycle of each finite bar of dimension >= 1, "
        "after the intervals: \"representative cocycles in dim k:\" then one line per "
        "bar, \" [b,d): v v; v v; ...\" (its k-simplices, 0-based vertices; Z/2)"},
       {"--json", "", "print one JSON object (errors too) instead of text"}},
      "Prints the intervals in Ripser's text format (\"persistence intervals in dim "
      "k:\" "
      "then \" [b,d)\" or \" [b, )\" lines; zero-length bars are left out). --json "
      "prints {\"dimensions\": [{\"dimension\", \"intervals\": [[b, d|null]], "
      "\"simplices\", "
      "\"columns\", \"pairs\", \"apparent_pairs\", \"apparent_percent\", "
      "\"emergent_pairs\", \"essential\", \"columns_backend\", \"batches\"}], "
      "\"threshold\", \"enclosing_radius\", "
      "\"sparse\", \"edges\", timings, peak memory}.",
      runRips};
}

Command infoCommand() {
  return {"info",       "build features (CUDA, VTK) and the GPU seen",
          {"[--json]"}, {{"--json", "", "print one JSON object"}},
          "",           runInfo};
}

} // namespace

// The one table of subcommands: a new module adds its row (a function above) here.
const std::vector<Command>& commandTable() {
  static const std::vector<Command> table = {criticalPointsCommand(),
                                             discreteGradientCommand(),
                                             morseSmaleComplexCommand(),
                                             persistenceCommand(),
                                             smoothCommand(),
                                             simplifyCommand(),
                                             geodesicCommand(),
                                             ripsCommand(),
                                             infoCommand()};
  return table;
}

const Command* findCommand(const std::string& name) {
  for (const auto& c : commandTable()) {
    if (c.name == name)
      return &c;
  }
  return nullptr;
}

std::string usageText() {
  std::string text = "usage: topogpu <command> [options]\ncommands:\n";
  for (const auto& c : commandTable()) {
    std::string name = c.name;
    name.resize(std::max<std::size_t>(name.size() + 2, 18), ' ');
    text += "  " + name + c.summary + "\n";
  }
  text += "  help [COMMAND]    this text, or a command's options\n"
          "run 'topogpu <command> --help' for a command's options; exit code 0 on "
          "success, 1 on any error\n";
  return text;
}

std::string helpText(const Command& command) {
  std::string text;
  for (std::size_t i = 0; i < command.synopsis.size(); ++i)
    text += std::string(i ? "       " : "usage: ") + "topogpu " + command.name + " " +
            command.synopsis[i] + "\n";
  text += command.summary + "\noptions:\n";
  std::vector<OptionSpec> options = command.options;
  options.push_back({"--help", "", "this text"});
  std::size_t width = 0;
  for (const auto& o : options)
    width = std::max(width, o.name.size() + 1 + o.value.size());
  for (const auto& o : options) {
    std::string left = o.name + (o.value.empty() ? "" : " " + o.value);
    left.resize(width + 2, ' ');
    text += "  " + left + o.help + "\n";
  }
  if (!command.details.empty())
    text += command.details + "\n";
  return text;
}

} // namespace topogpu::cli
