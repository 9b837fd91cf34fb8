// The environment's tuning and test knobs as the front ends read them
// (frontend/EnvironmentKnobs.h): each variable reaches the algorithm's parameter or
// setter with the value it holds, unset is the default, and a malformed value is either
// ignored (the device memory budget, as documented) or an error naming the variable and
// the value. The algorithms themselves read no environment, so these are the only paths.
#include "EikonalMeshes.h"
#include "core/common/BackendSelection.h"
#include "core/eikonal/Eikonal.h"
#include "frontend/EnvironmentKnobs.h"
#include "triangulation/explicit/ExplicitTriangulation.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <tuple>

using namespace topogpu;

namespace {

// The message of the Error that `run` throws; empty when it throws none.
template <typename Run> std::string errorOf(Run&& run) {
  try {
    run();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

const char* const kPatchFimVariables[] = {
    "TOPOGPU_PATCHFIM_LAUNCH", "TOPOGPU_PATCHFIM_BLOCKS_PER_SM", "TOPOGPU_PATCHFIM_LANES",
    "TOPOGPU_PATCHFIM_CHUNK"};

void clearPatchFimVariables() {
  for (const char* name : kPatchFimVariables)
    unsetenv(name);
}

} // namespace

// TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES caps the device's free memory when it holds a byte
// count, and the fallback's warning names it; other contents leave no cap.
TEST(EnvironmentKnobs, DeviceMemoryBudgetCapsTheFreeMemory) {
  const std::size_t free = std::size_t(8) << 30;
  unsetenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
  frontend::applyProcessKnobs();
  EXPECT_EQ(deviceMemoryBudget(free), free);
  setenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", "4096", 1);
  frontend::applyProcessKnobs();
  EXPECT_EQ(deviceMemoryBudget(free), 4096u);
  EXPECT_EQ(deviceMemoryBudget(1000), 1000u);
  RunReport forced;
  chooseBackend(Backend::Auto, true, "", 5000, deviceMemoryBudget(free), forced);
  ASSERT_EQ(forced.warnings.size(), 1u);
  EXPECT_EQ(forced.warnings[0].code, WarningCode::GpuMemoryInsufficient);
  EXPECT_NE(forced.warnings[0].text.find("(within TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES)"),
            std::string::npos)
      << forced.warnings[0].text;
  for (const char* ignored :
       {"", "-5", " 5", "12abc", "lots", "99999999999999999999999"}) {
    setenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", ignored, 1);
    frontend::applyProcessKnobs();
    EXPECT_EQ(deviceMemoryBudget(free), free) << "'" << ignored << "'";
  }
  // Cleared again when the variable goes.
  setenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES", "4096", 1);
  frontend::applyProcessKnobs();
  unsetenv("TOPOGPU_DEVICE_MEMORY_BUDGET_BYTES");
  frontend::applyProcessKnobs();
  EXPECT_EQ(deviceMemoryBudget(free), free);
}

TEST(EnvironmentKnobs, PatchFimLaunchFromTheVariables) {
  // The launch read as (mode, blocks per SM, lanes, chunk).
  const auto read = [] {
    const eikonal::PatchFimLaunch l = frontend::patchFimLaunchFromEnvironment();
    return std::make_tuple(l.mode, l.blocksPerSm, l.lanes, l.chunk);
  };
  clearPatchFimVariables();
  EXPECT_EQ(read(), std::make_tuple(eikonal::PatchFimLaunchMode::Auto, 0, 0, 128));
  const char* const forced[] = {"persistent", "3", "8", "5"};
  for (std::size_t i = 0; i < 4; ++i)
    setenv(kPatchFimVariables[i], forced[i], 1);
  EXPECT_EQ(read(), std::make_tuple(eikonal::PatchFimLaunchMode::Persistent, 3, 8, 5));
  setenv("TOPOGPU_PATCHFIM_LAUNCH", "rounds", 1);
  EXPECT_EQ(frontend::patchFimLaunchFromEnvironment().mode,
            eikonal::PatchFimLaunchMode::Rounds);
  setenv("TOPOGPU_PATCHFIM_LAUNCH", "auto", 1);
  EXPECT_EQ(frontend::patchFimLaunchFromEnvironment().mode,
            eikonal::PatchFimLaunchMode::Auto);
  clearPatchFimVariables();

  // A malformed value: an Error naming the variable and the value.
  const struct {
    const char* name;
    const char* value;
  } malformed[] = {{"TOPOGPU_PATCHFIM_LAUNCH", "sideways"},
                   {"TOPOGPU_PATCHFIM_BLOCKS_PER_SM", "65"},
                   {"TOPOGPU_PATCHFIM_LANES", "16"},
                   {"TOPOGPU_PATCHFIM_LANES", "2x"},
                   {"TOPOGPU_PATCHFIM_CHUNK", "0"}};
  for (const auto& bad : malformed) {
    setenv(bad.name, bad.value, 1);
    const std::string message =
        errorOf([] { frontend::patchFimLaunchFromEnvironment(); });
    unsetenv(bad.name);
    EXPECT_NE(message.find(bad.name), std::string::npos) << message;
    EXPECT_NE(message.find(bad.value), std::string::npos) << message;
  }
  setenv("TOPOGPU_PATCHFIM_LANES", "3", 1);
  const std::string lanes = errorOf([] { frontend::patchFimLaunchFromEnvironment(); });
  unsetenv("TOPOGPU_PATCHFIM_LANES");
  EXPECT_NE(lanes.find("TOPOGPU_PATCHFIM_LANES must be 1, 2, 4 or 8"), std::string::npos)
      << lanes;
}

// The same bounds hold for a launch given directly in the Parameters (any solver: the
// request is checked before a solver is chosen).
TEST(EnvironmentKnobs, PatchFimLaunchParametersAreValidated) {
  const eikonal::Surface s = eikonal::square(6);
  ExplicitTriangulation tri(s.vertices(), 2, s.cells);
  const auto messageFor = [&](const eikonal::PatchFimLaunch& launch) {
    eikonal::Parameters p;
    p.seeds = {0};
    p.solver = eikonal::Solver::Fmm;
    p.patchFimLaunch = launch;
    eikonal::Result r;
    RunReport report;
    return errorOf(
        [&] { eikonal::execute(tri, s.points.data(), p, Monitor{}, r, report); });
  };
  EXPECT_EQ(messageFor(eikonal::PatchFimLaunch{}), "");
  eikonal::PatchFimLaunch lanes;
  lanes.lanes = 3;
  EXPECT_NE(messageFor(lanes).find("lanes must be 1, 2, 4 or 8"), std::string::npos);
  eikonal::PatchFimLaunch chunk;
  chunk.chunk = 0;
  EXPECT_NE(messageFor(chunk).find("chunk must be between 1 and"), std::string::npos);
  eikonal::PatchFimLaunch blocks;
  blocks.blocksPerSm = -1;
  EXPECT_NE(messageFor(blocks).find("blocks per multiprocessor"), std::string::npos);
}

TEST(EnvironmentKnobs, RipsBoundEveryColumnWhenSet) {
  unsetenv("TOPOGPU_RIPS_BOUND_EVERY_COLUMN");
  EXPECT_FALSE(frontend::ripsBoundEveryColumnFromEnvironment());
  for (const char* any : {"1", "", "no"}) {
    setenv("TOPOGPU_RIPS_BOUND_EVERY_COLUMN", any, 1);
    EXPECT_TRUE(frontend::ripsBoundEveryColumnFromEnvironment()) << "'" << any << "'";
  }
  unsetenv("TOPOGPU_RIPS_BOUND_EVERY_COLUMN");
}
