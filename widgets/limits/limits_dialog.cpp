#include "widgets/limits/limits_dialog.h"

#include "widgets/common/background_task.h"
#include "widgets/common/figure_text.h"
#include "widgets/plots/plot_export.h"
#include "widgets/plots/qcustomplot_include.h"

#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace loaderlab {
namespace {

// The y axis turns logarithmic where the top is this many times the lowest line.
constexpr double kLogRange = 20.0;
// Straight pieces of a rising ceiling drawn on a logarithmic axis.
constexpr int kCurveSteps = 64;

QString stageName(CeilingKind kind)
{
    switch (kind) {
    case CeilingKind::Storage:
        return LimitsDialog::tr("storage");
    case CeilingKind::Decode:
        return LimitsDialog::tr("decode");
    case CeilingKind::Handover:
        return LimitsDialog::tr("hand-over");
    case CeilingKind::Step:
        return LimitsDialog::tr("step");
    case CeilingKind::Preprocessed:
        return LimitsDialog::tr("preprocessed");
    }
    return {};
}

// Sentence case, for the start of the binding sentence.
QString stageSubject(CeilingKind kind)
{
    switch (kind) {
    case CeilingKind::Storage:
        return LimitsDialog::tr("Reading the data");
    case CeilingKind::Decode:
        return LimitsDialog::tr("The decode");
    case CeilingKind::Handover:
        return LimitsDialog::tr("The loader's hand-over");
    case CeilingKind::Step:
        return LimitsDialog::tr("The step");
    case CeilingKind::Preprocessed:
        return LimitsDialog::tr("Preprocessed tensors");
    }
    return {};
}

QString liftText(const Ceiling &c, const CeilingReport &report)
{
    switch (c.kind) {
    case CeilingKind::Storage:
        return LimitsDialog::tr("faster storage, fewer bytes a sample, or data that fits in the "
                                "page cache");
    case CeilingKind::Decode:
        return LimitsDialog::tr("more cores (%1 samples/s each), the fast decode for large "
                                "photos, smaller inputs, or preprocessing")
            .arg(figuretext::number(
                report.freeCores > 0.0 ? c.samplesPerSecond / report.freeCores : 0.0, 0));
    case CeilingKind::Handover:
        return LimitsDialog::tr("bigger batches: the cost is per batch");
    case CeilingKind::Step:
        return LimitsDialog::tr("a faster step: half precision, channels-last, a smaller model, "
                                "a faster device");
    case CeilingKind::Preprocessed:
        return LimitsDialog::tr("faster storage: a preprocessed sample is bigger than its JPEG");
    }
    return {};
}

} // namespace

LimitsDialog::LimitsDialog(std::function<RunConfig()> config,
                           std::function<std::vector<RooflinePoint>()> points, QWidget *parent)
    : QDialog(parent)
    , m_config(std::move(config))
    , m_points(std::move(points))
    , m_task(new BackgroundTask(this))
{
    setWindowTitle(tr("Limits of this machine"));
    auto *layout = new QVBoxLayout(this);
    auto *intro = new QLabel(
        tr("How many samples a second each stage of the input pipeline could give on this "
           "machine, with the side panel's data and settings, a few seconds each. A run going "
           "on takes cores from the measurement: stop it first for the machine's own ceilings."));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Seconds per stage")));
    m_seconds = new QDoubleSpinBox;
    m_seconds->setObjectName(QStringLiteral("limitsSecondsSpin"));
    m_seconds->setRange(0.5, 60.0);
    m_seconds->setValue(2.0);
    m_seconds->setDecimals(1);
    controls->addWidget(m_seconds);
    m_measureButton = new QPushButton(tr("&Measure"));
    m_measureButton->setObjectName(QStringLiteral("limitsMeasureButton"));
    m_stopButton = new QPushButton(tr("S&top"));
    m_stopButton->setObjectName(QStringLiteral("limitsStopButton"));
    m_exportButton = new QPushButton(tr("&Export plot…"));
    m_exportButton->setObjectName(QStringLiteral("limitsExportButton"));
    controls->addWidget(m_measureButton);
    controls->addWidget(m_stopButton);
    m_progress = new QProgressBar;
    m_progress->setRange(0, 5);
    m_progress->setValue(0);
    controls->addWidget(m_progress, 1);
    controls->addWidget(m_exportButton);
    layout->addLayout(controls);
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("limitsStatusLabel"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    m_plot = new QCustomPlot;
    m_plot->setObjectName(QStringLiteral("rooflinePlot"));
    m_plot->setMinimumHeight(220);
    m_plot->xAxis->setLabel(tr("cores loading (workers)"));
    m_plot->yAxis->setLabel(tr("samples/s"));
    m_plot->legend->setVisible(true);
    m_plot->legend->setBrush(QColor(255, 255, 255, 200)); // the lines show through
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
    layout->addWidget(m_plot, 1);

    m_binding = new QLabel;
    m_binding->setObjectName(QStringLiteral("limitsBindingLabel"));
    m_binding->setWordWrap(true);
    m_binding->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_binding);
    m_predicted = new QLabel;
    m_predicted->setObjectName(QStringLiteral("limitsPredictedLabel"));
    m_predicted->setWordWrap(true);
    m_predicted->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_predicted);

    m_table = new QTableWidget(0, 3);
    m_table->setObjectName(QStringLiteral("limitsTable"));
    m_table->setHorizontalHeaderLabels({tr("Ceiling"), tr("Samples/s"), tr("What lifts it")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    m_table->verticalHeader()->setVisible(false);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setMaximumHeight(170);
    layout->addWidget(m_table);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_measureButton, &QPushButton::clicked, this, &LimitsDialog::measure);
    connect(m_stopButton, &QPushButton::clicked, this, &LimitsDialog::stop);
    connect(m_exportButton, &QPushButton::clicked, this, &LimitsDialog::exportPlot);
    setMeasuring(false);
    m_exportButton->setEnabled(false);
    m_status->setText(tr("Measure to see the ceilings of the side panel's settings."));
    resize(900, 680);
}

LimitsDialog::~LimitsDialog() = default; // the task stops its work, never waits for it

void LimitsDialog::setMeasuring(bool measuring)
{
    m_measureButton->setEnabled(!measuring);
    m_seconds->setEnabled(!measuring);
    m_stopButton->setEnabled(measuring);
}

void LimitsDialog::measure()
{
    CeilingOptions options;
    options.secondsEach = m_seconds->value();
    const RunConfig config = m_config();
    setMeasuring(true);
    m_progress->setValue(0);
    m_status->setText(tr("Opening the dataset…"));
    m_task->start(
        [this, config, options](const BackgroundTask::Control &control) mutable {
            options.stop = control.stopToken();
            // `this` only in the posted calls, which run on the window's thread.
            options.progress = [this, &control](CeilingKind kind, int done, int total) {
                control.post([this, kind, done, total] {
                    m_progress->setRange(0, total);
                    m_progress->setValue(done);
                    m_status->setText(tr("Measuring the %1 ceiling (%2 of %3)…")
                                          .arg(stageName(kind))
                                          .arg(done + 1)
                                          .arg(total));
                });
            };
            CeilingReport report = measureCeilings(config, options);
            return std::make_pair(std::move(report), control.stopRequested());
        },
        [this](std::pair<CeilingReport, bool> result) {
            setMeasuring(false);
            m_progress->setValue(m_progress->maximum());
            m_status->setText(
                result.second
                    ? tr("Stopped: the ceilings measured so far.")
                    : tr("Measured on %1.").arg(QString::fromStdString(result.first.dataset)));
            showReport(result.first);
            Q_EMIT measureEnded();
        },
        [this](const QString &error) {
            setMeasuring(false);
            m_status->setText(tr("Cannot measure: %1").arg(error));
            Q_EMIT measureEnded();
        });
}

void LimitsDialog::stop()
{
    m_task->requestStop();
    m_status->setText(tr("Stopping…"));
}

void LimitsDialog::showReport(const CeilingReport &report)
{
    m_report = report;
    m_table->setRowCount(0);
    for (const Ceiling &c : report.ceilings) {
        const int row = m_table->rowCount();
        m_table->insertRow(row);
        auto *name = new QTableWidgetItem(stageName(c.kind));
        auto *rate = new QTableWidgetItem(c.measured() ? figuretext::number(c.samplesPerSecond, 0)
                                                       : QStringLiteral("–"));
        rate->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        auto *lift = new QTableWidgetItem(c.measured() ? liftText(c, report) : QString());
        // How it was measured, or why it was not, as core words it.
        for (QTableWidgetItem *item : {name, rate, lift})
            item->setToolTip(QString::fromStdString(c.basis));
        m_table->setItem(row, 0, name);
        m_table->setItem(row, 1, rate);
        m_table->setItem(row, 2, lift);
    }
    m_binding->setText(bindingText());
    m_predicted->setText(predictedText());
    m_exportButton->setEnabled(true);
    draw();
}

QString LimitsDialog::bindingText() const
{
    const CeilingReport &r = *m_report;
    const Ceiling *loader = r.loaderBinding();
    if (!loader)
        return tr("No stage of the loader could be measured (hover over the table for why).");
    QString text = tr("%1 binds the loader at %2 samples/s, with %3 of %4 cores free to it.")
                       .arg(stageSubject(loader->kind),
                            figuretext::number(loader->samplesPerSecond, 0),
                            figuretext::number(r.freeCores, 1))
                       .arg(r.cores);
    if (const Ceiling *step = r.find(CeilingKind::Step); step && step->measured()) {
        text += QLatin1Char(' ');
        text += r.jobBinding() == step
                    ? tr("The step alone takes %1: it binds the job, and a faster loader would "
                         "not speed it up.")
                          .arg(figuretext::number(step->samplesPerSecond, 0))
                    : tr("The step alone could take %1.")
                          .arg(figuretext::number(step->samplesPerSecond, 0));
    }
    return text;
}

QString LimitsDialog::predictedText() const
{
    QStringList items;
    for (const PredictedLift &lift : m_report->predicted) {
        QString name;
        switch (lift.kind) {
        case LiftKind::AsSet:
            name = tr("as set (%n worker(s))", nullptr, lift.workers);
            break;
        case LiftKind::MoreWorkers:
            name = tr("%n worker(s)", nullptr, lift.workers);
            break;
        case LiftKind::MoreCores:
            name = tr("a core more, %n worker(s)", nullptr, lift.workers);
            break;
        case LiftKind::Preprocessed:
            name = tr("preprocessed tensors");
            break;
        case LiftKind::FasterStep:
            name = tr("a step twice as fast");
            break;
        }
        items << (lift.storageBound ? tr("%1 %2 (storage binds)") : tr("%1 %2"))
                     .arg(name, figuretext::number(lift.samplesPerSecond, 0));
    }
    if (items.isEmpty())
        return {};
    return tr("The job, predicted by the loader model from these ceilings, in samples/s: %1.")
        .arg(items.join(QStringLiteral("; ")));
}

void LimitsDialog::draw()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    if (!m_report)
        return;
    const CeilingReport &report = *m_report;
    const std::vector<RooflinePoint> points = m_points ? m_points() : std::vector<RooflinePoint>{};
    const SvgPlotSpec spec = rooflinePlot(report, points);
    // The spec's series: the measured ceilings in order, then the runs.
    std::vector<const Ceiling *> measured;
    for (const Ceiling &c : report.ceilings)
        if (c.measured())
            measured.push_back(&c);
    // Where the ceilings and runs span orders of magnitude (a step far below the
    // decode), the y axis is logarithmic, as rooflines usually are, from half the
    // lowest flat ceiling or run.
    double low = spec.yMax;
    for (const SvgSeries &s : spec.series)
        if (s.style == SvgSeries::Style::Dots || s.points.front().second == s.points.back().second)
            for (const auto &point : s.points)
                if (point.second > 0.0)
                    low = std::min(low, point.second);
    const bool logY = spec.yMax > 0.0 && low > 0.0 && spec.yMax / low > kLogRange;
    const double bottom = logY ? low / 2.0 : 0.0;
    double xMax = 1.0;
    for (std::size_t i = 0; i < spec.series.size(); ++i) {
        const SvgSeries &s = spec.series[i];
        QCPGraph *graph = m_plot->addGraph();
        QVector<double> xs;
        QVector<double> ys;
        const auto &[lastX, lastY] = s.points.back();
        if (logY && s.points.front().second <= 0.0 && lastX > 0.0 && lastY > 0.0) {
            // A line rising from 0 (y = rate x) is a curve on a logarithmic axis: drawn
            // in steps from where it enters the axis.
            const double rate = lastY / lastX;
            const double first = bottom / rate;
            for (int k = 0; k <= kCurveSteps; ++k) {
                const double x = first + (lastX - first) * k / kCurveSteps;
                xs << x;
                ys << rate * x;
            }
        } else {
            for (const auto &[x, y] : s.points) {
                xs << x;
                ys << y;
            }
        }
        xMax = std::max(xMax, lastX);
        graph->setData(xs, ys, true);
        QPen pen(QColor(QString::fromStdString(s.colour)));
        pen.setWidthF(2.0);
        if (s.dashed)
            pen.setStyle(Qt::DashLine);
        graph->setPen(pen);
        if (s.style == SvgSeries::Style::Dots) {
            graph->setLineStyle(QCPGraph::lsNone);
            graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, pen.color(), 8));
            graph->setName(points.size() == 1 ? QString::fromStdString(points.front().label)
                                              : tr("runs"));
            continue;
        }
        const Ceiling &c = *measured[std::min(i, measured.size() - 1)];
        const bool above = aboveTheRoofline(c, report);
        const bool perCore = c.kind == CeilingKind::Decode && report.freeCores > 0.0;
        graph->setName(
            perCore ? tr("%1 %2/core")
                          .arg(stageName(c.kind),
                               figuretext::number(c.samplesPerSecond / report.freeCores, 0))
            : above ? tr("%1 %2 (above)")
                          .arg(stageName(c.kind), figuretext::number(c.samplesPerSecond, 0))
                    : QStringLiteral("%1 %2").arg(stageName(c.kind),
                                                  figuretext::number(c.samplesPerSecond, 0)));
    }
    for (const SvgMarker &marker : spec.markers) {
        auto *line = new QCPItemStraightLine(m_plot);
        line->point1->setCoords(marker.x, logY ? bottom : 0.0);
        line->point2->setCoords(marker.x, logY ? bottom * 10.0 : 1.0);
        line->setPen(QPen(Qt::gray, 1.0, marker.faint ? Qt::DotLine : Qt::DashLine));
        auto *label = new QCPItemText(m_plot);
        label->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
        // At the foot of the line: the legend has the top right.
        label->position->setCoords(marker.x, 0.97);
        label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
        const bool allFree = spec.markers.size() == 1;
        label->setText(!marker.faint ? tr("%1 free").arg(figuretext::number(report.freeCores, 1))
                       : allFree     ? tr("%1 cores, all free").arg(report.cores)
                                     : tr("%1 cores").arg(report.cores));
        label->setColor(Qt::darkGray);
    }
    m_plot->xAxis->setRange(0.0, xMax);
    m_plot->yAxis->setScaleType(logY ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
    m_plot->yAxis->setTicker(logY ? QSharedPointer<QCPAxisTicker>(new QCPAxisTickerLog)
                                  : QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    m_plot->yAxis->setRange(bottom, spec.yMax > 0.0 ? spec.yMax * (logY ? 1.5 : 1.0) : 1.0);
    m_plot->replot();
}

void LimitsDialog::exportPlot()
{
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Export roofline"), QStringLiteral("roofline.png"),
        tr("PNG image (*.png);;SVG image (*.svg);;PDF document (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!loaderlab::exportPlot(m_plot, path, PlotExportOptions::stored(), m_binding->text(), {},
                               &error))
        QMessageBox::warning(this, tr("Export roofline"), error);
    else
        m_status->setText(tr("Wrote %1").arg(path));
}

} // namespace loaderlab
