// Generators behind `loaderlab make-dataset`. The JPEG folder imitates Imagenette
// closely enough that decode and resize costs are realistic: similar image sizes,
// aspect ratios and compressed sizes (~50-150 KB at quality 90), with smooth
// regions, edges and fine texture. Every image depends only on (seed, class,
// image), so the output is byte-identical whatever the thread interleaving.

#include "core/tools/imagenette_generator.h"

#include "core/dataset/tensor_file_format.h"
#include "core/system/memory_budget.h"
#include "core/system/splitmix64.h"
#include "core/tools/tensor_file_limits.h"

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <vector>

namespace fs = std::filesystem;

namespace loaderlab {

namespace {

// Imagenette's ten WordNet ids, so the folder looks like the real thing.
constexpr std::array<const char *, 10> kImagenetteClasses = {
    "n01440764", "n02102040", "n02979186", "n03000684", "n03028079",
    "n03394916", "n03417042", "n03425413", "n03445777", "n03888605",
};

constexpr int kGeneratorThreads = 2;

// Detail knobs, tuned together so that quality-90 JPEGs of the default spec come
// out at 51-168 KB, mean ~99 KB (Imagenette: ~110 KB). Grain amplitudes are in
// grey levels (coarse: uniform +-A; fine: standard deviation).
constexpr int kMinClutter = 40;
constexpr int kMaxClutter = 120;
constexpr int kMinStrokes = 600;
constexpr int kMaxStrokes = 1600;
constexpr int kGrainCell = 2; // grain blotch size in pixels
constexpr double kCoarseGrain[2] = {18.0, 36.0};
constexpr double kFineGrain[2] = {12.0, 17.0};

std::uint64_t mixSeed(std::uint64_t seed, std::uint64_t a, std::uint64_t b)
{
    return splitmix64(splitmix64(splitmix64(seed) ^ a) ^ (b * 0xD1B54A32D192ED03ULL));
}

std::string className(int index)
{
    if (index < static_cast<int>(kImagenetteClasses.size()))
        return kImagenetteClasses[static_cast<std::size_t>(index)];
    // Same 8-digit form as a WordNet id, sorting after the real ones.
    return "n" + std::to_string(90000000 + index);
}

std::string fileName(const std::string &cls, int image)
{
    std::string number = std::to_string(image + 1);
    if (number.size() < 4)
        number.insert(0, 4 - number.size(), '0');
    return cls + "_" + number + ".JPEG";
}

double uniform(std::mt19937_64 &rng, double lo, double hi)
{
    return std::uniform_real_distribution<double>(lo, hi)(rng);
}

int uniformInt(std::mt19937_64 &rng, int lo, int hi)
{
    return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// Five base colours per class, so images of a class share a look the way real
// classes do (sky behind parachutes, green behind golf balls).
std::array<cv::Vec3f, 5> classPalette(std::uint64_t seed, int cls)
{
    std::mt19937_64 rng(mixSeed(seed, 0xC1A55ULL, static_cast<std::uint64_t>(cls)));
    std::array<cv::Vec3f, 5> palette;
    for (auto &colour : palette)
        colour = cv::Vec3f(static_cast<float>(uniform(rng, 20, 235)),
                           static_cast<float>(uniform(rng, 20, 235)),
                           static_cast<float>(uniform(rng, 20, 235)));
    return palette;
}

cv::Vec3f jitter(std::mt19937_64 &rng, const cv::Vec3f &colour, double amount)
{
    cv::Vec3f out;
    for (int c = 0; c < 3; ++c)
        out[c] = std::clamp(colour[c] + static_cast<float>(uniform(rng, -amount, amount)), 0.0f,
                            255.0f);
    return out;
}

cv::Scalar toScalar(const cv::Vec3f &colour)
{
    return cv::Scalar(colour[0], colour[1], colour[2]);
}

// Sky-like gradient above a wavy horizon, ground-like gradient below it.
cv::Mat renderBackground(std::mt19937_64 &rng, const std::array<cv::Vec3f, 5> &palette,
                         cv::Size size)
{
    const cv::Vec3f skyTop = jitter(rng, palette[0], 40);
    const cv::Vec3f skyBottom = jitter(rng, palette[1], 40);
    const cv::Vec3f groundTop = jitter(rng, palette[2], 40);
    const cv::Vec3f groundBottom = jitter(rng, palette[3], 40);

    const int steps = uniformInt(rng, 4, 10);
    const double baseY = uniform(rng, 0.3, 0.75) * size.height;
    std::vector<double> knots(static_cast<std::size_t>(steps) + 1);
    for (double &knot : knots)
        knot = baseY + uniform(rng, -0.08, 0.08) * size.height;
    std::vector<int> horizon(static_cast<std::size_t>(size.width));
    for (int x = 0; x < size.width; ++x) {
        const double pos = static_cast<double>(x) * steps / std::max(1, size.width - 1);
        const int k = std::min(static_cast<int>(pos), steps - 1);
        const double t = pos - k;
        const auto ks = static_cast<std::size_t>(k);
        horizon[static_cast<std::size_t>(x)] = static_cast<int>(knots[ks] * (1 - t)
                                                                + knots[ks + 1] * t);
    }

    cv::Mat image(size, CV_8UC3);
    const float span = static_cast<float>(std::max(1, size.height - 1));
    for (int y = 0; y < size.height; ++y) {
        const float t = static_cast<float>(y) / span;
        const cv::Vec3b sky = skyTop * (1.0f - t) + skyBottom * t;
        const cv::Vec3b ground = groundTop * (1.0f - t) + groundBottom * t;
        auto *row = image.ptr<cv::Vec3b>(y);
        for (int x = 0; x < size.width; ++x)
            row[x] = y < horizon[static_cast<std::size_t>(x)] ? sky : ground;
    }
    return image;
}

// One filled ellipse or polygon, blended with `opacity`. Only the shape's
// bounding box is touched, which keeps many small shapes cheap.
void drawShape(cv::Mat &image, std::mt19937_64 &rng, const cv::Vec3f &colour, double radius)
{
    const cv::Point centre(uniformInt(rng, 0, image.cols - 1), uniformInt(rng, 0, image.rows - 1));
    const int reach = static_cast<int>(radius) + 2;
    const cv::Rect box = cv::Rect(centre.x - reach, centre.y - reach, 2 * reach + 1, 2 * reach + 1)
                         & cv::Rect(0, 0, image.cols, image.rows);
    cv::Mat target = image(box);
    cv::Mat layer = target.clone();
    const cv::Point local = centre - box.tl();
    if (uniformInt(rng, 0, 1) == 0) {
        const cv::Size axes(std::max(1, static_cast<int>(radius)),
                            std::max(1, static_cast<int>(radius * uniform(rng, 0.3, 1.0))));
        cv::ellipse(layer, local, axes, uniform(rng, 0, 180), 0, 360, toScalar(colour), cv::FILLED,
                    cv::LINE_AA);
    } else {
        std::vector<cv::Point> polygon;
        const int corners = uniformInt(rng, 3, 8);
        for (int k = 0; k < corners; ++k) {
            const double angle = (k + uniform(rng, -0.3, 0.3)) * 2.0 * CV_PI / corners;
            const double r = radius * uniform(rng, 0.5, 1.0);
            polygon.emplace_back(local.x + static_cast<int>(r * std::cos(angle)),
                                 local.y + static_cast<int>(r * std::sin(angle)));
        }
        cv::fillPoly(layer, std::vector<std::vector<cv::Point>>{polygon}, toScalar(colour),
                     cv::LINE_AA);
    }
    const double opacity = uniform(rng, 0.6, 1.0);
    cv::addWeighted(layer, opacity, target, 1.0 - opacity, 0.0, target);
}

// A few large objects, then clutter (leaves, pebbles, fabric patterns) that gives
// the picture the edge density of a photograph.
void drawShapes(cv::Mat &image, std::mt19937_64 &rng, const std::array<cv::Vec3f, 5> &palette)
{
    const double shortSide = std::min(image.rows, image.cols);
    const int large = uniformInt(rng, 3, 8);
    for (int i = 0; i < large; ++i) {
        const auto &base = palette[static_cast<std::size_t>(uniformInt(rng, 0, 4))];
        drawShape(image, rng, jitter(rng, base, 50), uniform(rng, 0.08, 0.35) * shortSide);
    }
    const int small = uniformInt(rng, kMinClutter, kMaxClutter);
    for (int i = 0; i < small; ++i) {
        const auto &base = palette[static_cast<std::size_t>(uniformInt(rng, 0, 4))];
        drawShape(image, rng, jitter(rng, base, 70), uniform(rng, 0.01, 0.05) * shortSide);
    }
}

// Short thin strokes drawn after the blur, in a lighter or darker shade of what
// is under them and mostly in one direction: the crisp fine detail of grass, fur
// or hair, which is where a photograph's JPEG bytes go.
void drawStrokes(cv::Mat &image, std::mt19937_64 &rng)
{
    const double shortSide = std::min(image.rows, image.cols);
    const double direction = uniform(rng, 0, CV_PI);
    const int count = uniformInt(rng, kMinStrokes, kMaxStrokes);
    for (int i = 0; i < count; ++i) {
        const cv::Point from(uniformInt(rng, 0, image.cols - 1),
                             uniformInt(rng, 0, image.rows - 1));
        const double length = uniform(rng, 0.02, 0.08) * shortSide;
        const double angle = direction + uniform(rng, -0.5, 0.5);
        const cv::Point to(from.x + static_cast<int>(length * std::cos(angle)),
                           from.y + static_cast<int>(length * std::sin(angle)));
        const cv::Vec3b under = image.at<cv::Vec3b>(from);
        const double shade = uniform(rng, -60, 60);
        const cv::Scalar colour(under[0] + shade, under[1] + shade, under[2] + shade);
        cv::line(image, from, to, colour, 1, cv::LINE_AA);
    }
}

// A small random field scaled up to `size`: smooth variation whose scale is set
// by the grid size. Stored as 8-bit values around kFieldBias, because OpenCV's
// 8-bit resize is many times faster than its 16-bit one.
constexpr int kFieldBias = 128;

cv::Mat randomField(std::mt19937_64 &rng, cv::Size grid, int channels, double amplitude,
                    cv::Size size, int interpolation)
{
    cv::Mat field(grid, CV_8UC(channels));
    const int limit = std::min(static_cast<int>(amplitude), kFieldBias - 1);
    std::uniform_int_distribution<int> value(kFieldBias - limit, kFieldBias + limit);
    for (int y = 0; y < grid.height; ++y) {
        auto *row = field.ptr<uchar>(y);
        for (int x = 0; x < grid.width * channels; ++x)
            row[x] = static_cast<uchar>(value(rng));
    }
    cv::Mat full;
    cv::resize(field, full, size, 0, 0, interpolation);
    return full;
}

// Broad uneven lighting, blotchy mid-frequency grain (foliage, fabric) and
// per-pixel sensor noise, in one pass. The grain is what makes the JPEGs as big
// as photographs'; it is mostly luminance, as in photographs, which JPEG keeps at
// full resolution while it subsamples colour.
void addLightingAndTexture(cv::Mat &image, std::mt19937_64 &rng)
{
    const cv::Size size = image.size();
    const cv::Size lightingGrid(uniformInt(rng, 2, 5), uniformInt(rng, 2, 5));
    const cv::Mat lighting = randomField(rng, lightingGrid, 3, 30, size, cv::INTER_CUBIC);
    const cv::Size grainGrid(size.width / kGrainCell + 1, size.height / kGrainCell + 1);
    const cv::Mat grain = randomField(
        rng, grainGrid, 1, uniform(rng, kCoarseGrain[0], kCoarseGrain[1]), size, cv::INTER_LINEAR);
    // A sum of four random bytes is nearly normal with sd 147.8; scale it to the
    // wanted sd in 1/256 steps.
    const double lumaSd = uniform(rng, kFineGrain[0], kFineGrain[1]);
    const int lumaScale = static_cast<int>(lumaSd * 256 / 147.8);
    std::uint64_t state = rng() | 1;
    for (int y = 0; y < size.height; ++y) {
        auto *row = image.ptr<uchar>(y);
        const auto *light = lighting.ptr<uchar>(y);
        const auto *blotch = grain.ptr<uchar>(y);
        for (int x = 0; x < size.width; ++x) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            const int sum = static_cast<int>((state & 0xFF) + ((state >> 8) & 0xFF)
                                             + ((state >> 16) & 0xFF) + ((state >> 24) & 0xFF));
            const int luma = blotch[x] - kFieldBias + ((sum - 510) * lumaScale) / 256;
            for (int c = 0; c < 3; ++c) {
                // Weak independent colour noise: the top bytes, centred, /16.
                const int chroma = (static_cast<int>((state >> (32 + 8 * c)) & 0xFF) - 128) / 16;
                uchar &value = row[3 * x + c];
                const int offset = light[3 * x + c] - kFieldBias + luma + chroma;
                value = cv::saturate_cast<uchar>(value + offset);
            }
        }
    }
}

std::vector<uchar> renderJpeg(const ImageFolderSpec &spec, int cls, int index, const fs::path &path)
{
    std::mt19937_64 rng(mixSeed(spec.seed, static_cast<std::uint64_t>(cls) + 1,
                                static_cast<std::uint64_t>(index) + 1));
    const int shortSide = uniformInt(rng, spec.minShortSide, spec.maxShortSide);
    const double ratio = uniform(rng, 1.0, 4.0 / 3.0);
    const int longSide = std::clamp(static_cast<int>(shortSide * ratio), shortSide,
                                    shortSide * 4 / 3);
    const bool landscape = uniformInt(rng, 0, 3) != 0; // most photos are landscape
    const cv::Size size = landscape ? cv::Size(longSide, shortSide) : cv::Size(shortSide, longSide);

    const auto palette = classPalette(spec.seed, cls);
    cv::Mat image = renderBackground(rng, palette, size);
    drawShapes(image, rng, palette);
    const double sigma = uniform(rng, 0.6, 1.6) * shortSide / 300.0;
    cv::GaussianBlur(image, image, cv::Size(0, 0), std::max(sigma, 0.3));
    drawStrokes(image, rng);
    addLightingAndTexture(image, rng);

    std::vector<uchar> bytes;
    if (!cv::imencode(".jpg", image, bytes, {cv::IMWRITE_JPEG_QUALITY, spec.jpegQuality}))
        throw std::runtime_error(path.string() + ": JPEG encoding failed");
    return bytes;
}

void writeFile(const fs::path &path, const void *data, std::size_t size)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(static_cast<const char *>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out)
        throw std::runtime_error(path.string() + ": cannot write file");
}

void validateSpec(const std::string &dir, const ImageFolderSpec &spec)
{
    // Bad settings: std::invalid_argument, which the CLI reports as a usage error.
    auto fail = [&](const std::string &reason) {
        throw std::invalid_argument(dir + ": " + reason);
    };
    if (spec.classes < 1)
        fail("classes must be at least 1");
    if (spec.imagesPerClass < 1)
        fail("images per class must be at least 1");
    if (spec.minShortSide < 8 || spec.maxShortSide < spec.minShortSide)
        fail("short side range must satisfy 8 <= min <= max");
    if (spec.maxShortSide > 8192)
        fail("short side must not exceed 8192");
    if (spec.jpegQuality < 1 || spec.jpegQuality > 100)
        fail("JPEG quality must be in 1..100");
}

// Calls `progress` under a lock so callers never see it from two threads at once.
class SerialProgress
{
public:
    SerialProgress(const ProgressCallback &callback, std::int64_t total)
        : m_callback(callback)
        , m_total(total)
    {
    }

    void step()
    {
        std::lock_guard lock(m_mutex);
        ++m_done;
        if (m_callback)
            m_callback(m_done, m_total);
    }

private:
    const ProgressCallback &m_callback;
    std::int64_t m_total;
    std::int64_t m_done = 0;
    std::mutex m_mutex;
};

} // namespace

void generateImageFolder(const std::string &dir, const ImageFolderSpec &spec,
                         const ProgressCallback &progress)
{
    if (dir.empty())
        throw std::runtime_error("generateImageFolder: empty output path");
    validateSpec(dir, spec);
    // "out/" must become "out.part", not "out/.part".
    fs::path target = fs::path(dir).lexically_normal();
    if (!target.has_filename() && target.has_parent_path())
        target = target.parent_path();
    std::error_code ec;
    if (fs::exists(target, ec)) {
        if (!fs::is_directory(target, ec) || !fs::is_empty(target, ec))
            throw std::invalid_argument(dir + ": already exists and is not empty");
    }
    const fs::path part(target.string() + ".part");
    fs::remove_all(part, ec); // leftovers of an interrupted run
    if (!fs::create_directories(part, ec) && ec)
        throw std::runtime_error(part.string() + ": cannot create directory: " + ec.message());

    std::vector<std::string> classes;
    for (int c = 0; c < spec.classes; ++c) {
        classes.push_back(className(c));
        fs::create_directory(part / classes.back(), ec);
        if (ec)
            throw std::runtime_error((part / classes.back()).string()
                                     + ": cannot create directory: " + ec.message());
    }

    const std::int64_t total = std::int64_t{spec.classes} * spec.imagesPerClass;
    std::atomic<std::int64_t> next{0};
    std::atomic<bool> failed{false};
    std::exception_ptr error;
    std::mutex errorMutex;
    SerialProgress counter(progress, total);

    auto work = [&] {
        try {
            for (std::int64_t i = next++; i < total && !failed; i = next++) {
                const int cls = static_cast<int>(i / spec.imagesPerClass);
                const int image = static_cast<int>(i % spec.imagesPerClass);
                const auto &name = classes[static_cast<std::size_t>(cls)];
                const fs::path path = part / name / fileName(name, image);
                const std::vector<uchar> bytes = renderJpeg(spec, cls, image, path);
                writeFile(path, bytes.data(), bytes.size());
                counter.step();
            }
        } catch (...) {
            std::lock_guard lock(errorMutex);
            if (!error)
                error = std::current_exception();
            failed = true;
        }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < kGeneratorThreads; ++t)
        threads.emplace_back(work);
    work();
    for (auto &thread : threads)
        thread.join();

    if (error) {
        fs::remove_all(part, ec);
        std::rethrow_exception(error);
    }
    // rename() replaces an empty target directory atomically.
    fs::rename(part, target, ec);
    if (ec) {
        fs::remove_all(part, ec);
        throw std::runtime_error(dir + ": cannot move generated folder into place");
    }
}

void generateTensorFile(const std::string &path, std::int64_t count, SampleShape shape, DType dtype,
                        std::uint64_t seed, const ProgressCallback &progress)
{
    if (count < 0)
        throw std::invalid_argument(path + ": sample count must not be negative");
    if (shape.channels < 1 || shape.height < 1 || shape.width < 1)
        throw std::invalid_argument(path + ": invalid sample shape " + shapeToString(shape));
    // Like the folder mode: never replace something that is already there (it may be
    // an input, or a dataset someone spent hours on).
    std::error_code ec;
    if (fs::exists(fs::symlink_status(path, ec)))
        throw std::invalid_argument(path + ": already exists");
    checkTensorFileFits(path, count, shape, dtype, defaultMemoryBudgetBytes());

    TensorFileWriter writer(path, dtype, shape);
    std::mt19937_64 rng(mixSeed(seed, 0x7E45011ULL, 0));
    const auto elements = static_cast<std::size_t>(shape.elements());
    std::vector<std::byte> sample(elements * dtypeSize(dtype));
    std::vector<float> floats(dtype == DType::Float32 ? elements : 0);

    for (std::int64_t i = 0; i < count; ++i) {
        if (dtype == DType::Float32) {
            // Sum of four 16-bit uniforms (Irwin-Hall): close to N(0, 1), and much
            // cheaper than std::normal_distribution for millions of values.
            constexpr float kScale = 1.0f / 65535.0f;
            for (float &value : floats) {
                const std::uint64_t r = rng();
                const float sum = static_cast<float>(r & 0xFFFF)
                                  + static_cast<float>((r >> 16) & 0xFFFF)
                                  + static_cast<float>((r >> 32) & 0xFFFF)
                                  + static_cast<float>(r >> 48);
                value = (sum * kScale - 2.0f) * 1.7320508f; // sqrt(12 / 4) = sqrt(3)
            }
            std::memcpy(sample.data(), floats.data(), sample.size());
        } else {
            for (std::size_t b = 0; b < sample.size(); b += 8) {
                const std::uint64_t r = rng();
                std::memcpy(sample.data() + b, &r, std::min<std::size_t>(8, sample.size() - b));
            }
        }
        const auto label = static_cast<std::int64_t>(rng() % 10);
        writer.append(label, sample);
        if (progress)
            progress(i + 1, count);
    }
    writer.finish();
}

} // namespace loaderlab
