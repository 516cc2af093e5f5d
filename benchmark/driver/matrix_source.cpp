// Matrix sources of the benchmark: Matrix Market files and larch's generators (see matrix_source.hpp).
#include "benchmark/driver/matrix_source.hpp"

#include <fstream>

#include "benchmark/driver/generators.hpp"
#include "benchmark/driver/operation.hpp"
#include "larch/io/matrix_market.hpp"

namespace larch {
namespace benchmark {
namespace {

bool is_absolute(const std::string& path) { return !path.empty() && path.front() == '/'; }

std::string resolve(const std::string& file, const std::string& matrix_dir)
{
    return is_absolute(file) ? file : matrix_dir + "/" + file;
}

}  // namespace

void validate_matrix_source(const Fields& source)
{
    if (source.has("file") == source.has("generator")) {
        throw ConfigError(source.get_path() +
                          ": give exactly one of \"file\" (a Matrix Market file) or \"generator\"");
    }
    if (source.has("file")) {
        source.check_known({"file"});
        source.get_string("file");
        return;
    }
    validate_generator(source);
}

std::string matrix_source_name(const Fields& source)
{
    if (source.has("file")) {
        auto name = source.get_string("file");
        const auto slash = name.find_last_of('/');
        name = slash == std::string::npos ? name : name.substr(slash + 1);
        const auto dot = name.rfind(".mtx");
        return dot == std::string::npos ? name : name.substr(0, dot);
    }
    return generator_name(source);
}

template <typename V, typename I>
matrix_data<V, I> load_matrix(const Fields& source, const std::string& matrix_dir)
{
    if (source.has("file")) {
        const auto path = resolve(source.get_string("file"), matrix_dir);
        if (!std::ifstream{path}) {
            throw CaseSkipped("matrix file " + path +
                              " not found (point --matrix-dir or LARCH_MATRIX_DIR at the matrices)");
        }
        return io::read_matrix_market_data<V, I>(path);
    }
    return generate_matrix<V, I>(source);
}

template matrix_data<float, std::int32_t> load_matrix(const Fields&, const std::string&);
template matrix_data<double, std::int32_t> load_matrix(const Fields&, const std::string&);

}  // namespace benchmark
}  // namespace larch
