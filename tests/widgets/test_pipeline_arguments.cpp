// The side panel's table of a pipeline file's arguments (dataset.args): shown for a
// Python pipeline file only, filled from the config, read back as the command
// line's --set reads values, a row added as the last one is used, and a bad name
// refused naming the key.

#include "core/config/config_fields.h"
#include "tests/support/test_main.h"
#include "widgets/settings/control_panel.h"

#include <QComboBox>
#include <QSignalSpy>
#include <QTableWidget>
#include <QtTest>

using namespace loaderlab;
using nlohmann::json;

class TestPipelineArguments : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shownForAPipelineFileOnly();
    void filledFromTheConfigAndReadBack();
    void aBadNameIsRefused();
};

namespace {

QTableWidget *argsTable(ControlPanel &panel)
{
    return panel.findChild<QTableWidget *>(QStringLiteral("datasetArgsTable"));
}

void setCell(QTableWidget *table, int row, int column, const QString &text)
{
    if (!table->item(row, column))
        table->setItem(row, column, new QTableWidgetItem);
    table->item(row, column)->setText(text);
}

RunConfig pipelineConfig()
{
    RunConfig c;
    c.engine = EngineKind::PyTorch;
    c.dataset.kind = DatasetKind::Python;
    c.dataset.path = "/data/my_pipeline.py";
    setConfigField(c, "dataset.args.size", 64);
    setConfigField(c, "dataset.args.root", "/data/texts");
    setConfigField(c, "dataset.args.code", "42"); // text that reads as a number
    return c;
}

} // namespace

void TestPipelineArguments::shownForAPipelineFileOnly()
{
    ControlPanel panel;
    panel.show();
    QTableWidget *table = argsTable(panel);
    QVERIFY(table);
    QVERIFY(!table->isVisible()); // the default: synthetic data
    panel.setConfig(pipelineConfig());
    QVERIFY(table->isVisible());
    auto *kinds = panel.findChild<QComboBox *>(QStringLiteral("datasetKindCombo"));
    kinds->setCurrentIndex(kinds->findData(QStringLiteral("folder")));
    QVERIFY(!table->isVisible());
}

void TestPipelineArguments::filledFromTheConfigAndReadBack()
{
    ControlPanel panel;
    panel.setConfig(pipelineConfig());
    QTableWidget *table = argsTable(panel);
    QCOMPARE(table->rowCount(), 4); // three arguments and an empty row to add one
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("code"));
    QCOMPARE(table->item(0, 1)->text(), QStringLiteral("\"42\"")); // stays text
    QCOMPARE(table->item(2, 1)->text(), QStringLiteral("64"));
    QCOMPARE(getConfigField(panel.config(), "dataset.args"),
             getConfigField(pipelineConfig(), "dataset.args"));

    QSignalSpy changed(&panel, &ControlPanel::datasetSettingsChanged);
    setCell(table, 3, 0, QStringLiteral("step"));
    setCell(table, 3, 1, QStringLiteral("forward"));
    QVERIFY(changed.count() >= 1);
    QCOMPARE(table->rowCount(), 5); // a new empty row
    setCell(table, 2, 1, QStringLiteral("128"));
    setCell(table, 1, 0, QString()); // a row without a name is left out
    const json args = getConfigField(panel.config(), "dataset.args");
    QCOMPARE(args, (json{{"code", "42"}, {"size", 128}, {"step", "forward"}}));
}

void TestPipelineArguments::aBadNameIsRefused()
{
    ControlPanel panel;
    panel.setConfig(pipelineConfig());
    QTableWidget *table = argsTable(panel);
    setCell(table, 3, 0, QStringLiteral("two words"));
    setCell(table, 3, 1, QStringLiteral("1"));
    try {
        panel.config();
        QFAIL("accepted");
    } catch (const ConfigError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(
                     QStringLiteral("'two words' is not an entry name")),
                 e.what());
    }
}

LOADERLAB_TEST_MAIN(TestPipelineArguments)
#include "test_pipeline_arguments.moc"
