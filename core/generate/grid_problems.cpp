// Generators of matrices on structured grids: one stencil engine behind laplace_2d, laplace_3d,
// convection_diffusion_2d and tridiagonal, and its block version behind block_fem.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "core/generate/generator_support.hpp"
#include "larch/generate/problems.hpp"

namespace larch {
namespace generate {
namespace {

// A grid of nx x ny x nz nodes (nz = 1 in 2D, ny = nz = 1 in 1D), numbered x fastest.
struct Grid {
    size_type nx;
    size_type ny;
    size_type nz;

    size_type num_nodes(const char* generator) const
    {
        return detail::checked_product(generator, "grid nodes",
                                       detail::checked_product(generator, "grid nodes", nx, ny), nz);
    }
};

// One coupling of a node with the node at offset (dx, dy, dz).
struct StencilPoint {
    int dx;
    int dy;
    int dz;
    double value;
};

// Stencils list their points in increasing (dz, dy, dx) order, which is increasing column order, so
// the rows come out sorted without a sort.
std::vector<StencilPoint> laplace_stencil(size_type dimension)
{
    if (dimension == 1) {
        return {{-1, 0, 0, -1.0}, {0, 0, 0, 2.0}, {1, 0, 0, -1.0}};
    }
    if (dimension == 2) {
        return {{0, -1, 0, -1.0}, {-1, 0, 0, -1.0}, {0, 0, 0, 4.0}, {1, 0, 0, -1.0}, {0, 1, 0, -1.0}};
    }
    return {{0, 0, -1, -1.0}, {0, -1, 0, -1.0}, {-1, 0, 0, -1.0}, {0, 0, 0, 6.0},
            {1, 0, 0, -1.0},  {0, 1, 0, -1.0},  {0, 0, 1, -1.0}};
}

// Nodes along an axis of `n` nodes whose neighbour at offset `d` is inside too.
size_type overlap(size_type n, int d)
{
    const auto distance = static_cast<size_type>(d < 0 ? -d : d);
    return n > distance ? n - distance : 0;
}

// Number of (node, stencil point) pairs whose neighbour lies inside the grid: the stencil matrix's nnz.
size_type count_couplings(const Grid& grid, const std::vector<StencilPoint>& stencil)
{
    size_type count = 0;
    for (const auto& p : stencil) {
        count += overlap(grid.nx, p.dx) * overlap(grid.ny, p.dy) * overlap(grid.nz, p.dz);
    }
    return count;
}

// Calls visit(node, neighbour_node, stencil_point) for every point of the stencil around every node, node
// by node, in increasing neighbour order.
template <typename Visit>
void for_each_coupling(const Grid& grid, const std::vector<StencilPoint>& stencil, Visit&& visit)
{
    // Per stencil point: the node range [low, high) along each axis whose neighbour is inside the grid,
    // so the hot loop only compares (this matters for the 70 million couplings of laplace_3d(216)).
    struct Reach {
        size_type low[3];
        size_type high[3];
        std::ptrdiff_t node_offset;
    };
    const size_type extent[3] = {grid.nx, grid.ny, grid.nz};
    std::vector<Reach> reaches;
    for (const auto& p : stencil) {
        const int d[3] = {p.dx, p.dy, p.dz};
        Reach reach{};
        for (int axis = 0; axis < 3; ++axis) {
            reach.low[axis] = d[axis] < 0 ? static_cast<size_type>(-d[axis]) : 0;
            reach.high[axis] =
                extent[axis] - std::min(extent[axis], static_cast<size_type>(std::max(d[axis], 0)));
        }
        reach.node_offset =
            (static_cast<std::ptrdiff_t>(p.dz) * static_cast<std::ptrdiff_t>(grid.ny) + p.dy) *
                static_cast<std::ptrdiff_t>(grid.nx) +
            p.dx;
        reaches.push_back(reach);
    }
    size_type node = 0;
    for (size_type z = 0; z < grid.nz; ++z) {
        for (size_type y = 0; y < grid.ny; ++y) {
            for (size_type x = 0; x < grid.nx; ++x, ++node) {
                for (size_type s = 0; s < stencil.size(); ++s) {
                    const auto& r = reaches[s];
                    if (x >= r.low[0] && x < r.high[0] && y >= r.low[1] && y < r.high[1] && z >= r.low[2] &&
                        z < r.high[2]) {
                        visit(node, static_cast<size_type>(static_cast<std::ptrdiff_t>(node) + r.node_offset),
                              stencil[s]);
                    }
                }
            }
        }
    }
}

template <typename V, typename I>
matrix_data<V, I> stencil_matrix(const char* generator, const Grid& grid,
                                 const std::vector<StencilPoint>& stencil)
{
    const auto rows = grid.num_nodes(generator);
    const auto nonzeros = count_couplings(grid, stencil);
    detail::ensure_fits_index_type<I>(generator, rows, nonzeros);
    matrix_data<V, I> data{dim2{rows}};
    data.entries.reserve(nonzeros);
    for_each_coupling(grid, stencil, [&](size_type node, size_type neighbour, const StencilPoint& p) {
        data.entries.push_back({static_cast<I>(node), static_cast<I>(neighbour), static_cast<V>(p.value)});
    });
    return data;
}

}  // namespace

template <typename V, typename I>
matrix_data<V, I> laplace_2d(size_type n)
{
    detail::ensure_positive("laplace_2d", "the grid size n", n);
    return stencil_matrix<V, I>("laplace_2d", Grid{n, n, 1}, laplace_stencil(2));
}

template <typename V, typename I>
matrix_data<V, I> laplace_3d(size_type n)
{
    detail::ensure_positive("laplace_3d", "the grid size n", n);
    return stencil_matrix<V, I>("laplace_3d", Grid{n, n, n}, laplace_stencil(3));
}

template <typename V, typename I>
matrix_data<V, I> tridiagonal(size_type n)
{
    detail::ensure_positive("tridiagonal", "the size n", n);
    return stencil_matrix<V, I>("tridiagonal", Grid{n, 1, 1}, laplace_stencil(1));
}

template <typename V, typename I>
matrix_data<V, I> convection_diffusion_2d(size_type n, double convection)
{
    detail::ensure_positive("convection_diffusion_2d", "the grid size n", n);
    LARCH_ENSURE(
        std::isfinite(convection), BadInput,
        "convection_diffusion_2d: the convection strength must be finite, got " + std::to_string(convection));
    // Central differences of c (u_east - u_west) / 2 and c (u_north - u_south) / 2 added to the Laplacian.
    const double upwind = -1.0 - convection / 2;
    const double downwind = -1.0 + convection / 2;
    const std::vector<StencilPoint> stencil{
        {0, -1, 0, upwind}, {-1, 0, 0, upwind}, {0, 0, 0, 4.0}, {1, 0, 0, downwind}, {0, 1, 0, downwind}};
    return stencil_matrix<V, I>("convection_diffusion_2d", Grid{n, n, 1}, stencil);
}

template <typename V, typename I>
matrix_data<V, I> block_fem(size_type n, size_type dimension, size_type block_size, std::uint64_t seed)
{
    const char* generator = "block_fem";
    detail::ensure_positive(generator, "the grid size n", n);
    detail::ensure_positive(generator, "the block size", block_size);
    LARCH_ENSURE(dimension == 2 || dimension == 3, BadInput,
                 "block_fem: the dimension must be 2 or 3, got " + std::to_string(dimension));
    const Grid grid{n, n, dimension == 3 ? n : 1};
    const auto stencil = laplace_stencil(dimension);
    const auto k = block_size;
    const auto rows = detail::checked_product(generator, "rows", grid.num_nodes(generator), k);
    const auto nonzeros = detail::checked_product(generator, "nonzeros", count_couplings(grid, stencil),
                                                  detail::checked_product(generator, "nonzeros", k, k));
    detail::ensure_fits_index_type<I>(generator, rows, nonzeros);
    // Magnitude of the coupling between unknowns r and c: a hash of the unordered pair, so symmetric.
    auto coupling = [seed](size_type r, size_type c) {
        return 0.5 + 0.5 * detail::SplitMix64::hash_uniform(seed, std::min(r, c), std::max(r, c));
    };
    matrix_data<V, I> data{dim2{rows}};
    data.entries.reserve(nonzeros);
    std::vector<size_type> neighbours;
    size_type current_node = 0;
    // for_each_coupling visits a node's neighbours in order; emit the node's k rows once all are known.
    auto emit_node_rows = [&] {
        for (size_type a = 0; a < k; ++a) {
            const auto row = current_node * k + a;
            double diagonal = 1.0;
            for (const auto neighbour : neighbours) {
                for (size_type b = 0; b < k; ++b) {
                    diagonal += neighbour * k + b == row ? 0.0 : coupling(row, neighbour * k + b);
                }
            }
            for (const auto neighbour : neighbours) {
                for (size_type b = 0; b < k; ++b) {
                    const auto col = neighbour * k + b;
                    const double value = col == row ? diagonal : -coupling(row, col);
                    data.entries.push_back({static_cast<I>(row), static_cast<I>(col), static_cast<V>(value)});
                }
            }
        }
    };
    for_each_coupling(grid, stencil, [&](size_type node, size_type neighbour, const StencilPoint&) {
        if (node != current_node) {
            emit_node_rows();
            neighbours.clear();
            current_node = node;
        }
        neighbours.push_back(neighbour);
    });
    emit_node_rows();
    return data;
}

#define LARCH_INSTANTIATE_GRID_PROBLEMS(V, I)                                    \
    template matrix_data<V, I> laplace_2d<V, I>(size_type);                      \
    template matrix_data<V, I> laplace_3d<V, I>(size_type);                      \
    template matrix_data<V, I> tridiagonal<V, I>(size_type);                     \
    template matrix_data<V, I> convection_diffusion_2d<V, I>(size_type, double); \
    template matrix_data<V, I> block_fem<V, I>(size_type, size_type, size_type, std::uint64_t)

LARCH_INSTANTIATE_GRID_PROBLEMS(float, std::int32_t);
LARCH_INSTANTIATE_GRID_PROBLEMS(float, std::int64_t);
LARCH_INSTANTIATE_GRID_PROBLEMS(double, std::int32_t);
LARCH_INSTANTIATE_GRID_PROBLEMS(double, std::int64_t);
#undef LARCH_INSTANTIATE_GRID_PROBLEMS

}  // namespace generate
}  // namespace larch
