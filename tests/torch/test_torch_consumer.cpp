// Tests for the LibTorch "model" consumer: a run through RunController, determinism,
// TorchScript loading and its errors, a training step, activation checkpointing,
// shape errors and bf16 autocast on the CPU.
#include "core/config/config_diff.h"
#include "core/config/marker_text.h"
#include "core/config/run_config_json.h"
#include "core/consumer/model_consumer_factory.h"
#include "core/run/run_controller.h"
#include "core/torch/torch_consumer.h"
#include "core/torch/torch_consumer_registration.h"
#include "tests/support/test_main.h"

#include <torch/torch.h>

#include <QtTest/QtTest>

#include <cstdlib>
#include <stdexcept>
#include <string>

using namespace loaderlab;
using loaderlab::torchmodels::TorchConsumer;
using loaderlab::torchmodels::BuildStopped;
using loaderlab::torchmodels::makeTorchConsumer;

namespace {

ConsumerConfig modelConfig(ModelMode mode = ModelMode::Inference)
{
    ConsumerConfig config;
    config.kind = ConsumerKind::Model;
    config.model.name = "resnet18";
    config.model.mode = mode;
    config.model.threads = 2;
    config.model.numClasses = 10;
    return config;
}

torch::Tensor fixedInput(std::int64_t n = 2, std::int64_t size = 64)
{
    torch::manual_seed(42);
    return torch::rand({n, 3, size, size});
}

std::string errorOf(const std::function<void()> &f)
{
    try {
        f();
    } catch (const std::exception &e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestTorchConsumer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void modelConfigJsonRoundTrip();
    void modelConfigJsonRejectsUnknownKey();
    void modelChangeIsDescribed();
    void withoutFactoryModelKindFails();
    void runThroughController();
    void runFailsWithModelError_data();
    void runFailsWithModelError();
    void stoppedBuildThrows();
    void stopDuringAModelBuildIsPrompt();
    void inferenceIsDeterministic();
    void torchScriptModelLoadsAndRuns();
    void brokenModelFileNamesFile();
    void trainingLowersLoss();
    void checkpointingGivesSameGradients();
    void shapeMismatchIsClear();
    void bf16RunsOnCpu();
};

void TestTorchConsumer::initTestCase()
{
    registerTorchConsumer();
}

void TestTorchConsumer::modelConfigJsonRoundTrip()
{
    RunConfig config;
    config.consumer = modelConfig(ModelMode::Train);
    ModelConfig &m = config.consumer.model;
    m.name = "mobilenet_v2";
    m.scriptPath = "/models/m.pt";
    m.device = "cuda:1";
    m.precision = ModelPrecision::BFloat16;
    m.channelsLast = true;
    m.threads = 3;
    m.checkpointing = true;
    m.optimizer = "adam";
    m.learningRate = 0.5;
    m.numClasses = 7;
    const nlohmann::json json = toJson(config);
    QCOMPARE(QString::fromStdString(json.at("consumer").at("kind").get<std::string>()),
             QStringLiteral("model"));
    const nlohmann::json &model = json.at("consumer").at("model");
    QCOMPARE(QString::fromStdString(model.at("precision").get<std::string>()),
             QStringLiteral("bf16"));
    QCOMPARE(QString::fromStdString(model.at("mode").get<std::string>()), QStringLiteral("train"));
    QCOMPARE(model.at("learning_rate").get<double>(), 0.5);
    QVERIFY(runConfigFromJson(json).consumer == config.consumer);
    // Keys left out keep the base's values.
    const RunConfig partial = runConfigFromJson(
        nlohmann::json::parse(R"({"consumer": {"kind": "model", "model": {"threads": 5}}})"));
    QCOMPARE(partial.consumer.kind, ConsumerKind::Model);
    QCOMPARE(partial.consumer.model.threads, 5);
    QCOMPARE(QString::fromStdString(partial.consumer.model.name), QStringLiteral("resnet18"));
}

void TestTorchConsumer::modelConfigJsonRejectsUnknownKey()
{
    const std::string unknown = errorOf([] {
        runConfigFromJson(nlohmann::json::parse(R"({"consumer": {"model": {"layers": 3}}})"));
    });
    QCOMPARE(QString::fromStdString(unknown), QStringLiteral("consumer.model.layers: unknown key"));
    const std::string badPrecision = errorOf([] {
        runConfigFromJson(
            nlohmann::json::parse(R"({"consumer": {"model": {"precision": "fp8"}}})"));
    });
    QCOMPARE(QString::fromStdString(badPrecision),
             QStringLiteral("consumer.model.precision: unknown value \"fp8\" (fp32, bf16, fp16)"));
}

void TestTorchConsumer::modelChangeIsDescribed()
{
    const auto described = [](const ConsumerConfig &a, const ConsumerConfig &b) {
        RunConfig before;
        before.consumer = a;
        RunConfig after;
        after.consumer = b;
        return QString::fromStdString(changesText(liveChanges(before, after)));
    };
    const ConsumerConfig before = modelConfig();
    ConsumerConfig after = before;
    after.model.name = "resnet50";
    after.model.precision = ModelPrecision::BFloat16;
    QCOMPARE(described(before, after),
             QStringLiteral("model resnet18 -> resnet50, precision fp32 -> bf16"));
    QCOMPARE(described(before, before), QString());
    // Settings of a model that is not the step change nothing.
    ConsumerConfig sleepBefore = before;
    sleepBefore.kind = ConsumerKind::Sleep;
    ConsumerConfig sleepAfter = after;
    sleepAfter.kind = ConsumerKind::Sleep;
    QCOMPARE(described(sleepBefore, sleepAfter), QString());
    QCOMPARE(described(sleepBefore, after),
             QStringLiteral("model step sleep -> model, model resnet18 -> resnet50, "
                            "precision fp32 -> bf16"));
}

void TestTorchConsumer::withoutFactoryModelKindFails()
{
    setModelConsumerFactory(nullptr);
    const std::string error = errorOf([] { makeConsumer(modelConfig(), 0); });
    registerTorchConsumer();
    QCOMPARE(QString::fromStdString(error), QStringLiteral("this build has no LibTorch models"));
    QVERIFY(makeConsumer(modelConfig(), 0) != nullptr);
}

void TestTorchConsumer::stoppedBuildThrows()
{
    std::stop_source source;
    source.request_stop();
    ConsumerConfig config = modelConfig();
    config.model.name = "resnet152";
    bool stopped = false;
    try {
        makeTorchConsumer(config, 0, source.get_token());
    } catch (const BuildStopped &) {
        stopped = true;
    }
    QVERIFY(stopped);
    // Outside the guard the token is not looked at: the same thread builds normally.
    QVERIFY(makeTorchConsumer(modelConfig(), 0, {}) != nullptr);
}

void TestTorchConsumer::stopDuringAModelBuildIsPrompt()
{
    // vit_l_16 takes seconds to build (about 5 s on 2 cores); a stop must not wait for it.
    RunConfig config;
    config.dataset.syntheticShape = {3, 224, 224};
    config.dataset.syntheticSamples = 8;
    config.loader.numWorkers = 1;
    config.loader.batchSize = 2;
    config.consumer = modelConfig();
    config.consumer.model.name = "vit_l_16";
    RunController run;
    run.start(config);
    QTest::qWait(300);
    QElapsedTimer timer;
    timer.start();
    run.stop();
    const qint64 ms = timer.elapsed();
    QVERIFY2(ms < 1500, qPrintable(QStringLiteral("stop took %1 ms").arg(ms)));
    QCOMPARE(run.state(), RunState::Stopped);
    QVERIFY(run.error().empty());
    QCOMPARE(run.trace()->size(), std::size_t{0});
    QCOMPARE(run.liveThreads(), 0);
}

void TestTorchConsumer::runThroughController()
{
    RunConfig config;
    config.dataset.kind = DatasetKind::Synthetic;
    config.dataset.syntheticShape = {3, 64, 64};
    config.dataset.syntheticSamples = 20;
    config.loader.batchSize = 4;
    config.loader.numWorkers = 1;
    config.consumer = modelConfig();
    RunController controller;
    controller.start(config);
    QVERIFY(controller.waitForEnd(120000));
    QCOMPARE(controller.state(), RunState::Finished);
    QVERIFY(controller.error().empty());
    const auto records = controller.trace()->records();
    QCOMPARE(records.size(), std::size_t(5));
    for (const auto &r : records) {
        QVERIFY(r.computeStartNs > 0);
        QVERIFY(r.computeEndNs > r.computeStartNs);
        // Float32 channels-first on the CPU: the model reads the batch buffer, no copy.
        QCOMPARE(r.copyEndNs, r.copyStartNs);
        QVERIFY(r.copyStartNs >= r.deliveryNs);
    }
    QVERIFY(controller.peakMemoryBytes() > 0);
}

void TestTorchConsumer::runFailsWithModelError_data()
{
    QTest::addColumn<QString>("script");
    QTest::addColumn<int>("channels");
    QTest::addColumn<QString>("expected");
    QTest::newRow("missing file") << QStringLiteral("/nonexistent/model.pt") << 3
                                  << QStringLiteral("/nonexistent/model.pt: model file not found");
    QTest::newRow("grey batch into resnet")
        << QString() << 1
        << QStringLiteral("model 'resnet18' expects input Nx3xHxW, got a batch of 2x1x28x28");
}

void TestTorchConsumer::runFailsWithModelError()
{
    QFETCH(QString, script);
    QFETCH(int, channels);
    QFETCH(QString, expected);
    RunConfig config;
    config.dataset.kind = DatasetKind::Synthetic;
    config.dataset.syntheticShape = {channels, 28, 28};
    config.dataset.syntheticSamples = 4;
    config.loader.batchSize = 2;
    config.consumer = modelConfig();
    config.consumer.model.scriptPath = script.toStdString();
    RunController controller;
    controller.start(config);
    QVERIFY(controller.waitForEnd(120000));
    QCOMPARE(controller.state(), RunState::Failed);
    QCOMPARE(QString::fromStdString(controller.error()), expected);
    QCOMPARE(controller.liveThreads(), 0);
}

void TestTorchConsumer::inferenceIsDeterministic()
{
    torch::manual_seed(1);
    TorchConsumer consumer(modelConfig(), 0);
    const torch::Tensor input = fixedInput();
    const torch::Tensor labels = torch::zeros({2}, torch::kInt64);
    const torch::Tensor first = consumer.step(input, labels);
    const torch::Tensor second = consumer.step(input, labels);
    QCOMPARE(first.sizes().vec(), (std::vector<std::int64_t>{2, 10}));
    QVERIFY(torch::equal(first, second));
}

void TestTorchConsumer::torchScriptModelLoadsAndRuns()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("tiny.pt"));
    // A 3->4 conv, global pooling and a 4->5 linear layer, scripted by Python's torch.
    const QString script = QStringLiteral(
        "import torch, sys\n"
        "m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.AdaptiveAvgPool2d(1),"
        " torch.nn.Flatten(), torch.nn.Linear(4, 5))\n"
        "torch.jit.save(torch.jit.script(m), sys.argv[1])\n");
    QProcess python;
    python.start(QStringLiteral("/usr/bin/python3"), {QStringLiteral("-c"), script, path});
    if (!python.waitForFinished(120000) || python.exitCode() != 0 || !QFile::exists(path))
        QSKIP("python3 with torch is not available to script a model");
    ConsumerConfig config = modelConfig();
    config.model.scriptPath = path.toStdString();
    TorchConsumer consumer(config, 0);
    QVERIFY(consumer.description().find(path.toStdString()) != std::string::npos);
    const torch::Tensor output = consumer.step(fixedInput(3, 16), torch::zeros({3}, torch::kInt64));
    QCOMPARE(output.sizes().vec(), (std::vector<std::int64_t>{3, 5}));
}

void TestTorchConsumer::brokenModelFileNamesFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("broken.pt"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    QByteArray junk;
    for (int i = 0; i < 4096; ++i)
        junk.append(static_cast<char>((i * 131 + 7) % 251));
    file.write(junk);
    file.close();
    ConsumerConfig config = modelConfig();
    config.model.scriptPath = path.toStdString();
    const std::string error = errorOf([&] { TorchConsumer consumer(config, 0); });
    QVERIFY2(error.find(path.toStdString()) != std::string::npos, error.c_str());
    QVERIFY2(error.find("not a TorchScript module") != std::string::npos, error.c_str());

    config.model.scriptPath = dir.filePath(QStringLiteral("missing.pt")).toStdString();
    const std::string missing = errorOf([&] { TorchConsumer consumer(config, 0); });
    QVERIFY2(missing.find("missing.pt: model file not found") != std::string::npos,
             missing.c_str());
}

void TestTorchConsumer::trainingLowersLoss()
{
    torch::manual_seed(2);
    TorchConsumer consumer(modelConfig(ModelMode::Train), 0);
    const torch::Tensor before = consumer.parameters().front().detach().clone();
    const torch::Tensor input = fixedInput(4, 32);
    const torch::Tensor labels = torch::tensor({1, 3, 5, 7}, torch::kInt64);
    const double first = consumer.step(input, labels).item<double>();
    double last = first;
    for (int i = 0; i < 5; ++i)
        last = consumer.step(input, labels).item<double>();
    QVERIFY2(last < first, qPrintable(QStringLiteral("%1 -> %2").arg(first).arg(last)));
    QVERIFY(!torch::equal(before, consumer.parameters().front()));
}

void TestTorchConsumer::checkpointingGivesSameGradients()
{
    ConsumerConfig plainConfig = modelConfig(ModelMode::Train);
    ConsumerConfig checkpointConfig = plainConfig;
    checkpointConfig.model.checkpointing = true;
    torch::manual_seed(3);
    TorchConsumer plain(plainConfig, 0);
    torch::manual_seed(3);
    TorchConsumer checkpointed(checkpointConfig, 0);
    const torch::Tensor input = fixedInput(2, 32);
    const torch::Tensor labels = torch::tensor({2, 4}, torch::kInt64);
    const double lossPlain = plain.step(input, labels).item<double>();
    const double lossCheckpointed = checkpointed.step(input, labels).item<double>();
    QCOMPARE(lossCheckpointed, lossPlain);
    const auto a = plain.parameters();
    const auto b = checkpointed.parameters();
    QCOMPARE(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        QVERIFY(a[i].grad().defined() && b[i].grad().defined());
        QVERIFY2(torch::allclose(a[i].grad(), b[i].grad(), 1e-4, 1e-6),
                 qPrintable(QStringLiteral("parameter %1").arg(i)));
    }
}

void TestTorchConsumer::shapeMismatchIsClear()
{
    TorchConsumer consumer(modelConfig(), 0);
    const std::string error = errorOf([&] {
        consumer.step(torch::zeros({2, 1, 28, 28}), torch::zeros({2}, torch::kInt64));
    });
    QVERIFY2(error.find("resnet18") != std::string::npos, error.c_str());
    QVERIFY2(error.find("Nx3xHxW") != std::string::npos, error.c_str());
    QVERIFY2(error.find("2x1x28x28") != std::string::npos, error.c_str());
}

void TestTorchConsumer::bf16RunsOnCpu()
{
    ConsumerConfig config = modelConfig();
    torch::manual_seed(4);
    TorchConsumer fp32(config, 0);
    config.model.precision = ModelPrecision::BFloat16;
    torch::manual_seed(4);
    TorchConsumer bf16(config, 0);
    const torch::Tensor input = fixedInput();
    const torch::Tensor labels = torch::zeros({2}, torch::kInt64);
    const torch::Tensor reference = fp32.step(input, labels);
    const torch::Tensor output = bf16.step(input, labels);
    // Autocast runs the final linear layer in bf16, so the logits come out as bf16.
    QCOMPARE(output.scalar_type(), torch::kBFloat16);
    const double error = (output.to(torch::kFloat32) - reference).abs().max().item<double>();
    const double scale = reference.abs().max().item<double>();
    QVERIFY2(error <= 0.1 * scale + 1e-3,
             qPrintable(QStringLiteral("error %1, scale %2").arg(error).arg(scale)));
    config.model.precision = ModelPrecision::Float16;
    const std::string fp16 = errorOf([&] { TorchConsumer consumer(config, 0); });
    QVERIFY2(fp16.find("fp16 needs a CUDA device") != std::string::npos, fp16.c_str());
}

LOADERLAB_GUILESS_TEST_MAIN(TestTorchConsumer)
#include "test_torch_consumer.moc"
