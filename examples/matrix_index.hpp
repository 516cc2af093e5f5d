// Matrix folders as the examples read them: which files are Matrix Market files, and the table of a folder's
// INDEX.md (the shared SuiteSparse matrices): which files it lists and which it marks SPD. solver_study tries CG
// on those, and the solver tests solve them with CG.
#pragma once

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace larch {
namespace examples {

/// A Matrix Market file by its name: *.mtx, in any letter case.
inline bool is_matrix_market_file_name(const std::string& name)
{
    if (name.size() <= 4) {
        return false;
    }
    std::string extension = name.substr(name.size() - 4);
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return extension == ".mtx";
}

/// Every file the INDEX.md table in `dir` lists (| file | rows | cols | nnz stored | nnz full | symmetry | field |
/// SPD | ...), with whether its SPD cell says "yes"; empty where there is no index.
inline std::map<std::string, bool> read_spd_index(const std::string& dir)
{
    std::map<std::string, bool> listed;
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
        if (cells.size() > 8 && is_matrix_market_file_name(cells[1])) {
            listed[cells[1]] = cells[8] == "yes";
        }
    }
    return listed;
}

/// The files whose row of the INDEX.md table in `dir` says SPD "yes"; empty where there is no index.
inline std::set<std::string> read_spd_list(const std::string& dir)
{
    std::set<std::string> spd;
    for (const auto& [file, is_spd] : read_spd_index(dir)) {
        if (is_spd) {
            spd.insert(file);
        }
    }
    return spd;
}

}  // namespace examples
}  // namespace larch
