#pragma once

#include <chrono>

namespace topogpu {

class Timer {
public:
  Timer() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
        .count();
  }
  void reset() { start_ = std::chrono::steady_clock::now(); }

private:
  std::chrono::steady_clock::time_point start_;
};

} // namespace topogpu
