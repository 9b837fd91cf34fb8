#include "DeviceWarmUp.h"

#include "base/Timer.h"
#include "core/common/GpuDevice.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <mutex>

namespace topogpu {

namespace {

struct WarmUp {
  std::mutex mutex;
  std::shared_future<void> done; // valid once begun
  Timer since;
};

WarmUp& state() {
  static WarmUp warmUp;
  return warmUp;
}

} // namespace

void warmUpDevice() {
  WarmUp& w = state();
  const std::lock_guard<std::mutex> lock(w.mutex);
  if (w.done.valid())
    return;
  w.since.reset();
  w.done = std::async(std::launch::async, [] { gpu::startDeviceContext(); }).share();
}

double waitForDevice() {
  std::shared_future<void> done;
  {
    WarmUp& w = state();
    const std::lock_guard<std::mutex> lock(w.mutex);
    done = w.done;
  }
  if (!done.valid())
    return 0;
  const Timer timer;
  done.wait();
  return timer.seconds();
}

double deviceReadyIn() {
  WarmUp& w = state();
  const std::lock_guard<std::mutex> lock(w.mutex);
  if (!w.done.valid())
    return kDeviceStartSeconds;
  if (w.done.wait_for(std::chrono::seconds(0)) == std::future_status::ready)
    return 0;
  return std::max(0.0, kDeviceStartSeconds - w.since.seconds());
}

} // namespace topogpu
