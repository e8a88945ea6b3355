// loaderlab_bench_jpeg_scale: where a JPEG's decode time goes, on one thread, files
// already in memory. For every JPEG of a folder it times LoaderLab's own decoder
// (decodeJpeg) at full size and at the DCT scales 1/2, 1/4 and 1/8, each for the
// whole image and for the region the eval transform reads (Resize 256,
// CenterCrop 224). At 1/8 the inverse DCT is a single coefficient per block, so
// that figure is close to the cost that no scale removes: reading the headers and
// entropy-decoding every coefficient. ROUNDS rounds, the order of the measurements
// reversed every other round; prints ms per image as min / median / max, with the
// commit, the CPU and the load. Not a test: nothing here asserts on a time.
//
//   loaderlab_bench_jpeg_scale FOLDER [ROUNDS]

#include "bench_machine.h"
#include "core/config/dataset_config.h"
#include "core/image/image_decoder.h"
#include "core/image/image_folder_dataset.h"
#include "core/image/image_transforms.h"
#include "core/image/jpeg_decoder.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

using namespace loaderlab;

namespace {

struct Measurement
{
    int scaleEighths;
    bool region;
    std::vector<double> msPerImage; // one per round
};

double threadCpuSeconds()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FOLDER [ROUNDS]\n", argv[0]);
        return 2;
    }
    const int rounds = argc > 2 ? std::max(1, std::atoi(argv[2])) : 5;
    std::vector<std::vector<std::uint8_t>> files;
    std::vector<cv::Size> sizes;
    try {
        // The folder as the image-folder dataset lists it; its JPEGs, read once.
        DatasetConfig config;
        config.kind = DatasetKind::ImageFolder;
        config.path = argv[1];
        const DecodeLimits limits;
        const ImageFolderDataset folder(config);
        for (const ImageEntry &entry : folder.entries()) {
            std::vector<std::uint8_t> bytes;
            readImageFile(entry.path, limits.maxFileBytes, bytes);
            const ImageHeaderInfo header = parseImageHeader(bytes, entry.path);
            if (header.format != ImageFormat::Jpeg)
                continue;
            sizes.emplace_back(header.width, header.height);
            files.push_back(std::move(bytes));
        }
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    if (files.empty()) {
        std::fprintf(stderr, "%s: no JPEG files\n", argv[1]);
        return 1;
    }
    std::printf("commit:  %s\nmachine: %s\nfolder:  %s (%zu JPEGs)\nload average at start: %s\n\n",
                benchmachine::commandOutput("git -C " LOADERLAB_SOURCE_DIR
                                            " describe --always --dirty --abbrev=12")
                    .c_str(),
                benchmachine::cpuModel().c_str(), argv[1], files.size(),
                benchmachine::loadAverage().c_str());

    std::vector<Measurement> measurements;
    for (int scale : {8, 4, 2, 1})
        for (bool region : {false, true})
            measurements.push_back({scale, region, {}});

    ImageWindow window;
    std::vector<std::string> warnings;
    for (int round = 0; round < rounds; ++round) {
        std::vector<Measurement *> order;
        for (Measurement &m : measurements)
            order.push_back(&m);
        if (round % 2)
            std::reverse(order.begin(), order.end());
        for (Measurement *m : order) {
            const double start = threadCpuSeconds();
            for (std::size_t i = 0; i < files.size(); ++i) {
                JpegDecodeRequest request{m->scaleEighths, {}};
                if (m->region) {
                    const cv::Size scaled(jpegScaledSize(sizes[i].width, m->scaleEighths),
                                          jpegScaledSize(sizes[i].height, m->scaleEighths));
                    request.region = resizeCenterCropSourceRect(scaled, 256, 224);
                }
                warnings.clear();
                decodeJpeg(files[i], "bench", request, window, warnings);
            }
            m->msPerImage.push_back((threadCpuSeconds() - start) * 1e3
                                    / static_cast<double>(files.size()));
        }
        std::printf("round %d done; load %s\n", round + 1, benchmachine::loadAverage().c_str());
    }

    std::printf("\nms of CPU per image, one thread     min    median       max\n");
    for (const Measurement &m : measurements) {
        const auto [lo, hi] = std::minmax_element(m.msPerImage.begin(), m.msPerImage.end());
        std::printf("scale %d/8, %-20s %9.3f %9.3f %9.3f\n", m.scaleEighths,
                    m.region ? "eval crop region" : "whole image", *lo, median(m.msPerImage), *hi);
    }
    std::printf("load average at end: %s\n", benchmachine::loadAverage().c_str());
    return 0;
}
