// The German window has no English left: the main views under --lang de, after a
// run, with an opened run, a finished sweep (a cell shown) and each lesson chosen,
// walked widget by widget — labels, buttons, group, tab and dock titles, combo
// entries, line-edit placeholders, spin-box texts, table headers and cells, menus and
// their actions, plot axes, tick labels, legends and texts on the plots, the status
// line. The test fails naming every text that is still English, where it is shown.
//
// A text is English when
// - it is the source of a message of translations/loaderlab_de.ts that the .ts
//   translates differently: tr() gave it back untranslated (its translation is
//   unfinished, or the string was never in the .ts); or it is an unfinished
//   translation, lupdate's guess; or
// - it holds a word only English uses: a word of the .ts sources, or of the short
//   list below, that no German translation in the .ts writes the same way (German
//   capitalises its nouns: "workers" is English, "des Workers" German). Tokens
//   with a digit, a slash, a dot, an underscore, a colon inside, = or ~ are data
//   (numbers, file paths, config keys, model names) and are not read, nor are
//   commands and options quoted in a text; proper nouns and units are not English
//   words (kNames). A text that is a config key or one of a field's choices (the
//   sweep editor's axes and values, as a config file names them) is data too, and
//   so is such a name in brackets or quotes.
// Each menu's accelerators (&x) are unique within it.
// Tooltips are not checked (they are not all in the .ts yet).

#include "app/window/language.h"
#include "app/window/main_window.h"
#include "window_test_support.h"

#include "tests/support/fake_python.h"

#include "core/config/config_fields.h"
#include "core/engine/pytorch/pytorch_run.h"
#include "core/engine/run_service.h"
#include "core/lessons/lesson.h"
#include "core/sweep/sweep_analysis.h"
#include "core/sweep/sweep_records.h"
#include "tests/support/test_main.h"
#include "widgets/common/engine_text.h"
#include "widgets/experiments/experiments_view.h"
#include "widgets/experiments/sweep_axes_editor.h"
#include "widgets/experiments/sweep_text.h"
#include "widgets/lessons/lesson_panel.h"
#include "widgets/plots/qcustomplot_include.h"
#include "widgets/session/run_session.h"
#include "widgets/settings/engine_choice.h"

#include <QtTest>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QComboBox>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSpinBox>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QTableView>
#include <QTextDocument>
#include <QTreeView>
#include <QXmlStreamReader>

#include <map>
#include <set>

using namespace loaderlab;

namespace {

// Words that only English uses, for text that never went through the .ts (sentences
// made in core): checked against every German translation in the .ts by
// theWordListIsEnglishOnly, so none of them can flag a German text.
const char *const kEnglishWords[] = {
    "the",     "and",     "of",     "to",     "with",    "for",   "from",   "is",
    "are",     "not",     "than",   "when",   "each",    "every", "after",  "before",
    "wait",    "waits",   "waited", "step",   "steps",   "run",   "runs",   "running",
    "workers", "loading", "faster", "slower", "longest", "first", "now",    "done",
    "failed",  "stopped", "paused", "seen",   "spikes",  "only",  "cannot", "reads",
    "needs",   "images",  "folder", "file",   "data",    "none",
};

// Proper nouns and units: the same in both languages, never English words.
const char *const kNames[] = {"loaderlab", "pytorch", "libtorch", "dataloader", "perfetto",
                              "csv",       "json",    "png",      "svg",        "pdf",
                              "ms",        "px",      "mb",       "gb",         "python"};

// A token that carries data, not language: numbers, paths, file names, config keys.
bool isData(const QString &token)
{
    static const QRegularExpression data(QStringLiteral("[0-9/\\\\_=~@]|\\w[.:]\\w"));
    return data.match(token).hasMatch();
}

// The words of `text` (accelerator ampersands removed).
QStringList wordsOf(const QString &text)
{
    static const QRegularExpression space(QStringLiteral("\\s+"));
    static const QRegularExpression edges(QStringLiteral("^\\W+|\\W+$"));
    static const QRegularExpression inner(QStringLiteral("[-'’]"));
    // Commands and options quoted in a text are the command line's, in any language.
    static const QRegularExpression commands(
        QStringLiteral("`[^`]*`|\\bloaderlab [a-z-]+|(?<![\\w-])--?[a-z][\\w.-]*"));
    QStringList words;
    const QString plain = QString(text).remove(QLatin1Char('&')).remove(commands);
    for (QString token : plain.split(space, Qt::SkipEmptyParts)) {
        token.remove(edges);
        if (token.isEmpty() || isData(token))
            continue;
        for (const QString &word : token.split(inner, Qt::SkipEmptyParts)) {
            if (word.size() >= 2)
                words << word;
        }
    }
    return words;
}

// What the .ts holds: the sources it translates differently, every translation
// (numerus forms too), and the words of each side.
struct TsWords
{
    QSet<QString> translatedSources;
    QSet<QString> translations;
    QSet<QString> unfinished;  // lupdate's guesses ("Wartezeit p95 (ms) {95 ?}")
    QSet<QString> sourceWords; // lower case
    QSet<QString> germanWords; // as written: German nouns are capitalised ("des Workers")
};

TsWords readTsWords(const QString &path)
{
    TsWords ts;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    QXmlStreamReader xml(&file);
    QString source;
    const auto addTranslation = [&ts](const QString &text) {
        ts.translations.insert(text);
        for (const QString &word : wordsOf(text))
            ts.germanWords.insert(word);
    };
    while (!xml.atEnd()) {
        if (!xml.readNextStartElement())
            continue;
        if (xml.name() == QLatin1String("source")) {
            source = xml.readElementText();
            for (const QString &word : wordsOf(source))
                ts.sourceWords.insert(word.toLower());
        } else if (xml.name() == QLatin1String("translation")) {
            const bool finished = xml.attributes().value(QLatin1String("type")).isEmpty();
            QString singular;
            while (!xml.atEnd()) {
                const auto token = xml.readNext();
                if (token == QXmlStreamReader::Characters)
                    singular += xml.text();
                else if (token == QXmlStreamReader::StartElement)
                    addTranslation(xml.readElementText()); // a numerus form
                else if (token == QXmlStreamReader::EndElement
                         && xml.name() == QLatin1String("translation"))
                    break;
            }
            if (!finished && !singular.trimmed().isEmpty())
                ts.unfinished.insert(singular);
            if (finished && !singular.trimmed().isEmpty()) {
                addTranslation(singular);
                if (singular != source)
                    ts.translatedSources.insert(source);
            }
        }
    }
    return ts;
}

// Collects every text the window shows and says which are English.
class Walker
{
public:
    explicit Walker(const TsWords &ts)
        : m_ts(ts)
    {
        m_english = ts.sourceWords;
        for (const char *word : kEnglishWords)
            m_english.insert(QString::fromLatin1(word));
        for (const char *name : kNames)
            m_english.remove(QString::fromLatin1(name));
        for (const ConfigField &field : configFields()) {
            m_configData.insert(QString::fromUtf8(field.key.data(), field.key.size()));
            for (std::string_view choice : field.choices)
                m_configData.insert(QString::fromUtf8(choice.data(), choice.size()));
        }
    }

    void window(QMainWindow &window)
    {
        check(&window, QStringLiteral("window title"), window.windowTitle());
        for (QWidget *w : window.findChildren<QWidget *>()) {
            if (w->isVisibleTo(&window))
                widget(w);
        }
        for (QAction *action : window.menuBar()->actions())
            menuAction(&window, action);
        accelerators(window.menuBar(), window.menuBar()->actions());
    }

    int checked() const { return m_checked; }
    const std::map<QString, QString> &findings() const { return m_findings; }

private:
    void widget(QWidget *w)
    {
        if (auto *label = qobject_cast<QLabel *>(w)) {
            QString text = label->text();
            if (Qt::mightBeRichText(text)) {
                QTextDocument document;
                document.setHtml(text);
                text = document.toPlainText();
            }
            check(w, QStringLiteral("text"), text);
        }
        if (auto *button = qobject_cast<QAbstractButton *>(w))
            check(w, QStringLiteral("text"), button->text());
        if (auto *group = qobject_cast<QGroupBox *>(w))
            check(w, QStringLiteral("title"), group->title());
        if (auto *dock = qobject_cast<QDockWidget *>(w))
            check(w, QStringLiteral("title"), dock->windowTitle());
        if (auto *tabs = qobject_cast<QTabBar *>(w))
            for (int i = 0; i < tabs->count(); ++i)
                check(w, QStringLiteral("tab"), tabs->tabText(i));
        if (auto *combo = qobject_cast<QComboBox *>(w))
            for (int i = 0; i < combo->count(); ++i)
                check(w, QStringLiteral("entry"), combo->itemText(i));
        if (auto *edit = qobject_cast<QLineEdit *>(w))
            check(w, QStringLiteral("placeholder"), edit->placeholderText());
        if (auto *spin = qobject_cast<QAbstractSpinBox *>(w))
            check(w, QStringLiteral("special value"), spin->specialValueText());
        if (auto *spin = qobject_cast<QSpinBox *>(w)) {
            check(w, QStringLiteral("prefix"), spin->prefix());
            check(w, QStringLiteral("suffix"), spin->suffix());
        }
        if (auto *spin = qobject_cast<QDoubleSpinBox *>(w)) {
            check(w, QStringLiteral("prefix"), spin->prefix());
            check(w, QStringLiteral("suffix"), spin->suffix());
        }
        if (auto *bar = qobject_cast<QProgressBar *>(w); bar && bar->isTextVisible())
            check(w, QStringLiteral("text"), bar->text());
        if (auto *status = qobject_cast<QStatusBar *>(w))
            check(w, QStringLiteral("message"), status->currentMessage());
        if (auto *view = qobject_cast<QAbstractItemView *>(w);
            view && !qobject_cast<QHeaderView *>(w))
            itemView(view);
        if (auto *plot = qobject_cast<QCustomPlot *>(w))
            plotTexts(plot);
        for (QAction *action : w->actions())
            menuAction(w, action);
    }

    void itemView(QAbstractItemView *view)
    {
        QAbstractItemModel *model = view->model();
        if (!model)
            return;
        auto *table = qobject_cast<QTableView *>(view);
        auto *tree = qobject_cast<QTreeView *>(view);
        const QHeaderView *top = table  ? table->horizontalHeader()
                                 : tree ? tree->header()
                                        : nullptr;
        const auto columnShown = [&](int column) {
            return !(table && table->isColumnHidden(column))
                   && !(tree && tree->isColumnHidden(column));
        };
        for (int column = 0; column < model->columnCount(); ++column) {
            if (top && !top->isHidden() && columnShown(column))
                check(view, QStringLiteral("header"),
                      model->headerData(column, Qt::Horizontal).toString());
        }
        if (table && !table->verticalHeader()->isHidden()) {
            for (int row = 0; row < model->rowCount(); ++row)
                check(view, QStringLiteral("row header"),
                      model->headerData(row, Qt::Vertical).toString());
        }
        cells(view, model, QModelIndex(), columnShown);
    }

    template <typename Shown>
    void cells(QAbstractItemView *view, QAbstractItemModel *model, const QModelIndex &parent,
               const Shown &columnShown)
    {
        for (int row = 0; row < std::min(model->rowCount(parent), 200); ++row) {
            for (int column = 0; column < model->columnCount(parent); ++column) {
                if (!columnShown(column))
                    continue;
                const QModelIndex index = model->index(row, column, parent);
                check(view, QStringLiteral("cell"), model->data(index).toString());
                if (column == 0 && model->hasChildren(index))
                    cells(view, model, index, columnShown);
            }
        }
    }

    void plotTexts(QCustomPlot *plot)
    {
        for (QCPAxis *axis : plot->findChildren<QCPAxis *>()) {
            if (!axis->realVisibility())
                continue;
            check(plot, QStringLiteral("axis label"), axis->label());
            if (auto ticker = qSharedPointerDynamicCast<QCPAxisTickerText>(axis->ticker()))
                for (const QString &tick : ticker->ticks())
                    check(plot, QStringLiteral("tick label"), tick);
        }
        for (QCPLegend *legend : plot->findChildren<QCPLegend *>()) {
            if (!legend->realVisibility())
                continue;
            for (int i = 0; i < legend->itemCount(); ++i) {
                if (auto *item = qobject_cast<QCPPlottableLegendItem *>(legend->item(i));
                    item && item->realVisibility())
                    check(plot, QStringLiteral("legend"), item->plottable()->name());
            }
        }
        for (QCPItemText *text : plot->findChildren<QCPItemText *>()) {
            if (text->realVisibility())
                check(plot, QStringLiteral("text on the plot"), text->text());
        }
        for (QCPTextElement *text : plot->findChildren<QCPTextElement *>()) {
            if (text->realVisibility())
                check(plot, QStringLiteral("title"), text->text());
        }
    }

    void menuAction(QObject *where, QAction *action)
    {
        if (action->isSeparator() || !action->isVisible())
            return;
        check(where, QStringLiteral("action"), action->text());
        if (QMenu *menu = action->menu()) {
            check(menu, QStringLiteral("title"), menu->title());
            for (QAction *entry : menu->actions())
                menuAction(menu, entry);
            accelerators(menu, menu->actions());
        }
    }

    // Two entries of one menu with the same &x: the key reaches only the first.
    void accelerators(const QWidget *menu, const QList<QAction *> &actions)
    {
        static const QRegularExpression mnemonic(QStringLiteral("(?<!&)&([^&\\s])"));
        std::map<QString, QString> taken;
        for (const QAction *action : actions) {
            if (action->isSeparator() || !action->isVisible())
                continue;
            const auto match = mnemonic.match(action->text());
            if (!match.hasMatch())
                continue;
            const QString key = match.captured(1).toLower();
            if (taken.count(key))
                m_findings[QStringLiteral("«%1» and «%2»").arg(taken[key], action->text())] =
                    QStringLiteral("the same accelerator &%1 in one menu (%2)")
                        .arg(key, place(menu));
            else
                taken[key] = action->text();
        }
    }

    // Where a text is: the object's class and the names of it and its named parents.
    static QString place(const QObject *object)
    {
        QStringList names;
        for (const QObject *o = object; o && names.size() < 3; o = o->parent()) {
            if (!o->objectName().isEmpty() && !o->objectName().startsWith(QLatin1String("qt_")))
                names.prepend(o->objectName());
        }
        return QString::fromLatin1(object->metaObject()->className()) + QLatin1Char(' ')
               + names.join(QLatin1Char('/'));
    }

    void check(const QObject *object, const QString &what, const QString &text)
    {
        if (text.trimmed().isEmpty() || m_configData.contains(text))
            return;
        ++m_checked;
        QString why;
        if (m_ts.translatedSources.contains(text) && !m_ts.translations.contains(text))
            why = QStringLiteral("the .ts translates it, tr() did not");
        else if (m_ts.unfinished.contains(text))
            why = QStringLiteral("an unfinished translation");
        QStringList english;
        for (const QString &word : wordsOf(withoutKeys(text)))
            if (isEnglish(word) && !english.contains(word))
                english << word;
        if (why.isEmpty() && !english.isEmpty())
            why = QStringLiteral("English: ") + english.join(QStringLiteral(", "));
        if (why.isEmpty())
            return;
        const QString key = QStringLiteral("«%1»").arg(text);
        if (!m_findings.count(key))
            m_findings[key] = QStringLiteral("%1 (%2 of %3)").arg(why, what, place(object));
    }

    // `text` without the config keys and choices it names in brackets or quotes:
    // "Geräte (devices)", "keine Datensätze der Art „tensor“".
    QString withoutKeys(QString text) const
    {
        static const QRegularExpression named(
            QStringLiteral("\\(([\\w.-]+)\\)|„([\\w.-]+)“|\"([\\w.-]+)\""));
        for (const auto &match : named.globalMatch(QString(text))) {
            const QString name = match.captured(1) + match.captured(2) + match.captured(3);
            if (m_configData.contains(name))
                text.remove(match.captured(0));
        }
        return text;
    }

    // A word of the English sources (in any case) that no German translation writes
    // so: "workers" is English, "Workers" German ("die Spur des Workers").
    bool isEnglish(const QString &word) const
    {
        return m_english.contains(word.toLower()) && !m_ts.germanWords.contains(word);
    }

    const TsWords &m_ts;
    QSet<QString> m_english;               // lower case
    QSet<QString> m_configData;            // config keys and choices
    std::map<QString, QString> m_findings; // text -> why and where, once per text
    int m_checked = 0;
};

} // namespace

class TestGermanUi : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void englishWordingIsCores();
    void theWordListIsEnglishOnly();
    void theMainViewsHaveNoEnglish();
    void thePyTorchEngineIsGerman();

private:
    // Lists what `walker` found (each on a line of its own: a QVERIFY2 message is
    // cut short); false when it found any.
    static bool report(const Walker &walker);

    QTemporaryDir m_dir;
    QString m_run;   // a recorded run's CSV
    QString m_sweep; // a finished 2 x 2 sweep's folder
    // Stand-ins for the PyTorch engine's Python: one without torch, one with.
    QString m_withoutTorch;
    QString m_withTorch;
    TsWords m_ts;
};

void TestGermanUi::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("LoaderLabTests"));
    m_ts = readTsWords(qEnvironmentVariable("LOADERLAB_SOURCE_DIR")
                       + QStringLiteral("/translations/loaderlab_de.ts"));
    QVERIFY(m_ts.translations.size() > 400);

    // A run recorded as `loaderlab run --csv --json` writes it, for File → Open run.
    const QString base = m_dir.filePath(QStringLiteral("recorded"));
    RunService service;
    service.start(windowtest::fastConfig(3, 16 * 30),
                  RunOutputs{(base + QStringLiteral(".csv")).toStdString(),
                             (base + QStringLiteral(".json")).toStdString(),
                             {}});
    service.wait();
    service.writeOutputs(service.report());
    m_run = base + QStringLiteral(".csv");
    // Python's own message is Python's: a neutral one, so only LoaderLab's words show.
    m_withoutTorch = faketest::writeFakePython(
        m_dir.path(), QStringLiteral("python-without-torch"), QString(),
        QStringLiteral("sys.stderr.write('ModuleNotFoundError: torch\\n'); sys.exit(1)"));
    // Runs as the engine: 4 batches of 16 samples, then the end.
    m_withTorch = faketest::writeFakePython(
        m_dir.path(), QStringLiteral("python-with-torch"),
        QStringLiteral("emit(batch(3))\nemit({'type': 'end', 'batches': 4})"));
    QVERIFY(!m_withoutTorch.isEmpty() && !m_withTorch.isEmpty());
}

bool TestGermanUi::report(const Walker &walker)
{
    for (const auto &[text, why] : walker.findings())
        qWarning().noquote() << text + QStringLiteral(": ") + why;
    return walker.findings().empty();
}

void TestGermanUi::englishWordingIsCores()
{
    // Where the window words core's data itself (engine refusals, the sweep's
    // recommendation), its English is core's, word for word: the command line and
    // the untranslated window say the same. (No translator is installed yet.)
    const auto config = [](EngineKind engine, auto change) {
        RunConfig c;
        c.engine = engine;
        change(c);
        return c;
    };
    const RunConfig refused[] = {
        config(EngineKind::PyTorch, [](RunConfig &c) { c.dataset.kind = DatasetKind::Idx; }),
        config(EngineKind::PyTorch, [](RunConfig &c) { c.dataset.kind = DatasetKind::Python; }),
        config(EngineKind::PyTorch, [](RunConfig &c) { c.consumer.kind = ConsumerKind::Model; }),
        config(EngineKind::PyTorch,
               [](RunConfig &c) { c.loader.strategy = Strategy::SampleParallel; }),
        config(EngineKind::PyTorch,
               [](RunConfig &c) {
                   c.devices = 2;
                   c.syncDevices = false;
               }),
        config(EngineKind::LoaderLab,
               [](RunConfig &c) {
                   c.dataset.kind = DatasetKind::Python;
                   c.dataset.path = "pipeline.py";
               }),
    };
    std::set<EngineProblem> kinds;
    for (const RunConfig &c : refused) {
        kinds.insert(engineProblemKind(c));
        QVERIFY(!enginetext::problem(c).isEmpty());
        QCOMPARE(enginetext::problem(c), QString::fromStdString(engineProblem(c)));
    }
    QCOMPARE(kinds.size(), std::size_t{5}); // every problem but None
    QVERIFY(enginetext::problem(RunConfig()).isEmpty());
    using Result = PythonCheck::Result;
    for (const PythonCheck &check :
         {PythonCheck{Result::Ok, "python3", {}, 30},
          PythonCheck{Result::CannotImport, "py", {}, 30},
          PythonCheck{Result::CannotImport, "py", "ModuleNotFoundError: torch", 30},
          PythonCheck{Result::TimedOut, "py", {}, 2.5}, PythonCheck{Result::Stopped, "py", {}, 30},
          PythonCheck{Result::CannotStart, "py", "cannot start py: no such file", 30}})
        QCOMPARE(enginetext::pythonProblem(check), QString::fromStdString(pythonCheckText(check)));

    // A finished 2 x 2 sweep (the German window shows it later).
    m_sweep = m_dir.filePath(QStringLiteral("sweep"));
    {
        ExperimentsView view;
        view.setConfigSource([] { return windowtest::fastConfig(1, 512); });
        auto *editor = childNamed<SweepAxesEditor>(&view, "sweepAxesEditor");
        editor->setDefinition({});
        QVERIFY(editor->setAxisValues("loader.num_workers", {1, 2}));
        QVERIFY(editor->setAxisValues("loader.batch_size", {16, 32}));
        editor->setBudget({SweepBudget::Kind::Samples, 320});
        editor->setRepeats(1);
        view.setResultsFolder(m_sweep);
        QString error;
        QVERIFY2(view.start(&error), qPrintable(error));
        QTRY_VERIFY_WITH_TIMEOUT(!view.running(), 60'000);
    }
    SweepDefinition definition;
    const auto records = readSweepRecords(m_sweep.toStdString(), &definition);
    const SweepAnalysis analysis = analyzeSweep(definition, records);
    QCOMPARE(analysis.recommendations.size(), std::size_t{1});
    // Word for word, but for where to set the repeats: the window's field, not the
    // command line's flag.
    for (const SweepRecommendation &rec : analysis.recommendations)
        QCOMPARE(sweeptext::recommendation(analysis, rec),
                 QString::fromStdString(rec.sentence)
                     .replace(QStringLiteral("use --repeats"),
                              QStringLiteral("set Repeats to 2 or more")));
    for (const SweepCellStats &cell : analysis.cells)
        for (std::size_t a = 0; a < analysis.keys.size(); ++a)
            QCOMPARE(sweeptext::value(analysis.keys[a], cell.values[a]),
                     QString::fromStdString(sweepValueText(analysis.keys[a], cell.values[a])));
}

void TestGermanUi::theWordListIsEnglishOnly()
{
    QStringList german;
    for (const char *word : kEnglishWords) {
        if (m_ts.germanWords.contains(QString::fromLatin1(word)))
            german << QString::fromLatin1(word);
    }
    QVERIFY2(german.isEmpty(), qPrintable(german.join(QStringLiteral(", "))));
    // The test reads words as it should: data is skipped, words are split.
    QCOMPARE(wordsOf(QStringLiteral("&Open run… ~/data/a.csv loader.num_workers resnet18 "
                                    "Input-bound `loaderlab x` loaderlab sweep --repeats")),
             QStringList({QStringLiteral("Open"), QStringLiteral("run"), QStringLiteral("Input"),
                          QStringLiteral("bound")}));
}

void TestGermanUi::theMainViewsHaveNoEnglish()
{
    language::install(*QCoreApplication::instance(), QStringLiteral("de"));
    QCOMPARE(MainWindow::tr("&File"), QStringLiteral("&Datei"));
    Walker walker(m_ts);
    qputenv("LOADERLAB_PYTHON", m_withoutTorch.toUtf8());
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // The engine choice says why the PyTorch engine cannot run here.
    QTRY_VERIFY_WITH_TIMEOUT(window.engineChoice()->probed(), 30'000);
    QVERIFY(!window.engineChoice()->pytorchAvailable());

    // A short run of synthetic data: the stats panel's figures and advice appear.
    window.applyConfig(windowtest::fastConfig(2, 16 * 40));
    QVERIFY(window.startRun());
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->trace()->size() >= 30, 30'000);
    window.session()->stop();
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->finished(), 30'000);
    // A recorded run: a second row in the Runs list and in the figures table.
    QString error;
    QVERIFY2(window.openRun(m_run, QString(), &error), qPrintable(error));
    QTest::qWait(100); // a refresh of the plots
    walker.window(window);

    // The finished 2 x 2 sweep with a cell shown: the recommendation, the heatmap,
    // the line plots, the cell table and the cell's own plots.
    window.showExperiments(true);
    ExperimentsView *sweep = window.experimentsView();
    QVERIFY2(sweep->resume(m_sweep, &error), qPrintable(error)); // nothing left to run
    QTRY_VERIFY_WITH_TIMEOUT(!sweep->running(), 30'000);
    QVERIFY2(sweep->showCell(0, &error), qPrintable(error));
    QTest::qWait(100);
    walker.window(window);
    window.showExperiments(false);

    // Each lesson chosen in the Lessons tab: its title, explanation, steps.
    window.showLessons(true);
    for (const Lesson &lesson : lessons()) {
        QVERIFY(window.lessonPanel()->chooseLesson(QString::fromStdString(lesson.name)));
        walker.window(window);
    }

    QVERIFY(walker.checked() > 300);
    QVERIFY2(report(walker), qPrintable(QStringLiteral("%1 English texts in the German window "
                                                       "(listed above)")
                                            .arg(walker.findings().size())));
}

void TestGermanUi::thePyTorchEngineIsGerman()
{
    // The PyTorch engine chosen: what it cannot run says so, in the controls and
    // in each lesson it cannot follow.
    Walker walker(m_ts);
    qputenv("LOADERLAB_PYTHON", m_withTorch.toUtf8());
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    QTRY_VERIFY_WITH_TIMEOUT(window.engineChoice()->probed(), 30'000);
    window.engineChoice()->choose(EngineKind::PyTorch);
    QTRY_VERIFY(window.engineChoice()->pytorchChosen());
    walker.window(window); // before a run: what each plot will show
    // A run on the PyTorch engine: its description in the status line.
    RunConfig config = windowtest::fastConfig(0, 64); // the fake's batches: worker -1
    config.engine = EngineKind::PyTorch;
    window.applyConfig(config);
    QVERIFY(window.startRun());
    QTRY_VERIFY_WITH_TIMEOUT(window.session()->finished(), 30'000);
    QTest::qWait(100);
    walker.window(window);
    window.showLessons(true);
    for (const Lesson &lesson : lessons()) {
        QVERIFY(window.lessonPanel()->chooseLesson(QString::fromStdString(lesson.name)));
        walker.window(window);
    }
    QVERIFY(walker.checked() > 100);
    QVERIFY2(report(walker), qPrintable(QStringLiteral("%1 English texts with the PyTorch engine "
                                                       "(listed above)")
                                            .arg(walker.findings().size())));
}

LOADERLAB_TEST_MAIN(TestGermanUi)
#include "test_german_ui.moc"
