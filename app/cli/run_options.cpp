#include "app/cli/run_options.h"

#include "app/cli/cli.h"

#include <QRegularExpression>

#include <filesystem>

#include "core/config/config_fields.h"
#include "core/config/engine_config.h"
#include "core/config/run_config_json.h"

namespace loaderlab::cli {
namespace {

using loaderlab::ConfigField;
using loaderlab::FieldType;
using loaderlab::RunConfig;

QString text(std::string_view view)
{
    return QString::fromUtf8(view.data(), static_cast<qsizetype>(view.size()));
}

QString helpFor(const ConfigField &field, const RunConfig &defaults)
{
    QString help = text(field.help);
    if (field.type == FieldType::Boolean && field.flagSetsFalse) // the field's help, negated
        help = QStringLiteral("Turns off: ") + help;
    if (field.type == FieldType::Boolean)
        return help
               + QStringLiteral(" [sets %1 to %2]")
                     .arg(text(field.key),
                          field.flagSetsFalse ? QStringLiteral("false") : QStringLiteral("true"));
    const std::string value = loaderlab::configValueText(field, field.get(defaults));
    help += QStringLiteral(" [%1; default: %2")
                .arg(text(field.key), text(value.empty() ? "none" : value));
    if (field.type == FieldType::Choice)
        help += QStringLiteral("; %1").arg(text(loaderlab::configFieldRange(field)));
    return help + QLatin1Char(']');
}

std::string flagName(const ConfigField &field)
{
    return "--" + std::string(field.flag);
}

// Names the option and the key: "--workers: loader.num_workers: 2000 is out of range (0..1024)".
[[noreturn]] void rethrowFor(const std::string &option, const std::exception &e)
{
    throw std::invalid_argument(option + ": " + e.what());
}

} // namespace

QCommandLineOption configFieldOption(const ConfigField &field)
{
    const RunConfig defaults;
    QCommandLineOption option(text(field.flag), helpFor(field, defaults));
    if (field.type != FieldType::Boolean)
        option.setValueName(text(field.valueName));
    return option;
}

bool applyConfigFieldOption(const QCommandLineParser &p, const ConfigField &field, RunConfig &c)
{
    if (field.flag.empty() || !p.isSet(text(field.flag)))
        return false;
    try {
        if (field.type == FieldType::Boolean)
            loaderlab::setConfigField(c, field.key, !field.flagSetsFalse);
        else if (field.type == FieldType::Path)
            loaderlab::setConfigField(c, field.key, pathFromArgument(p.value(text(field.flag))));
        else
            loaderlab::setConfigFieldFromText(c, field.key,
                                              p.value(text(field.flag)).toStdString());
    } catch (const std::exception &e) {
        rethrowFor(flagName(field), e);
    }
    return true;
}

void addRunOptions(QCommandLineParser &parser)
{
    parser.addOption({QStringLiteral("config"),
                      QStringLiteral("JSON config file; flags given as well override it"),
                      QStringLiteral("file")});
    for (const ConfigField &field : loaderlab::configFields()) {
        if (!field.flag.empty())
            parser.addOption(configFieldOption(field));
    }
    parser.addOption({QStringLiteral("set"),
                      QStringLiteral("set any config field by its key path, e.g. "
                                     "--set loader.num_workers=4 (repeatable; applied last)"),
                      QStringLiteral("key=value")});
}

void applySetOptions(const QCommandLineParser &parser, RunConfig &config)
{
    for (const QString &assignment : parser.values(QStringLiteral("set"))) {
        const qsizetype eq = assignment.indexOf(QLatin1Char('='));
        if (eq <= 0)
            throw std::invalid_argument("--set: expected KEY=VALUE, got '"
                                        + assignment.toStdString() + "'");
        try {
            loaderlab::setConfigFieldFromText(config, assignment.left(eq).toStdString(),
                                              assignment.mid(eq + 1).toStdString());
        } catch (const std::exception &e) {
            rethrowFor("--set", e);
        }
    }
}

loaderlab::DatasetKind pathDatasetKind(const std::string &path)
{
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status) || std::filesystem::is_directory(status))
        return loaderlab::DatasetKind::ImageFolder;
    return std::filesystem::path(path).extension() == ".py" ? loaderlab::DatasetKind::Python
                                                            : loaderlab::DatasetKind::TensorFile;
}

RunConfig runConfigFromOptions(const QCommandLineParser &p)
{
    RunConfig c;
    const bool configured = p.isSet(QStringLiteral("config"));
    if (configured)
        c = loaderlab::loadRunConfig(pathFromArgument(p.value(QStringLiteral("config"))));
    const loaderlab::DatasetKind configKind = c.dataset.kind;

    bool modelOption = false;
    bool sleepOption = false;
    for (const ConfigField &field : loaderlab::configFields()) {
        if (!applyConfigFieldOption(p, field, c))
            continue;
        modelOption = modelOption || field.key.starts_with("consumer.model.");
        sleepOption = sleepOption || field.key.starts_with("consumer.sleep_");
    }
    // A step's settings choose that step, unless --consumer says which.
    if (!p.isSet(QStringLiteral("consumer")))
        c.consumer.kind = loaderlab::impliedConsumerKind(c.consumer, modelOption, sleepOption,
                                                         c.consumer.kind);
    // A path chooses its dataset unless --dataset, --set or the config file says which:
    // `run --path PHOTOS` reads the photos, not the synthetic default beside them.
    const auto named = [&](const char *key) {
        return p.values(QStringLiteral("set"))
                   .indexOf(QRegularExpression(QStringLiteral("^")
                                               + QRegularExpression::escape(QLatin1String(key))))
               >= 0;
    };
    if (p.isSet(QStringLiteral("path")) && !p.isSet(QStringLiteral("dataset"))
        && !named("dataset.kind=")
        && (!configured || configKind == loaderlab::DatasetKind::Synthetic))
        c.dataset.kind = pathDatasetKind(c.dataset.path);
    applySetOptions(p, c);
    // `--seconds S` alone runs for S seconds: not one epoch of the default dataset (a
    // fraction of a second) unless epochs are asked for too.
    if (p.isSet(QStringLiteral("seconds")) && !p.isSet(QStringLiteral("epochs"))
        && !named("epochs=") && !configured)
        c.epochs = 0;
    // A dataset only one engine reads runs there unless an engine was asked for.
    const bool engineNamed = p.isSet(QStringLiteral("engine")) || named("engine=");
    if (!engineNamed)
        c.engine = loaderlab::engineForDataset(c.dataset.kind, c.engine);
    loaderlab::validate(c.loader);
    return c;
}

} // namespace loaderlab::cli
