// Progress lines and the final table, both read from the JSON case records the driver writes.
#include "benchmark/driver/report.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <vector>

namespace larch {
namespace benchmark {
namespace {

std::string milliseconds(const json& measurement)
{
    return format_number(1e3 * measurement.at("time_s").at("median").get<double>(), 4);
}

std::string percent(double fraction) { return format_number(100.0 * fraction, 3) + "%"; }

std::string case_name(const json& record)
{
    return record.at("operation").get<std::string>() + " " + record.at("executor").get<std::string>() +
           " " + record.at("precision").get<std::string>() + " " +
           record.value("label", record.at("config").dump());
}

}  // namespace

std::string format_number(double value, int significant)
{
    std::ostringstream text;
    text << std::setprecision(significant) << value;
    return text.str();
}

void print_progress(size_t index, size_t count, const json& record)
{
    std::cout << "[" << index + 1 << "/" << count << "] " << case_name(record) << ": ";
    const auto status = record.at("status").get<std::string>();
    if (status != "ok") {
        std::cout << status << ": " << record.value("message", "") << std::endl;
        return;
    }
    const auto& ours = record.at("larch");
    std::cout << milliseconds(ours) << " ms, " << format_number(ours.at("gflops"), 4)
              << " GFLOP/s, " << format_number(ours.at("gbs"), 4) << " GB/s ("
              << percent(ours.at("copy_bandwidth_fraction")) << " of copy)";
    if (record.contains("vendor")) {
        const auto& vendor = record.at("vendor");
        std::cout << "; " << vendor.at("name").get<std::string>() << " " << milliseconds(vendor)
                  << " ms, larch/vendor " << format_number(record.at("larch_over_vendor"), 3);
    }
    std::cout << "; error " << format_number(ours.at("error"), 2) << std::endl;
}

void print_table(const json& records)
{
    const std::vector<std::string> header{"#",        "operation", "exec",  "prec",
                                          "case",     "ms",        "GFLOP/s", "GB/s",
                                          "of copy",  "vendor ms", "larch/vendor", "error"};
    std::vector<std::vector<std::string>> rows;
    for (const auto& record : records) {
        std::vector<std::string> row{std::to_string(record.at("case").get<size_t>()),
                                     record.at("operation"), record.at("executor"),
                                     record.at("precision"),
                                     record.value("label", std::string{"-"})};
        if (record.at("status") == "ok") {
            const auto& ours = record.at("larch");
            row.insert(row.end(), {milliseconds(ours), format_number(ours.at("gflops"), 4),
                                   format_number(ours.at("gbs"), 4),
                                   percent(ours.at("copy_bandwidth_fraction"))});
            if (record.contains("vendor")) {
                row.insert(row.end(), {milliseconds(record.at("vendor")),
                                       format_number(record.at("larch_over_vendor"), 3)});
            } else {
                row.insert(row.end(), {"-", "-"});
            }
            row.push_back(format_number(ours.at("error"), 2));
        } else {
            row.push_back(record.at("status"));
        }
        rows.push_back(std::move(row));
    }
    std::vector<size_t> widths(header.size());
    for (size_t c = 0; c < header.size(); ++c) {
        widths[c] = header[c].size();
        for (const auto& row : rows) {
            if (c < row.size()) {
                widths[c] = std::max(widths[c], row[c].size());
            }
        }
    }
    auto print_row = [&](const std::vector<std::string>& row) {
        for (size_t c = 0; c < row.size(); ++c) {
            std::cout << (c ? "  " : "") << std::setw(static_cast<int>(widths[c]))
                      << (c == 4 ? std::left : std::right) << row[c] << std::right;
        }
        std::cout << '\n';
    };
    std::cout << '\n';
    print_row(header);
    for (const auto& row : rows) {
        print_row(row);
    }
    std::cout << std::flush;
}

}  // namespace benchmark
}  // namespace larch
