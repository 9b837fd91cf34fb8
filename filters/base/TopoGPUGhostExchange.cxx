// The ghost vertices' values refreshed from their owners (DistributedPiece::exchange):
// the plan of who sends which vertex to whom, made once per rebuilt piece, and the
// exchange of raw values along it.
#include "TopoGPUDistributedPiece.h"

#include "base/Types.h"

#include <vtkDataSet.h>
#include <vtkMPICommunicator.h>
#include <vtkMPIController.h>
#include <vtkMultiProcessController.h>

#include <climits>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace topogpu::vtk {

namespace {

constexpr int kIndexTag = 0x7480;
constexpr int kValueTag = 0x7486;

vtkMPIController* mpiOf(vtkMultiProcessController* controller) {
  auto* mpi = vtkMPIController::SafeDownCast(controller);
  if (mpi == nullptr)
    throw Error(std::string("a distributed run needs an MPI controller, this one is a ") +
                controller->GetClassName());
  return mpi;
}

int checkedCount(std::size_t n, const char* what) {
  if (n > std::size_t(INT_MAX))
    throw Error(std::string("too many ") + what + " to send in one message (" +
                std::to_string(n) + ")");
  return int(n);
}

// Collective: sends outgoing[q] to rank q and returns what each rank sent this one.
std::vector<std::vector<std::int64_t>>
swapLists(vtkMultiProcessController* controller,
          const std::vector<std::vector<std::int64_t>>& outgoing, int tag) {
  const int ranks = controller->GetNumberOfProcesses();
  const int rank = controller->GetLocalProcessId();
  std::vector<int> counts(outgoing.size()), all(std::size_t(ranks) * std::size_t(ranks));
  for (std::size_t q = 0; q < outgoing.size(); ++q)
    counts[q] = checkedCount(outgoing[q].size(), "ids");
  controller->AllGather(counts.data(), all.data(), ranks);
  vtkMPIController* mpi = mpiOf(controller);
  std::vector<std::vector<std::int64_t>> incoming(outgoing.size());
  std::vector<vtkMPICommunicator::Request> requests;
  requests.reserve(2 * outgoing.size());
  for (int q = 0; q < ranks; ++q) {
    const int count = all[std::size_t(q) * std::size_t(ranks) + std::size_t(rank)];
    if (count == 0)
      continue;
    incoming[std::size_t(q)].resize(std::size_t(count));
    requests.emplace_back();
    mpi->NoBlockReceive(reinterpret_cast<char*>(incoming[std::size_t(q)].data()),
                        checkedCount(std::size_t(count) * sizeof(std::int64_t), "bytes"),
                        q, tag, requests.back());
  }
  for (int q = 0; q < ranks; ++q) {
    if (outgoing[std::size_t(q)].empty())
      continue;
    requests.emplace_back();
    mpi->NoBlockSend(
        reinterpret_cast<const char*>(outgoing[std::size_t(q)].data()),
        checkedCount(outgoing[std::size_t(q)].size() * sizeof(std::int64_t), "bytes"), q,
        tag, requests.back());
  }
  if (!requests.empty())
    mpi->WaitAll(int(requests.size()), requests.data());
  return incoming;
}

} // namespace

// Every ghost vertex came with the rank that sent it and its index in that rank's
// welded piece. The sender may not own it (a point where three pieces meet): it then
// names the owner, whose copy it holds. The owner is then asked for the vertex and keeps
// the order of the requests, so an exchange sends values only.
void DistributedPiece::planExchange() {
  const int ranks = controller_->GetNumberOfProcesses();
  const int rank = controller_->GetLocalProcessId();
  receives_.assign(std::size_t(ranks), {});
  sends_.assign(std::size_t(ranks), {});
  const auto invalid = [&](int q) { return q < 0 || q >= ranks || q == rank; };
  // 1. Ask each ghost's sender who owns it.
  std::vector<std::vector<std::int64_t>> queries(static_cast<std::size_t>(ranks));
  std::vector<std::vector<vtkIdType>> queried(static_cast<std::size_t>(ranks));
  for (std::size_t v = 0; v < owned_.size() && planError_.empty(); ++v) {
    if (owned_[v])
      continue;
    if (invalid(owner_[v])) {
      planError_ = "the ghost cell generator left a ghost point without another rank";
      break;
    }
    queries[std::size_t(owner_[v])].push_back(ownerIndex_[v]);
    queried[std::size_t(owner_[v])].push_back(vtkIdType(v));
  }
  if (!planError_.empty())
    queries.assign(std::size_t(ranks), {});
  const auto asked = swapLists(controller_, queries, kIndexTag);
  std::vector<std::vector<std::int64_t>> answers(static_cast<std::size_t>(ranks));
  for (int q = 0; q < ranks; ++q) {
    for (const std::int64_t w : asked[std::size_t(q)]) {
      const vtkIdType v = w >= 0 && w < std::int64_t(fromWelded_.size())
                              ? fromWelded_[std::size_t(w)]
                              : -1;
      std::int64_t answer[2] = {-1, -1}; // the owner, the point's index there
      if (v >= 0 && owned_[std::size_t(v)]) {
        answer[0] = rank;
        answer[1] = w;
      } else if (v >= 0) {
        answer[0] = owner_[std::size_t(v)];
        answer[1] = ownerIndex_[std::size_t(v)];
      }
      answers[std::size_t(q)].insert(answers[std::size_t(q)].end(), answer, answer + 2);
    }
  }
  const auto answered = swapLists(controller_, answers, kIndexTag + 2);
  // 2. Ask each owner for its vertices.
  std::vector<std::vector<std::int64_t>> requests(static_cast<std::size_t>(ranks));
  for (int s = 0; s < ranks && planError_.empty(); ++s) {
    const auto& list = answered[std::size_t(s)];
    if (list.size() != 2 * queried[std::size_t(s)].size()) {
      planError_ = "rank " + std::to_string(s) + " answered " +
                   std::to_string(list.size() / 2) + " of " +
                   std::to_string(queried[std::size_t(s)].size()) + " ownership queries";
      break;
    }
    for (std::size_t k = 0; k < queried[std::size_t(s)].size(); ++k) {
      const int owner = int(list[2 * k]);
      if (invalid(owner)) {
        planError_ = "rank " + std::to_string(s) + " knows no other owner of a point " +
                     "it sent; the pieces do not fit together";
        break;
      }
      receives_[std::size_t(owner)].push_back(queried[std::size_t(s)][k]);
      requests[std::size_t(owner)].push_back(list[2 * k + 1]);
    }
  }
  if (!planError_.empty()) {
    requests.assign(std::size_t(ranks), {});
    receives_.assign(std::size_t(ranks), {});
  }
  const auto wanted = swapLists(controller_, requests, kIndexTag + 4);
  for (int q = 0; q < ranks && planError_.empty(); ++q) {
    for (const std::int64_t w : wanted[std::size_t(q)]) {
      const vtkIdType v = w >= 0 && w < std::int64_t(fromWelded_.size())
                              ? fromWelded_[std::size_t(w)]
                              : -1;
      if (v < 0 || !owned_[std::size_t(v)]) {
        planError_ = "rank " + std::to_string(q) + " asks this rank for a point it " +
                     "does not own; the pieces do not fit together";
        break;
      }
      sends_[std::size_t(q)].push_back(v);
    }
  }
}

void DistributedPiece::exchange(void* values, std::size_t valueBytes,
                                const std::string& localError, bool aborted) const {
  agree(controller_, localError, aborted);
  vtkMPIController* mpi = mpiOf(controller_);
  auto* bytes = static_cast<char*>(values);
  const std::size_t ranks = receives_.size();
  std::vector<std::vector<char>> in(ranks), out(ranks);
  std::vector<vtkMPICommunicator::Request> requests;
  requests.reserve(2 * ranks);
  for (std::size_t q = 0; q < ranks; ++q) {
    if (receives_[q].empty())
      continue;
    in[q].resize(receives_[q].size() * valueBytes);
    requests.emplace_back();
    mpi->NoBlockReceive(in[q].data(), checkedCount(in[q].size(), "bytes"), int(q),
                        kValueTag, requests.back());
  }
  for (std::size_t q = 0; q < ranks; ++q) {
    if (sends_[q].empty())
      continue;
    out[q].resize(sends_[q].size() * valueBytes);
    for (std::size_t k = 0; k < sends_[q].size(); ++k)
      std::memcpy(out[q].data() + k * valueBytes,
                  bytes + std::size_t(sends_[q][k]) * valueBytes, valueBytes);
    requests.emplace_back();
    mpi->NoBlockSend(out[q].data(), checkedCount(out[q].size(), "bytes"), int(q),
                     kValueTag, requests.back());
  }
  if (!requests.empty())
    mpi->WaitAll(int(requests.size()), requests.data());
  for (std::size_t q = 0; q < ranks; ++q)
    for (std::size_t k = 0; k < receives_[q].size(); ++k)
      std::memcpy(bytes + std::size_t(receives_[q][k]) * valueBytes,
                  in[q].data() + k * valueBytes, valueBytes);
}

} // namespace topogpu::vtk
