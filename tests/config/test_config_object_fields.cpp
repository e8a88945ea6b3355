// dataset.args, the config's one object of named values (a pipeline file's
// arguments): its entries are set and read by key path ("dataset.args.size") from
// the command line's text, kept through JSON and in the diff of two configs, and
// anything but named strings, numbers and booleans is refused naming the key.

#include "core/config/config_diff.h"
#include "core/config/config_fields.h"
#include "core/config/run_config_json.h"
#include "tests/support/test_main.h"

#include <QtTest>

using namespace loaderlab;
using nlohmann::json;

class TestConfigObjectFields : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void entriesAreFieldsByKeyPath();
    void textIsReadAsJsonScalarsElseAsText();
    void keptThroughJsonAndInTheDiff();
    void refusals_data();
    void refusals();
};

void TestConfigObjectFields::entriesAreFieldsByKeyPath()
{
    const ConfigField *object = findConfigField("dataset.args");
    QVERIFY(object);
    QCOMPARE(object->type, FieldType::Object);
    const ConfigField *entry = findConfigField("dataset.args.size");
    QVERIFY(entry);
    QCOMPARE(entry->type, FieldType::Scalar);
    QCOMPARE(entry, configObjectEntry(*object));
    QVERIFY(!findConfigField("dataset.size.x"));   // dataset.size is no Object field
    QVERIFY(!findConfigField("loader.seed.bits")); // nor is a scalar field

    RunConfig c;
    QVERIFY(getConfigField(c, "dataset.args.size").is_null());
    setConfigField(c, "dataset.args.size", 64);
    setConfigField(c, "dataset.args.mode", "train");
    QCOMPARE(getConfigField(c, "dataset.args.size"), json(64));
    QCOMPARE(getConfigField(c, "dataset.args"), (json{{"mode", "train"}, {"size", 64}}));
    setConfigField(c, "dataset.args.size", 128); // replaces, keeps the others
    QCOMPARE(c.dataset.args.size(), std::size_t{2});
    QCOMPARE(c.dataset.args.at("size"), std::string("128"));
}

void TestConfigObjectFields::textIsReadAsJsonScalarsElseAsText()
{
    RunConfig c;
    setConfigFieldFromText(c, "dataset.args.n", "42");
    setConfigFieldFromText(c, "dataset.args.rate", "0.5");
    setConfigFieldFromText(c, "dataset.args.flag", "true");
    setConfigFieldFromText(c, "dataset.args.root", "/data/my texts");
    setConfigFieldFromText(c, "dataset.args.quoted", "\"42\"");
    QCOMPARE(getConfigField(c, "dataset.args.n"), json(42));
    QCOMPARE(getConfigField(c, "dataset.args.rate"), json(0.5));
    QCOMPARE(getConfigField(c, "dataset.args.flag"), json(true));
    QCOMPARE(getConfigField(c, "dataset.args.root"), json("/data/my texts"));
    QCOMPARE(getConfigField(c, "dataset.args.quoted"), json("42"));
    // An object or array in the text is not a scalar: kept as the text it is.
    setConfigFieldFromText(c, "dataset.args.list", "[1,2]");
    QCOMPARE(getConfigField(c, "dataset.args.list"), json("[1,2]"));
    setConfigFieldFromText(c, "dataset.args", "{\"a\": 1}");
    QCOMPARE(getConfigField(c, "dataset.args"), (json{{"a", 1}}));
}

void TestConfigObjectFields::keptThroughJsonAndInTheDiff()
{
    RunConfig c;
    c.dataset.kind = DatasetKind::Python;
    setConfigField(c, "dataset.args.size", 64);
    setConfigField(c, "dataset.args.root", "/data");
    const json saved = toJson(c);
    QCOMPARE(saved["dataset"]["args"], (json{{"root", "/data"}, {"size", 64}}));
    const RunConfig back = runConfigFromJson(saved);
    QCOMPARE(back.dataset.args, c.dataset.args);
    QCOMPARE(back.dataset.kind, DatasetKind::Python);

    RunConfig other = c;
    setConfigField(other, "dataset.args.size", 32);
    const auto changes = diffConfigs(c, other);
    QCOMPARE(changes.size(), std::size_t{1});
    QCOMPARE(changes[0].field, std::string("dataset.args"));
    QVERIFY(QString::fromStdString(changes[0].after).contains(QStringLiteral("32")));
}

void TestConfigObjectFields::refusals_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("reason");
    QTest::newRow("nested object") << "dataset.args" << QByteArray(R"({"a": {"b": 1}})")
                                   << "dataset.args: \"a\": expected a string, number or boolean";
    QTest::newRow("array entry") << "dataset.args" << QByteArray(R"({"a": [1]})")
                                 << "expected a string, number or boolean, got an array";
    QTest::newRow("null entry") << "dataset.args" << QByteArray(R"({"a": null})")
                                << "expected a string, number or boolean";
    QTest::newRow("not an object")
        << "dataset.args" << QByteArray("3") << "expected an object of names and values";
    QTest::newRow("odd name") << "dataset.args" << QByteArray(R"({"a b": 1})")
                              << "'a b' is not an entry name";
    QTest::newRow("odd name by key")
        << "dataset.args.a=b" << QByteArray("1") << "is not an entry name";
    QTest::newRow("entry not scalar") << "dataset.args.a" << QByteArray(R"({"x": 1})")
                                      << "dataset.args.a: expected a string, number or boolean";
}

void TestConfigObjectFields::refusals()
{
    QFETCH(QString, key);
    QFETCH(QByteArray, value);
    QFETCH(QString, reason);
    RunConfig c;
    setConfigField(c, "dataset.args.kept", 1);
    try {
        setConfigField(c, key.toStdString(), json::parse(value.toStdString()));
        QFAIL("accepted");
    } catch (const ConfigError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(reason), e.what());
    }
    QCOMPARE(getConfigField(c, "dataset.args"), (json{{"kept", 1}})); // unchanged
}

LOADERLAB_GUILESS_TEST_MAIN(TestConfigObjectFields)
#include "test_config_object_fields.moc"
