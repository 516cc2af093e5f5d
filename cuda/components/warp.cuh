// Portable (sub-)warp collectives over one CUDA/HIP shuffle shim: all-reduce (sum, max, max-abs with
// its index), broadcast, inclusive/exclusive and segmented scans. Every device kernel of larch uses these.
//
// A *sub-warp* is a group of `subwarp_size` consecutive threads (a power of two, 1 <= subwarp_size <= 32)
// of a one-dimensional thread block. A 32-lane CUDA warp holds 32 / subwarp_size sub-warps; a 64-lane AMD
// wavefront (gfx90a) holds 64 / subwarp_size, a 32-lane one (gfx1030) 32 / subwarp_size. Capping the
// size at 32 is what makes one source correct on all three: a sub-warp never spans two hardware warps.
//
// Rules for callers (the collectives rely on them; nothing checks them at run time):
// - The block size is a multiple of 32 (so no hardware warp is partly filled).
// - All threads of a sub-warp call a collective together (the same call, with the same template
//   arguments). Different sub-warps of one warp may diverge: on CUDA every shuffle names exactly its own
//   sub-warp's lanes in the member mask. A lane with nothing to contribute passes the identity (0 for
//   sum, the lowest value for max) or, for max_abs_with_index, `participates = false`.
// - Results of all_reduce* are identical, bit for bit, on every lane of the sub-warp: the butterfly
//   combines the same operands in a commutative way on each lane. Kernels may branch on them
//   (e.g. on the pivot row of Gauss-Jordan) without desynchronizing the sub-warp.
#pragma once

#include <cstdint>
#include <type_traits>

#include "core/base/two_sums.hpp"
#include "cuda/base/runtime.hpp"

namespace larch {
namespace kernels {
namespace LARCH_DEVICE_NAMESPACE {

/// The largest sub-warp the collectives support (see the file comment for why it is 32 on AMD too).
constexpr int max_subwarp_size = 32;

namespace warp {

/// Compile-time check of a sub-warp size; every collective instantiates it.
template <int subwarp_size>
struct SubwarpSize {
    static_assert(subwarp_size >= 1 && subwarp_size <= max_subwarp_size &&
                      (subwarp_size & (subwarp_size - 1)) == 0,
                  "a sub-warp size must be a power of two between 1 and 32");
    static constexpr int value = subwarp_size;
};

/// Linear index of this thread in its block (hardware warps are formed from it).
__device__ __forceinline__ int thread_id_in_block()
{
    return static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
}

/// The position of this thread in its sub-warp, 0 <= rank < subwarp_size.
template <int subwarp_size>
__device__ __forceinline__ int rank()
{
    return thread_id_in_block() & (SubwarpSize<subwarp_size>::value - 1);
}

/// Index of this thread's sub-warp in its block.
template <int subwarp_size>
__device__ __forceinline__ int subwarp_id_in_block()
{
    return thread_id_in_block() / SubwarpSize<subwarp_size>::value;
}

/// Global index of this thread's sub-warp in a one-dimensional grid.
template <int subwarp_size>
__device__ __forceinline__ std::int64_t global_subwarp_id()
{
    return (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) /
           SubwarpSize<subwarp_size>::value;
}

#if !defined(__HIP__)
/// CUDA member mask of this thread's sub-warp: exactly the lanes that take part in its shuffles.
template <int subwarp_size>
__device__ __forceinline__ unsigned member_mask()
{
    const unsigned lane = static_cast<unsigned>(thread_id_in_block()) & 31u;
    const unsigned first_lane = lane & ~static_cast<unsigned>(SubwarpSize<subwarp_size>::value - 1);
    return (0xffffffffu >> (32 - subwarp_size)) << first_lane;
}
#endif

/// Orders the shared-memory accesses of one sub-warp (a barrier of its lanes only).
template <int subwarp_size>
__device__ __forceinline__ void sync()
{
#if defined(__HIP__)
    // A wavefront runs in lockstep; the fences keep the compiler and the memory model from reordering.
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
#else
    __syncwarp(member_mask<subwarp_size>());
#endif
}

// The shuffle shim. HIP 5.2 has no *_sync intrinsics; its shuffles take the same `width`, which keeps
// every shuffle inside the sub-warp on a 64-lane wavefront too. Supported types: int, unsigned,
// (unsigned) long long, float, double.

/// The value `value` of the lane with rank `source_rank` of this sub-warp.
template <int subwarp_size, typename T>
__device__ __forceinline__ T shuffle(T value, int source_rank)
{
#if defined(__HIP__)
    return __shfl(value, source_rank, SubwarpSize<subwarp_size>::value);
#else
    return __shfl_sync(member_mask<subwarp_size>(), value, source_rank, subwarp_size);
#endif
}

/// The value of the lane whose rank is this rank XOR `lane_mask` (lane_mask < subwarp_size).
template <int subwarp_size, typename T>
__device__ __forceinline__ T shuffle_xor(T value, int lane_mask)
{
#if defined(__HIP__)
    return __shfl_xor(value, lane_mask, SubwarpSize<subwarp_size>::value);
#else
    return __shfl_xor_sync(member_mask<subwarp_size>(), value, lane_mask, subwarp_size);
#endif
}

/// Both sums of the lane whose rank is this rank XOR `lane_mask` (two shuffles: the hardware moves 32 or 64
/// bits at a time).
template <int subwarp_size, typename T>
__device__ __forceinline__ TwoSums<T> shuffle_xor(TwoSums<T> value, int lane_mask)
{
    return {shuffle_xor<subwarp_size>(value.first, lane_mask), shuffle_xor<subwarp_size>(value.second, lane_mask)};
}

/// The value of the lane `delta` ranks below (lanes with rank < delta get their own value back).
template <int subwarp_size, typename T>
__device__ __forceinline__ T shuffle_up(T value, unsigned delta)
{
#if defined(__HIP__)
    return __shfl_up(value, delta, SubwarpSize<subwarp_size>::value);
#else
    return __shfl_up_sync(member_mask<subwarp_size>(), value, delta, subwarp_size);
#endif
}

/// The value of the lane `delta` ranks above (the top `delta` lanes get their own value back).
template <int subwarp_size, typename T>
__device__ __forceinline__ T shuffle_down(T value, unsigned delta)
{
#if defined(__HIP__)
    return __shfl_down(value, delta, SubwarpSize<subwarp_size>::value);
#else
    return __shfl_down_sync(member_mask<subwarp_size>(), value, delta, subwarp_size);
#endif
}

/// Broadcast: every lane receives `value` of lane `source_rank` (e.g. the pivot row's entry).
template <int subwarp_size, typename T>
__device__ __forceinline__ T broadcast(T value, int source_rank)
{
    return shuffle<subwarp_size>(value, source_rank);
}

/// Binary operations for the collectives (any functor with `T operator()(T, T) const` works).
struct Sum {
    template <typename T>
    __device__ __forceinline__ T operator()(T a, T b) const
    {
        return a + b;
    }
};

/// The larger of a and b; NaN if either is NaN, so that every lane of a butterfly ends with the same
/// answer (with `a < b ? b : a` alone a lane holding NaN kept it and its partner kept its number: a
/// Gauss-Jordan item with one NaN entry then split its sub-warp at a barrier and hung).
struct Max {
    template <typename T>
    __device__ __forceinline__ T operator()(T a, T b) const
    {
        return (a < b || b != b) ? b : a;
    }
};

/// All-reduce with a commutative, associative `op` by an XOR butterfly (log2(subwarp_size) shuffles);
/// every lane returns the same value.
template <int subwarp_size, typename T, typename Op>
__device__ __forceinline__ T all_reduce(T value, Op op)
{
#pragma unroll
    for (int offset = SubwarpSize<subwarp_size>::value / 2; offset > 0; offset /= 2) {
        value = op(value, shuffle_xor<subwarp_size>(value, offset));
    }
    return value;
}

/// Sum over the sub-warp, returned on every lane.
template <int subwarp_size, typename T>
__device__ __forceinline__ T all_reduce_sum(T value)
{
    return all_reduce<subwarp_size>(value, Sum{});
}

/// Sum over each aligned group of `width` lanes of a 32-lane warp, `width` a power of two <= 32 chosen at
/// run time (the same on the whole warp, all of whose lanes must call it), returned on every lane of the
/// group: an XOR butterfly with offsets below `width` never leaves the group.
template <typename T>
__device__ __forceinline__ T all_reduce_sum_in_groups(T value, int width)
{
    for (int offset = width / 2; offset > 0; offset /= 2) {
        value += shuffle_xor<32>(value, offset);
    }
    return value;
}

/// Maximum over the sub-warp, returned on every lane.
template <int subwarp_size, typename T>
__device__ __forceinline__ T all_reduce_max(T value)
{
#if !defined(__HIP__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // A whole warp's unsigned maximum is one instruction from sm_80 on (redux.sync) instead of five
    // shuffles, each waited on: the Gauss-Jordan pivot search has it on its critical path at every step.
    if constexpr (subwarp_size == 32 && std::is_same<T, std::uint32_t>::value) {
        return __reduce_max_sync(0xffffffffu, value);
    }
#endif
    return all_reduce<subwarp_size>(value, Max{});
}

/// A value and the index it came from (the result of a pivot search).
template <typename T>
struct IndexedValue {
    T value;    ///< the entry itself, sign included
    int index;  ///< where it came from (a row or column index chosen by the caller)
};

/**
 * Pivot search: the entry of largest magnitude over the sub-warp and its index, on every lane.
 * Ties go to the smaller index; a NaN counts as larger than any number (so a NaN column is noticed, not
 * skipped); lanes with `participates == false` never win (if none participates, index is -1 and
 * value 0). Each lane offers one candidate; for more, reduce locally first with the same rules.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ IndexedValue<T> all_reduce_max_abs_with_index(T value, int index,
                                                                         bool participates = true)
{
    // Ordering key: -1 for non-participants, +inf-like for NaN, |value| otherwise; then smaller index.
    // It is a total order, so every lane ends with the same winner.
    T magnitude = participates ? (value < T{0} ? -value : value) : T{-1};
    bool is_nan = participates && !(magnitude == magnitude);
    if (!participates) {
        value = T{0};
        index = -1;
    }
#pragma unroll
    for (int offset = SubwarpSize<subwarp_size>::value / 2; offset > 0; offset /= 2) {
        const T other_value = shuffle_xor<subwarp_size>(value, offset);
        const T other_magnitude = shuffle_xor<subwarp_size>(magnitude, offset);
        const int other_index = shuffle_xor<subwarp_size>(index, offset);
        const bool other_is_nan = shuffle_xor<subwarp_size>(static_cast<int>(is_nan), offset) != 0;
        bool other_wins;
        if (is_nan != other_is_nan) {
            other_wins = other_is_nan;
        } else if (!is_nan && other_magnitude != magnitude) {
            other_wins = other_magnitude > magnitude;
        } else {
            // Equal magnitude (or both NaN): the smaller index wins; -1 (nobody) loses to anyone.
            other_wins = index < 0 || (other_index >= 0 && other_index < index);
        }
        if (other_wins) {
            value = other_value;
            magnitude = other_magnitude;
            index = other_index;
            is_nan = other_is_nan;
        }
    }
    return {value, index};
}

/// The smallest rank of this sub-warp whose `predicate` holds (-1 if none), on every lane: one ballot
/// (e.g. the tie-break of a pivot search after an all-reduce of the magnitudes).
template <int subwarp_size>
__device__ __forceinline__ int lowest_rank_where(bool predicate)
{
#if defined(__HIP__)
    const unsigned long long lanes = __ballot(predicate);
    const int first_lane = static_cast<int>(__lane_id()) & ~(SubwarpSize<subwarp_size>::value - 1);
#else
    const unsigned long long lanes = __ballot_sync(member_mask<subwarp_size>(), predicate);
    const int first_lane = thread_id_in_block() & 31 & ~(SubwarpSize<subwarp_size>::value - 1);
#endif
    const unsigned long long mine = (lanes >> first_lane) & (~0ull >> (64 - subwarp_size));
    return mine == 0 ? -1 : __ffsll(static_cast<long long>(mine)) - 1;
}

/// Inclusive scan with an associative `op` (Hillis-Steele over shuffle_up): lane r gets
/// op(v_0, ..., v_r).
template <int subwarp_size, typename T, typename Op>
__device__ __forceinline__ T inclusive_scan(T value, Op op)
{
    const int lane = rank<subwarp_size>();
#pragma unroll
    for (int offset = 1; offset < SubwarpSize<subwarp_size>::value; offset *= 2) {
        const T lower = shuffle_up<subwarp_size>(value, offset);
        if (lane >= offset) {
            value = op(lower, value);
        }
    }
    return value;
}

/// Inclusive prefix sum over the sub-warp.
template <int subwarp_size, typename T>
__device__ __forceinline__ T inclusive_scan_sum(T value)
{
    return inclusive_scan<subwarp_size>(value, Sum{});
}

/// Exclusive prefix sum: lane r gets v_0 + ... + v_{r-1} (0 on lane 0); `total` receives the sum of
/// all lanes on every lane (e.g. to advance an output position after a compaction step).
template <int subwarp_size, typename T>
__device__ __forceinline__ T exclusive_scan_sum(T value, T& total)
{
    const T inclusive = inclusive_scan_sum<subwarp_size>(value);
    total = shuffle<subwarp_size>(inclusive, SubwarpSize<subwarp_size>::value - 1);
    const T exclusive = shuffle_up<subwarp_size>(inclusive, 1);
    return rank<subwarp_size>() == 0 ? T{0} : exclusive;
}

/**
 * Segmented inclusive scan by key: lane r gets op over the lanes r' <= r whose key equals its own.
 * Lanes with equal keys must be contiguous (e.g. the sorted row indices of COO nonzeros): then a lane
 * `offset` below with the same key has only same-key lanes in between, so its partial result can be
 * combined as in a plain scan. The last lane of each run holds the run's total.
 */
template <int subwarp_size, typename T, typename Key, typename Op>
__device__ __forceinline__ T segmented_inclusive_scan(T value, Key key, Op op)
{
    const int lane = rank<subwarp_size>();
#pragma unroll
    for (int offset = 1; offset < SubwarpSize<subwarp_size>::value; offset *= 2) {
        const T lower = shuffle_up<subwarp_size>(value, offset);
        const Key lower_key = shuffle_up<subwarp_size>(key, offset);
        if (lane >= offset && lower_key == key) {
            value = op(lower, value);
        }
    }
    return value;
}

// ---- Added by the batched dense kernels: reduce-scatter of a register array. ----

/**
 * Reduce-scatter sum: every lane offers `values[0..subwarp_size)` (entry i belongs to "row" i, e.g. the
 * entries of one column of a small matrix); on return `values[0]` of the lane with rank r holds the sum
 * of entry r over all lanes (the other entries are clobbered). A recursive-halving butterfly: at each
 * level a lane keeps half of its live entries and trades the other half with its partner, so it costs
 * subwarp_size - 1 shuffles instead of the subwarp_size * log2(subwarp_size) of one all-reduce per entry.
 * Used for the row sums of infinity norms when a lane holds a column.
 */
template <int subwarp_size, typename T>
__device__ __forceinline__ void reduce_scatter_sum(T (&values)[subwarp_size])
{
    const int lane = rank<subwarp_size>();
#pragma unroll
    for (int offset = SubwarpSize<subwarp_size>::value / 2; offset > 0; offset /= 2) {
        const bool keep_upper = (lane & offset) != 0;
        // A constant trip count with a guard (rather than i < offset) lets both loops unroll fully, so
        // `values` stays in registers.
#pragma unroll
        for (int i = 0; i < SubwarpSize<subwarp_size>::value / 2; ++i) {
            if (i < offset) {
                const T send = keep_upper ? values[i] : values[i + offset];
                const T keep = keep_upper ? values[i + offset] : values[i];
                values[i] = keep + shuffle_xor<subwarp_size>(send, offset);
            }
        }
    }
}

}  // namespace warp
}  // namespace LARCH_DEVICE_NAMESPACE
}  // namespace kernels
}  // namespace larch
