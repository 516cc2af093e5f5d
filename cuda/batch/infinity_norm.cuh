// The infinity norm of one item read by a team of lanes as a stream (used by
// batch_dense_kernels.cu): 16-byte loads by consecutive lanes where rows are whole vectors.
#pragma once

#include <cstdint>

#include "cuda/batch/register_batch.cuh"
#include "cuda/components/warp.cuh"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {
namespace batch_dense {

/// Row steps whose loads a lane has in flight at once in team_infinity_norm.
constexpr int norm_steps_in_flight = 4;

/// `width` consecutive values, aligned so that one load moves all of them.
template <int width, typename T>
struct alignas(sizeof(T) * width) ValueVector {
    T values[width];
};

template <int width, typename T>
__device__ __forceinline__ T magnitude_sum(const ValueVector<width, T>& vector)
{
    T sum{};
#pragma unroll
    for (int j = 0; j < width; ++j) {
        sum += magnitude(vector.values[j]);
    }
    return sum;
}

/**
 * ||A||_inf of the rows x cols item at `item` (row-major, cols a multiple of `width`, aligned for loads
 * of `width` values), on all `team_size` lanes of the team. The team is made of groups of `row_lanes`
 * lanes that each take one row of a step of consecutive rows, so that the team reads a contiguous
 * stretch of the item. Lane j of a group adds the magnitudes of the vectors j, j + row_lanes, ... of
 * `width` values of its row, the loads of several steps in flight; each group then sums its row and keeps
 * the running maximum, and the team takes the maximum last.
 */
template <int team_size, int row_lanes, int width, typename T>
__device__ __forceinline__ T team_infinity_norm(const T* item, int rows, int cols)
{
    using Vector = ValueVector<width, T>;
    constexpr int rows_per_step = team_size / row_lanes;
    constexpr int steps_in_flight = norm_steps_in_flight;
    const int vectors_per_row = cols / width;
    const int first_vector = warp::rank<row_lanes>();
    const int row_in_step = warp::rank<team_size>() / row_lanes;
    const auto* vectors = reinterpret_cast<const Vector*>(item);
    T norm{};
    for (int first_row = 0; first_row < rows; first_row += rows_per_step * steps_in_flight) {
        T sums[steps_in_flight];
#pragma unroll
        for (int i = 0; i < steps_in_flight; ++i) {
            const int row = first_row + i * rows_per_step + row_in_step;
            sums[i] = row < rows && first_vector < vectors_per_row
                          ? magnitude_sum(vectors[std::int64_t{row} * vectors_per_row + first_vector])
                          : T{};
        }
        for (int v = first_vector + row_lanes; v < vectors_per_row; v += row_lanes) {
#pragma unroll
            for (int i = 0; i < steps_in_flight; ++i) {
                const int row = first_row + i * rows_per_step + row_in_step;
                if (row < rows) {
                    sums[i] += magnitude_sum(vectors[std::int64_t{row} * vectors_per_row + v]);
                }
            }
        }
#pragma unroll
        for (int i = 0; i < steps_in_flight; ++i) {
            const T row_sum = warp::all_reduce_sum<row_lanes>(sums[i]);
            // warp::Max keeps a NaN row sum (a plain comparison would drop it and report a finite norm).
            norm = warp::Max{}(norm, row_sum);
        }
    }
    return warp::all_reduce_max<team_size>(norm);
}

}  // namespace batch_dense
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
