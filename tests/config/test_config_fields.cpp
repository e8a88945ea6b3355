// The config table: every field reachable by its key path, set and read back, kept
// through JSON; wrong types, values out of range and unknown keys refused with one
// error that names the key; deeply nested input refused without a crash.

#include "core/config/config_diff.h"
#include "core/config/config_fields.h"
#include "core/config/marker_text.h"
#include "core/config/run_config_json.h"
#include "core/system/memory_budget.h"
#include "tests/support/test_main.h"

#include <QtTest>

#include <functional>
#include <limits>
#include <set>
#include <sstream>

using namespace loaderlab;
using nlohmann::json;

namespace {

// A valid value for the field that differs from the default config's.
json otherValue(const ConfigField &f, const json &current)
{
    switch (f.type) {
    case FieldType::Integer:
        return current.get<double>() < f.max ? json(current.get<std::int64_t>() + 1)
                                             : json(static_cast<std::int64_t>(f.min));
    case FieldType::Unsigned:
        return json(std::uint64_t{18446744073709551615ULL});
    case FieldType::Number:
        return json(current.get<double>() + 0.5);
    case FieldType::Boolean:
        return json(!current.get<bool>());
    case FieldType::Text:
    case FieldType::Path:
        return f.check ? json("cuda:1") : json(current.get<std::string>() + "x");
    case FieldType::Choice:
        for (std::string_view choice : f.choices) {
            if (choice != current.get<std::string>())
                return json(std::string(choice));
        }
        return current;
    case FieldType::Shape:
        return json::array({1, 2, 3});
    case FieldType::Object:
        return json{{"size", 64}, {"mode", "train"}};
    case FieldType::Scalar:
        return json(7);
    }
    return current;
}

std::string errorOf(const std::function<void()> &call, std::string *key = nullptr)
{
    try {
        call();
    } catch (const ConfigError &e) {
        if (key)
            *key = e.key();
        return e.what();
    } catch (const std::invalid_argument &e) {
        return e.what();
    }
    return {};
}

std::string joined(const std::vector<std::string_view> &names)
{
    std::string text;
    for (std::string_view name : names)
        text += (text.empty() ? "" : " ") + std::string(name);
    return text;
}

// A choice field whose names are one EnumNames table: the field offers exactly the
// table's names in its order, these are the names configs, sweeps and --set have
// always used (`expected`), and each converts both ways, through the name functions
// and through the field.
template <typename Enum, std::size_t N>
void checkChoiceNames(std::string_view key, const EnumNames<Enum, N> &names,
                      const char *(*toName)(Enum),
                      std::optional<Enum> (*fromName)(const std::string &), const char *expected)
{
    const QByteArray where(key.data(), static_cast<qsizetype>(key.size()));
    const ConfigField &field = configField(key);
    QVERIFY2(field.type == FieldType::Choice, where.constData());
    QCOMPARE(joined(field.choices), std::string(expected));
    QCOMPARE(joined(enumChoices(names)), std::string(expected));
    RunConfig config;
    for (const auto &[value, name] : names) {
        QCOMPARE(std::string_view(toName(value)), name);
        QVERIFY2(fromName(std::string(name)) == value, where.constData());
        setConfigFieldFromText(config, key, name);
        QCOMPARE(getConfigField(config, key), json(std::string(name)));
        QCOMPARE(getConfigField(runConfigFromJson(toJson(config)), key), json(std::string(name)));
    }
    QVERIFY2(!fromName("no-such-name"), where.constData());
    QVERIFY2(!errorOf([&] { setConfigFieldFromText(config, key, "no-such-name"); }).empty(),
             where.constData());
}

} // namespace

class TestConfigFields : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void everyFieldIsReachableByKeyPath();
    void everyFieldSurvivesJson();
    void outOfRangeNamesTheKey();
    void wrongTypesAreRefusedNotConverted();
    void unknownKeysKeepTheirDots();
    void commandLineText();
    void seedKeepsAllSixtyFourBits();
    void deepNestingIsRefusedWhileParsing();
    void wrongTypeMessageIsShort();
    void diffListsChangedFieldsInTableOrder();
    void liveChangesIgnoreAnUnusedModel();
    void docsListEveryKey();
    void datasetKindsComeFromTheKindTable();
    void choiceFieldsOfferTheirNameTables();
    void validateRefusesExactlyOutsideTheTableRange();
    void consumerKindIsImpliedOneWay();
};

void TestConfigFields::everyFieldIsReachableByKeyPath()
{
    QVERIFY(configFields().size() >= 35);
    for (const ConfigField &f : configFields()) {
        const QByteArray key(f.key.data(), static_cast<qsizetype>(f.key.size()));
        QVERIFY2(!f.label.empty() && !f.help.empty(), key.constData());
        RunConfig config;
        const json before = getConfigField(config, f.key);
        const json value = otherValue(f, before);
        QVERIFY2(value != before, key.constData());
        setConfigField(config, f.key, value);
        QVERIFY2(getConfigField(config, f.key) == value, key.constData());
        // Only this field changed.
        const std::vector<FieldChange> changes = diffConfigs(RunConfig{}, config);
        QCOMPARE(changes.size(), std::size_t{1});
        QCOMPARE(changes[0].field, std::string(f.key));
    }
}

void TestConfigFields::everyFieldSurvivesJson()
{
    RunConfig config;
    for (const ConfigField &f : configFields())
        setConfigField(config, f.key, otherValue(f, getConfigField(config, f.key)));
    const json saved = toJson(config);
    std::istringstream text(saved.dump());
    const RunConfig back = runConfigFromJson(parseConfigJson(text));
    QVERIFY(diffConfigs(config, back).empty());
    QCOMPARE(toJson(back), saved);
    QCOMPARE(saved["loader"]["num_workers"].get<int>(), config.loader.numWorkers);
    QCOMPARE(saved["consumer"]["model"]["device"].get<std::string>(), std::string("cuda:1"));
}

void TestConfigFields::outOfRangeNamesTheKey()
{
    int checked = 0;
    for (const ConfigField &f : configFields()) {
        if (f.type != FieldType::Integer && f.type != FieldType::Number)
            continue;
        const QByteArray key(f.key.data(), static_cast<qsizetype>(f.key.size()));
        RunConfig config;
        const json before = getConfigField(config, f.key);
        const bool integer = f.type == FieldType::Integer;
        const json above = integer ? json(static_cast<std::int64_t>(f.max) + 1)
                                   : json(f.max * 2 + 1);
        const json below = integer ? json(static_cast<std::int64_t>(f.min) - 1) : json(f.min - 1);
        for (const json &bad : {above, below}) {
            std::string named;
            const std::string message = errorOf([&] { setConfigField(config, f.key, bad); },
                                                &named);
            QVERIFY2(message.starts_with(std::string(f.key) + ": "),
                     (key + " " + message.c_str()).constData());
            QVERIFY2(message.find("is out of range (") != std::string::npos, message.c_str());
            QCOMPARE(named, std::string(f.key));
        }
        QVERIFY2(getConfigField(config, f.key) == before, key.constData()); // untouched
        ++checked;
    }
    QVERIFY(checked >= 18);
    // Through JSON and through the command-line text the same way.
    QCOMPARE(
        errorOf([] { runConfigFromJson(json::parse(R"({"loader": {"num_workers": 2000}})")); }),
        std::string("loader.num_workers: 2000 is out of range (0..1024)"));
    RunConfig config;
    QCOMPARE(errorOf([&] { setConfigFieldFromText(config, "loader.num_workers", "2000"); }),
             std::string("loader.num_workers: 2000 is out of range (0..1024)"));
    // A sleep so long it would overflow the clock, negative times and limits.
    QVERIFY(!errorOf([&] {
                 setConfigFieldFromText(config, "consumer.sleep_per_batch_ms", "1e300");
             }).empty());
    QVERIFY(!errorOf([&] {
                 setConfigFieldFromText(config, "consumer.sleep_per_batch_ms", "-1");
             }).empty());
    QVERIFY(!errorOf([&] { setConfigFieldFromText(config, "epochs", "-1"); }).empty());
    QVERIFY(!errorOf([&] { setConfigFieldFromText(config, "warmup_batches", "-1"); }).empty());
    QVERIFY(
        !errorOf([&] { setConfigFieldFromText(config, "dataset.max_file_bytes", "-5"); }).empty());
    QVERIFY(!errorOf([&] {
                 setConfigFieldFromText(config, "consumer.model.learning_rate", "0");
             }).empty());
}

void TestConfigFields::wrongTypesAreRefusedNotConverted()
{
    const auto message = [](const char *text) {
        return errorOf([text] { runConfigFromJson(json::parse(text)); });
    };
    QCOMPARE(message(R"({"loader": {"batch_size": true}})"),
             std::string("loader.batch_size: expected an integer, got true"));
    QCOMPARE(message(R"({"loader": {"batch_size": 4.5}})"),
             std::string("loader.batch_size: expected an integer, got 4.5"));
    QCOMPARE(message(R"({"loader": {"batch_size": 4.0}})"),
             std::string("loader.batch_size: expected an integer, got 4.0"));
    QVERIFY(message(R"({"dataset": {"synthetic_shape": [3, 22.5, 22]}})")
                .starts_with("dataset.synthetic_shape: "));
    QVERIFY(message(R"({"dataset": {"synthetic_shape": [3, 22]}})")
                .starts_with("dataset.synthetic_shape: "));
    QCOMPARE(message(R"({"loader": {"shuffle": 1}})"),
             std::string("loader.shuffle: expected true or false, got 1"));
    QCOMPARE(message(R"({"max_seconds": "10"})"),
             std::string("max_seconds: expected a number, got \"10\""));
    QCOMPARE(message(R"({"loader": 3})"), std::string("loader: expected an object, got 3"));
    QCOMPARE(message(R"({"consumer": {"model": {"device": "tpu"}}})"),
             std::string("consumer.model.device: unknown device 'tpu' (cpu, cuda or cuda:N)"));
    QCOMPARE(message(R"({"consumer": {"model": {"optimizer": "lion"}}})"),
             std::string("consumer.model.optimizer: unknown value \"lion\" (sgd, adam)"));
}

void TestConfigFields::unknownKeysKeepTheirDots()
{
    QCOMPARE(errorOf([] { runConfigFromJson(json::parse(R"({"dataset": {"foo": 1}})")); }),
             std::string("dataset.foo: unknown key"));
    QCOMPARE(errorOf([] {
                 runConfigFromJson(json::parse(R"({"consumer": {"model": {"layers": 3}}})"));
             }),
             std::string("consumer.model.layers: unknown key"));
    RunConfig config;
    std::string key;
    QCOMPARE(errorOf([&] { setConfigFieldFromText(config, "loader.workers", "2"); }, &key),
             std::string("loader.workers: unknown key"));
    QCOMPARE(key, std::string("loader.workers"));
    QVERIFY(isConfigGroup("consumer.model"));
    QVERIFY(!isConfigGroup("loader.num_workers"));
}

void TestConfigFields::commandLineText()
{
    RunConfig config;
    setConfigFieldFromText(config, "loader.num_workers", "6");
    setConfigFieldFromText(config, "dataset.synthetic_shape", "1x28x28");
    setConfigFieldFromText(config, "loader.shuffle", "on");
    setConfigFieldFromText(config, "max_seconds", "2.5");
    QCOMPARE(config.loader.numWorkers, 6);
    QCOMPARE(config.dataset.syntheticShape.height, 28);
    QVERIFY(config.loader.shuffle);
    QCOMPARE(config.maxSeconds, 2.5);
    QVERIFY(!errorOf([&] { setConfigFieldFromText(config, "loader.num_workers", "4x"); }).empty());
    QVERIFY(!errorOf([&] { setConfigFieldFromText(config, "loader.num_workers", ""); }).empty());
    QVERIFY(!errorOf([&] {
                 setConfigFieldFromText(config, "dataset.synthetic_shape", "3x224");
             }).empty());
    QVERIFY(!errorOf([&] {
                 setConfigFieldFromText(config, "dataset.synthetic_shape", "0x1x1");
             }).empty());
    QCOMPARE(errorOf([&] { setConfigFieldFromText(config, "max_seconds", "nan"); }),
             std::string("max_seconds: nan is out of range (0..1000000000)"));
    QVERIFY(!errorOf([&] { setConfigFieldFromText(config, "max_seconds", "inf"); }).empty());
    QCOMPARE(config.maxSeconds, 2.5); // a refused value changes nothing
}

void TestConfigFields::seedKeepsAllSixtyFourBits()
{
    const RunConfig config = runConfigFromJson(
        json::parse(R"({"loader": {"seed": 18446744073709551615}})"));
    QCOMPARE(config.loader.seed, std::uint64_t{18446744073709551615ULL});
    QCOMPARE(toJson(config)["loader"]["seed"].dump(), std::string("18446744073709551615"));
    QVERIFY(
        !errorOf([] { runConfigFromJson(json::parse(R"({"loader": {"seed": -1}})")); }).empty());
}

void TestConfigFields::deepNestingIsRefusedWhileParsing()
{
    // {"dataset":{"path": [[[ ... ]]] }} with 50,000 levels: refused with a short
    // message, never a stack overflow.
    std::string text = R"({"dataset":{"path":)";
    text += std::string(50'000, '[') + std::string(50'000, ']') + "}}";
    std::istringstream in(text);
    const std::string message = errorOf([&] { parseConfigJson(in); });
    QCOMPARE(message, std::string("nested deeper than 32 levels"));
}

void TestConfigFields::wrongTypeMessageIsShort()
{
    json deep = json::array();
    for (int i = 0; i < 20; ++i)
        deep = json::array({deep, std::string(1000, 'x')});
    const json config{{"dataset", {{"path", deep}}}};
    const std::string message = errorOf([&] { runConfigFromJson(config); });
    QCOMPARE(message, std::string("dataset.path: expected a string, got an array of 2"));
    const std::string longText = errorOf([] {
        runConfigFromJson(json{{"loader", {{"strategy", std::string(5000, 'y')}}}});
    });
    QVERIFY2(longText.size() < 160, longText.c_str());
}

void TestConfigFields::diffListsChangedFieldsInTableOrder()
{
    RunConfig before;
    RunConfig after;
    after.loader.numWorkers = 4;
    after.loader.batchSize = 64;
    after.loader.shuffle = true;
    const std::vector<FieldChange> changes = diffConfigs(before, after);
    const std::vector<FieldChange> expected{{"loader.batch_size", "32", "64"},
                                            {"loader.num_workers", "2", "4"},
                                            {"loader.shuffle", "false", "true"}};
    QVERIFY(changes == expected);
    QCOMPARE(changesText(changes),
             std::string("batch size 32 -> 64, workers 2 -> 4, shuffle off -> on"));
}

void TestConfigFields::liveChangesIgnoreAnUnusedModel()
{
    RunConfig before;
    before.consumer.kind = ConsumerKind::Sleep;
    RunConfig after = before;
    after.consumer.model.name = "resnet50";
    after.dataset.path = "/elsewhere"; // not a live setting
    QVERIFY(liveChanges(before, after).empty());
    after.consumer.kind = ConsumerKind::Model;
    const std::vector<FieldChange> changes = liveChanges(before, after);
    QCOMPARE(changes.size(), std::size_t{2});
    QCOMPARE(changes[0].field, std::string("consumer.kind"));
    QCOMPARE(changes[1].field, std::string("consumer.model.name"));
}

void TestConfigFields::docsListEveryKey()
{
    QFile doc(qEnvironmentVariable("LOADERLAB_SOURCE_DIR") + QStringLiteral("/docs/config.md"));
    QVERIFY2(doc.open(QIODevice::ReadOnly), qPrintable(doc.fileName()));
    const QByteArray text = doc.readAll();
    for (const ConfigField &f : configFields()) {
        const QByteArray row = "| `"
                               + QByteArray(f.key.data(), static_cast<qsizetype>(f.key.size()))
                               + "` |";
        QVERIFY2(text.contains(row), row.constData());
    }
}

void TestConfigFields::datasetKindsComeFromTheKindTable()
{
    // dataset.kind offers exactly the table's kinds, in its order, and each name
    // parses back to its kind from JSON, from command-line text and by name.
    const ConfigField &field = configField("dataset.kind");
    QCOMPARE(field.choices.size(), datasetKinds().size());
    std::set<std::string_view> names;
    for (std::size_t i = 0; i < datasetKinds().size(); ++i) {
        const DatasetKindInfo &kind = datasetKinds()[i];
        QCOMPARE(field.choices[i], kind.name);
        QVERIFY2(names.insert(kind.name).second, kind.name.data()); // no name twice
        QVERIFY(!kind.label.empty());
        QCOMPARE(&datasetKindInfo(kind.kind), &kind);
        QCOMPARE(std::string_view(datasetKindName(kind.kind)), kind.name);
        QCOMPARE(datasetKindFromName(std::string(kind.name)), std::optional(kind.kind));
        RunConfig config;
        config.dataset.kind = kind.kind == DatasetKind::Synthetic ? DatasetKind::Idx
                                                                  : DatasetKind::Synthetic;
        setConfigFieldFromText(config, "dataset.kind", kind.name);
        QVERIFY(config.dataset.kind == kind.kind);
        QCOMPARE(getConfigField(config, "dataset.kind"), json(std::string(kind.name)));
        QVERIFY(runConfigFromJson(toJson(config)).dataset.kind == kind.kind);
    }
    QCOMPARE(configFieldRange(field).find("synthetic"), std::size_t{0});
    QVERIFY(!errorOf([] {
                 RunConfig config;
                 setConfigFieldFromText(config, "dataset.kind", "mnist");
             }).empty());
}

void TestConfigFields::choiceFieldsOfferTheirNameTables()
{
    checkChoiceNames("engine", kEngineKindNames, engineKindName, engineKindFromName,
                     "loaderlab pytorch");
    checkChoiceNames("dataset.transform", kTransformKindNames, transformKindName,
                     transformKindFromName, "eval train");
    checkChoiceNames("dataset.decode", kDecodeModeNames, decodeModeName, decodeModeFromName,
                     "exact fast");
    checkChoiceNames("loader.strategy", kStrategyNames, strategyName, strategyFromName,
                     "per-worker sample-parallel");
    checkChoiceNames("loader.bad_samples", kBadSamplePolicyNames, badSamplePolicyName,
                     badSamplePolicyFromName, "skip fail");
    checkChoiceNames("consumer.kind", kConsumerKindNames, consumerKindName, consumerKindFromName,
                     "none sleep model");
    checkChoiceNames("consumer.model.mode", kModelModeNames, modelModeName, modelModeFromName,
                     "inference train");
    checkChoiceNames("consumer.model.precision", kModelPrecisionNames, modelPrecisionName,
                     modelPrecisionFromName, "fp32 bf16 fp16");
}

void TestConfigFields::validateRefusesExactlyOutsideTheTableRange()
{
    // validate() and the run's device check read their ranges from the table: the
    // first value outside it on either side is refused with the range in the
    // message, the bounds themselves pass.
    const std::int64_t threads = threadLimit().value;
    const struct
    {
        const char *key;
        int LoaderConfig::*member;
    } loaderFields[] = {{"loader.batch_size", &LoaderConfig::batchSize},
                        {"loader.num_workers", &LoaderConfig::numWorkers},
                        {"loader.prefetch_factor", &LoaderConfig::prefetchFactor}};
    for (const auto &[key, member] : loaderFields) {
        const ConfigField &f = configField(key);
        const auto min = static_cast<std::int64_t>(f.min);
        const auto max = static_cast<std::int64_t>(f.max);
        std::vector<std::int64_t> good{min};
        std::vector<std::int64_t> bad{min - 1};
        if (max < std::numeric_limits<int>::max()) {
            bad.push_back(max + 1);
            if (member != &LoaderConfig::numWorkers || max + 2 <= threads)
                good.push_back(max); // the thread limit may refuse 1024 workers first
        }
        for (const std::int64_t value : good) {
            LoaderConfig loader;
            loader.*member = static_cast<int>(value);
            QVERIFY2(errorOf([&] { validate(loader); }).empty(), key);
        }
        for (const std::int64_t value : bad) {
            LoaderConfig loader;
            loader.*member = static_cast<int>(value);
            const std::string message = errorOf([&] { validate(loader); });
            const std::string range = max < std::numeric_limits<int>::max()
                                          ? configFieldRange(f)
                                          : "at least " + std::to_string(min);
            QVERIFY2(message.find(" must be " + range + " (got " + std::to_string(value) + ")")
                         != std::string::npos,
                     (std::string(key) + ": " + message).c_str());
        }
    }
}

void TestConfigFields::consumerKindIsImpliedOneWay()
{
    // The window and `loaderlab run` without --consumer both decide with this.
    ConsumerConfig c;
    QVERIFY(impliedConsumerKind(c, false, true, ConsumerKind::None) == ConsumerKind::None);
    QVERIFY(impliedConsumerKind(c, true, true, ConsumerKind::None) == ConsumerKind::Model);
    c.sleepPerSampleMs = 0.5;
    QVERIFY(impliedConsumerKind(c, false, true, ConsumerKind::None) == ConsumerKind::Sleep);
    QVERIFY(impliedConsumerKind(c, true, true, ConsumerKind::None) == ConsumerKind::Model);
    // Sleep settings that were not given (from a config file) keep the fallback.
    QVERIFY(impliedConsumerKind(c, false, false, ConsumerKind::None) == ConsumerKind::None);
    c.sleepPerSampleMs = 0.0;
    c.sleepPerBatchMs = 2.0;
    QVERIFY(impliedConsumerKind(c, false, true, ConsumerKind::Model) == ConsumerKind::Sleep);
    c.sleepPerBatchMs = 0.0;
    QVERIFY(impliedConsumerKind(c, false, true, ConsumerKind::Model) == ConsumerKind::Model);
}

LOADERLAB_GUILESS_TEST_MAIN(TestConfigFields)
#include "test_config_fields.moc"
