// The device's start (its CUDA context) on a thread of its own, so that a run
// overlaps it with host work (reading, the triangulation, the mesh setup) instead of
// waiting for it at its first CUDA call; the context then stays for the process's life,
// so later runs find the device warm.
#pragma once

namespace topogpu {

// Starts the device's context in the background, once per process (later calls return
// at once). Harmless without a device or CUDA (the thread finds none).
void warmUpDevice();

// Waits until a start begun by warmUpDevice has finished; returns the seconds waited (0
// when it had finished, or was never begun).
double waitForDevice();

// The seconds until the device is expected to take work: 0 once started,
// kDeviceStartSeconds minus the time it has run for a start under way, and
// kDeviceStartSeconds when none was begun. For the cost model of auto.
double deviceReadyIn();

// What a context start takes on the GPU hosts (measured:
// docs/filters/geodesic-distance.md).
constexpr double kDeviceStartSeconds = 0.3;

} // namespace topogpu
