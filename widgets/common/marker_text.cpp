#include "widgets/common/marker_text.h"

#include <QCoreApplication>

#include <vector>

namespace loaderlab::markertext {
namespace {

QString value(const loaderlab::ConfigField *field, const std::string &text)
{
    if (field && field->type == loaderlab::FieldType::Boolean)
        return text == "true" ? QCoreApplication::translate("MarkerText", "on")
                              : QCoreApplication::translate("MarkerText", "off");
    return QString::fromStdString(text);
}

} // namespace

QString fieldLabel(const loaderlab::ConfigField &field)
{
    return QCoreApplication::translate("ConfigField", std::string(field.label).c_str());
}

QString fieldHelp(const loaderlab::ConfigField &field)
{
    return QCoreApplication::translate("ConfigField", std::string(field.help).c_str());
}

QString changes(const std::vector<loaderlab::FieldChange> &changes)
{
    QStringList parts;
    for (const auto &change : changes) {
        const loaderlab::ConfigField *field = loaderlab::findConfigField(change.field);
        const QString label = field ? fieldLabel(*field) : QString::fromStdString(change.field);
        parts << QStringLiteral("%1 %2 → %3")
                     .arg(label, value(field, change.before), value(field, change.after));
    }
    return parts.join(QStringLiteral(", "));
}

QString marker(const loaderlab::TraceMarker &marker)
{
    using loaderlab::MarkerKind;
    const QString detail = QString::fromStdString(marker.detail);
    switch (marker.kind) {
    case MarkerKind::Reconfigure:
        return changes(marker.changes);
    case MarkerKind::Pause:
        return QCoreApplication::translate("MarkerText", "paused");
    case MarkerKind::Resume:
        return QCoreApplication::translate("MarkerText", "resumed");
    case MarkerKind::Epoch:
        return QCoreApplication::translate("MarkerText", "epoch %1").arg(detail);
    case MarkerKind::Autotune:
        return detail.isEmpty() ? QCoreApplication::translate("MarkerText", "autotune: %1")
                                      .arg(changes(marker.changes))
                                : QCoreApplication::translate("MarkerText", "autotune: %1 (%2)")
                                      .arg(changes(marker.changes), detail);
    case MarkerKind::Replay:
        return QCoreApplication::translate("MarkerText", "replay of the %1 batches kept")
            .arg(detail);
    case MarkerKind::Lesson:
    case MarkerKind::Note:
        return detail;
    }
    return detail;
}

bool numbered(const loaderlab::TraceMarker &marker)
{
    return marker.kind != loaderlab::MarkerKind::Epoch;
}

QString shortLabel(const loaderlab::TraceMarker &marker, int number)
{
    if (!numbered(marker))
        return QCoreApplication::translate("MarkerText", "e%1", "a crowded plot's epoch N")
            .arg(QString::fromStdString(marker.detail));
    return QStringLiteral("#%1").arg(number);
}

QString numberedText(const loaderlab::TraceMarker &marker, int number)
{
    if (!numbered(marker))
        return markertext::marker(marker);
    return QStringLiteral("#%1 %2").arg(number).arg(markertext::marker(marker));
}

} // namespace loaderlab::markertext
