// Tests for the built-in model zoo: exact parameter counts and parameter shapes against
// torchvision 0.14, output shapes, error messages, and that running stages one by one equals
// forward().
#include "core/torch/layers.h"
#include "core/torch/model_names.h"
#include "core/torch/model_zoo.h"
#include "tests/support/test_main.h"

#include <torch/nn/init.h>
#include <torch/utils.h>

#include <QtTest/QtTest>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

using namespace loaderlab::torchmodels;

namespace {

std::vector<std::string> parameterShapes(const torch::nn::Module &module)
{
    std::vector<std::string> shapes;
    for (const auto &parameter : module.parameters()) {
        std::string shape;
        for (const auto dim : parameter.sizes())
            shape += (shape.empty() ? "" : "x") + std::to_string(dim);
        shapes.push_back(shape);
    }
    return shapes;
}

// Fixtures were dumped once with /usr/bin/python3 and torchvision 0.14:
// [ 'x'.join(map(str, p.shape)) for p in getattr(torchvision.models, name)().parameters() ]
std::vector<std::string> fixtureShapes(const QString &model)
{
    const QString path = QStringLiteral(LOADERLAB_TORCH_FIXTURES "/%1_shapes.txt").arg(model);
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly | QIODevice::Text))
        return {};
    std::vector<std::string> shapes;
    while (!file.atEnd()) {
        const QByteArray line = file.readLine().trimmed();
        if (!line.isEmpty())
            shapes.push_back(line.toStdString());
    }
    return shapes;
}

} // namespace

class TestModels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void parameterCountMatchesTorchvision_data();
    void parameterCountMatchesTorchvision();
    void parameterShapesMatchTorchvision_data();
    void parameterShapesMatchTorchvision();
    void outputShape_data();
    void outputShape();
    void customClassCount();
    void unknownModelListsKnownNames();
    void stagesComposeToForward_data();
    void stagesComposeToForward();
    void vitRejectsWrongImageSize();
    void stochasticDepthDropsWholeSamples();
    void trainingStepReachesEveryParameter();
};

void TestModels::initTestCase()
{
    torch::manual_seed(1234);
}

void TestModels::parameterCountMatchesTorchvision_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<qint64>("expected");
    // sum(p.numel() for p in torchvision.models.<name>().parameters()), torchvision 0.14.
    const std::map<std::string, qint64> expected{
        {"resnet18", 11689512},          {"resnet34", 21797672},  {"resnet50", 25557032},
        {"resnet101", 44549160},         {"resnet152", 60192808}, {"mobilenet_v2", 3504872},
        {"efficientnet_v2_s", 21458488}, {"vit_b_16", 86567656},  {"vit_b_32", 88224232},
        {"vit_l_16", 304326632},         {"vit_l_32", 306535400}};
    QCOMPARE(builtinModelNames().size(), expected.size());
    for (const auto &name : builtinModelNames()) {
        QVERIFY2(expected.contains(name), name.c_str());
        QTest::newRow(name.c_str()) << QString::fromStdString(name) << expected.at(name);
    }
}

void TestModels::parameterCountMatchesTorchvision()
{
    QFETCH(QString, name);
    QFETCH(qint64, expected);
    const auto model = makeModel(name.toStdString());
    QCOMPARE(model->name(), name.toStdString());
    QCOMPARE(static_cast<qint64>(parameterCount(*model)), expected);
}

void TestModels::parameterShapesMatchTorchvision_data()
{
    QTest::addColumn<QString>("name");
    QTest::newRow("resnet18") << QStringLiteral("resnet18");
    QTest::newRow("mobilenet_v2") << QStringLiteral("mobilenet_v2");
    QTest::newRow("vit_b_32") << QStringLiteral("vit_b_32");
}

// Compared in registration order (not as a multiset): the zoo registers parameters in the
// same order as torchvision's module tree.
void TestModels::parameterShapesMatchTorchvision()
{
    QFETCH(QString, name);
    const auto expected = fixtureShapes(name);
    QVERIFY2(!expected.empty(), qPrintable(QStringLiteral("missing fixture for ") + name));
    const auto actual = parameterShapes(*makeModel(name.toStdString()));
    QCOMPARE(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (actual[i] != expected[i]) {
            QFAIL(qPrintable(
                QStringLiteral("parameter %1: %2 != torchvision %3")
                    .arg(i)
                    .arg(QString::fromStdString(actual[i]), QString::fromStdString(expected[i]))));
        }
    }
}

void TestModels::outputShape_data()
{
    QTest::addColumn<QString>("name");
    for (const auto &name : builtinModelNames())
        QTest::newRow(name.c_str()) << QString::fromStdString(name);
}

void TestModels::outputShape()
{
    QFETCH(QString, name);
    auto model = makeModel(name.toStdString());
    model->eval();
    torch::NoGradGuard noGrad;
    // One image: ViT-L's forward is 8 s for two on 2 cores, and the shape's batch
    // dimension is checked by customClassCount.
    const auto output = model->forward(torch::randn({1, 3, 224, 224}));
    QCOMPARE(output.sizes().vec(), (std::vector<std::int64_t>{1, 1000}));
    QVERIFY(torch::isfinite(output).all().item<bool>());
}

void TestModels::customClassCount()
{
    auto model = makeModel("mobilenet_v2", 10);
    model->eval();
    torch::NoGradGuard noGrad;
    const auto output = model->forward(torch::randn({2, 3, 224, 224}));
    QCOMPARE(output.sizes().vec(), (std::vector<std::int64_t>{2, 10}));
    // Only the classifier shrinks: 1280 * (1000 - 10) weights and 990 biases fewer.
    QCOMPARE(parameterCount(*model), std::int64_t{3504872 - 1281 * 990});
}

void TestModels::unknownModelListsKnownNames()
{
    for (const std::string bad : {"nope", "resnet19", "vit_b_8", ""}) {
        try {
            makeModel(bad);
            QFAIL(qPrintable(
                QStringLiteral("no exception for '%1'").arg(QString::fromStdString(bad))));
        } catch (const std::invalid_argument &error) {
            const std::string message = error.what();
            QVERIFY2(message.find("unknown model '" + bad + "'") != std::string::npos,
                     message.c_str());
            for (const auto &name : builtinModelNames())
                QVERIFY2(message.find(name) != std::string::npos, message.c_str());
        }
    }
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, makeModel("resnet18", 0));
}

void TestModels::stagesComposeToForward_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<int>("expectedStages");
    // resnet18: stem + 8 basic blocks + head; vit_b_32: embedding + 12 encoder blocks + head.
    QTest::newRow("resnet18") << QStringLiteral("resnet18") << 10;
    QTest::newRow("vit_b_32") << QStringLiteral("vit_b_32") << 14;
}

void TestModels::stagesComposeToForward()
{
    QFETCH(QString, name);
    QFETCH(int, expectedStages);
    auto model = makeModel(name.toStdString());
    QCOMPARE(model->stageCount(), static_cast<std::size_t>(expectedStages));
    QVERIFY(model->stageCount() > 2);
    model->eval();
    torch::NoGradGuard noGrad;
    // torchvision zero-initialises the ViT head, which would make every output 0 and the
    // comparison vacuous: randomise all parameters named like the head first.
    for (auto &item : model->named_parameters()) {
        if (item.key().starts_with("head."))
            torch::nn::init::normal_(item.value(), 0.0, 0.05);
    }
    const auto input = torch::randn({2, 3, 224, 224});
    const auto whole = model->forward(input);
    auto x = input;
    for (std::size_t i = 0; i < model->stageCount(); ++i)
        x = model->forwardStage(i, x);
    QVERIFY(whole.abs().max().item<double>() > 1e-3);
    QVERIFY(torch::allclose(x, whole, 1e-5, 1e-6));
    QVERIFY_THROWS_EXCEPTION(std::out_of_range, model->forwardStage(model->stageCount(), input));
}

void TestModels::vitRejectsWrongImageSize()
{
    auto model = makeModel("vit_b_32");
    torch::NoGradGuard noGrad;
    try {
        model->forward(torch::randn({1, 3, 160, 160}));
        QFAIL("no exception for a 160x160 input");
    } catch (const std::exception &error) {
        QVERIFY2(std::string(error.what()).find("224") != std::string::npos, error.what());
    }
}

void TestModels::stochasticDepthDropsWholeSamples()
{
    const auto x = torch::ones({64, 3, 4, 4});
    QVERIFY(stochasticDepth(x, 0.5, false).equal(x));
    QVERIFY(stochasticDepth(x, 0.0, true).equal(x));
    const auto y = stochasticDepth(x, 0.5, true);
    // Each sample is either dropped (all 0) or kept and rescaled by 1 / (1 - p) = 2.
    const auto perSampleMin = y.flatten(1).amin(1);
    const auto perSampleMax = y.flatten(1).amax(1);
    QVERIFY(perSampleMin.equal(perSampleMax));
    const auto kept = perSampleMax.eq(2.0).sum().item<std::int64_t>();
    const auto dropped = perSampleMax.eq(0.0).sum().item<std::int64_t>();
    QCOMPARE(kept + dropped, std::int64_t{64});
    QVERIFY(kept > 0 && dropped > 0); // fails with probability 2^-63
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, stochasticDepth(x, 1.5, true));
}

// Train mode exercises what eval skips: BN batch statistics, dropout and stochastic depth.
void TestModels::trainingStepReachesEveryParameter()
{
    auto model = makeModel("efficientnet_v2_s", 10);
    model->train();
    const auto output = model->forward(torch::randn({2, 3, 64, 64}));
    QCOMPARE(output.sizes().vec(), (std::vector<std::int64_t>{2, 10}));
    output.square().mean().backward();
    for (const auto &item : model->named_parameters())
        QVERIFY2(item.value().grad().defined(), item.key().c_str());
}

LOADERLAB_GUILESS_TEST_MAIN(TestModels)
#include "test_models.moc"
