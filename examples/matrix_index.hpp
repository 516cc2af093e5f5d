// The table of a matrix folder's INDEX.md (the shared SuiteSparse matrices): which files it marks SPD.
// solver_study tries CG on those, and the solver tests solve them with CG.
#pragma once

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace larch {
namespace examples {

/// The files whose row of the INDEX.md table in `dir` says SPD "yes" (| file | rows | cols | nnz stored |
/// nnz full | symmetry | field | SPD | ...); empty where there is no index.
inline std::set<std::string> read_spd_list(const std::string& dir)
{
    std::set<std::string> spd;
    std::ifstream index{dir + "/INDEX.md"};
    std::string line;
    while (std::getline(index, line)) {
        std::vector<std::string> cells;
        std::stringstream row{line};
        std::string cell;
        while (std::getline(row, cell, '|')) {
            cell.erase(0, cell.find_first_not_of(' '));
            cell.erase(cell.find_last_not_of(' ') + 1);
            cells.push_back(cell);
        }
        if (cells.size() > 8 && cells[8] == "yes") {
            spd.insert(cells[1]);
        }
    }
    return spd;
}

}  // namespace examples
}  // namespace larch
